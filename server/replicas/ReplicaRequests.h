#pragma once
// Requests that only the replica running a task can carry out, passed to it through PostgreSQL (DESIGN §15:
// any replica answers any request). The replica a client asked stores the request (task_requests; the
// runner is notified) and answers the client once the runner answered (notified back), or says after
// kAnswerWithin that the runner did not answer. The runner serves the open requests of the tasks it holds
// as they are notified, and at each poll (a notification lost with a dropped connection is found there).

#include "server/replicas/ReplicaRequest.h"

#include <QObject>
#include <QTimer>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warren::accounts {
class AccountStore;
}

namespace warren::server {

class ReplicaRequests : public QObject {
    Q_OBJECT
public:
    static constexpr std::chrono::seconds kAnswerWithin{15};
    static constexpr std::chrono::seconds kPollEvery{2};
    static constexpr std::chrono::minutes kForgetAfter{10}; // requests whose asker gave up long since

    using Done = std::function<void(ReplicaAnswer answer)>;
    // The runner's side: carries out request for the task (held here), then calls done once.
    using Serve = std::function<void(const std::string& taskId, const ReplicaRequest& request, Done done)>;

    // mine: the tasks this replica runs (TaskManager::claimedHere).
    ReplicaRequests(accounts::AccountStore& accounts, Serve serve, std::function<std::vector<std::string>()> mine,
                    QObject* parent = nullptr);

    // The asker's side: done once, with the runner's answer or an error (Unavailable: it did not answer in
    // time, or the database could not be asked).
    void ask(const std::string& taskId, const ReplicaRequest& request, std::function<void(Result<ReplicaAnswer>)> done);

    // From the notifications: a request waits for one of this replica's tasks, an answer for one of its asks.
    void requestWaiting(const std::string& taskId);
    void requestAnswered(const std::string& requestId);

signals:
    void problem(const QString& message);

private:
    void serveOpen();
    void answer(std::int64_t id, const ReplicaAnswer& given); // the runner's, stored for the asker
    void collect(std::int64_t id);

    struct Asked {
        std::string taskId;
        std::function<void(Result<ReplicaAnswer>)> done;
        QTimer* deadline = nullptr;
    };
    std::optional<Asked> take(std::int64_t id); // out of m_asked, its deadline gone

    accounts::AccountStore& m_accounts;
    Serve m_serve;
    std::function<std::vector<std::string>()> m_mine;
    std::map<std::int64_t, Asked> m_asked;
    std::set<std::int64_t> m_serving; // being carried out here: not served twice
    QTimer m_poll;
};

} // namespace warren::server
