#pragma once
// The questions of a task with `--network ask` (DESIGN §12). Its egress proxy asks about a name no rule
// lists; each host:port is one question to the user (every connection to it waits on that one), an approval
// whose tool is "network" (app/egress/NetworkQuestion.h) shown where the task's other approvals are. The
// answer lets the waiting connections through once, or for the rest of the task (the proxy keeps the rule),
// or refuses them. No answer within the wait refuses them too, so an unattended run never hangs. A refusal,
// by the user or by the clock, holds for the rest of the task: the agent's retries are refused at once
// instead of asking again, and so are questions beyond kMaxWaiting at a time.

#include "app/egress/EgressAsker.h"
#include "app/store/StoreTypes.h"

#include <QObject>
#include <chrono>
#include <map>
#include <string>
#include <vector>

class QTimer;

namespace warren::control {

class NetworkQuestions : public QObject, public EgressAsker {
    Q_OBJECT
public:
    static constexpr std::size_t kMaxWaiting = 16;
    struct Settings {
        std::string taskId;
        std::uint64_t run = 1;                   // which launch of the task (ids stay unique across resumes)
        std::chrono::milliseconds wait{120'000}; // for an answer, before the connections are refused
    };

    explicit NetworkQuestions(Settings settings, QObject* parent = nullptr);
    ~NetworkQuestions() override;

    void ask(const std::string& host, std::uint16_t port, const std::string& method, Answer answer) override;
    // The user's answer to the question callId (asked's record.callId). always: for the rest of the task.
    // False when no such question waits.
    bool answer(const std::string& callId, bool approved, const std::string& note, bool always);
    bool isWaiting(const std::string& callId) const;
    bool anyWaiting() const { return !m_waiting.empty(); }
    // The task ended: the waiting connections are refused and nothing more is asked.
    void abortAll();

signals:
    void asked(const warren::control::ApprovalRecord& question);
    void decided(const warren::control::ApprovalRecord& question); // approved, decidedBy and note filled in

private:
    struct Waiting {
        ApprovalRecord record;
        std::string target; // host:port
        std::vector<Answer> answers;
        QTimer* timer = nullptr;
    };
    void settle(const std::string& callId, bool approved, bool forTask, const std::string& by,
                const std::string& note, const std::string& why);

    Settings m_settings;
    std::map<std::string, Waiting> m_waiting;      // by callId
    std::map<std::string, std::string> m_refused;  // host:port -> what its connections are told
    std::uint64_t m_asked = 0;
    bool m_aborted = false;
};

} // namespace warren::control
