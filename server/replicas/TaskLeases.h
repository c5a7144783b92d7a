#pragma once
// warrend's replicas over one PostgreSQL (DESIGN §15): each task queued or running is leased to the replica
// that runs it (AccountStore's task_leases, by the database's clock). Every ttl/3 a replica renews the leases
// of what it runs and drops the rest; a task whose renewal it lost (it was stopped longer than the ttl and
// another took over) it abandons at once. At the same beat it adopts what no live lease holds: tasks left
// running by a replica that died resume here from their checkpoints, tasks left queued are queued here.
// A holder known dead holds nothing: a replica of this machine whose process is gone (a warrend restarted
// after kill -9 takes its tasks over at once, not a lease later). Tasks waiting for a concurrency slot
// (WaitingTasks) are nobody's until a replica offers them one.

#include "app/store/StoreTypes.h"
#include "app/tasks/TaskClaims.h"

#include <QObject>
#include <QTimer>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace warren::accounts {
class AccountStore;
}
namespace warren::control {
class EngineMetrics;
class Store;
class TaskManager;
} // namespace warren::control

namespace warren::server {

// A replica as its leases name it: sandbox::processOwner's form, its machine also naming the host, so that
// replicas in containers sharing a kernel (and a machine-id from their image) are told apart.
std::string replicaMachine();
std::string replicaName();
// A replica of this machine whose process is gone (false for another machine's: not ours to judge).
bool replicaGone(const std::string& replica);

// A task no live replica holds: its lease expired or never was (goneHolder empty), or its holder is dead.
struct Orphan {
    std::string taskId;
    std::string goneHolder;
};

// Pure: the tasks of queuedOrRunning (their ids) that no live holder leases (liveLeases: task -> holder;
// holderGone says which holders are known dead) and that do not wait for a slot, in the order given.
std::vector<Orphan> orphanedTasks(const std::vector<std::string>& queuedOrRunning,
                                  const std::map<std::string, std::string>& liveLeases,
                                  const std::set<std::string>& waiting,
                                  const std::function<bool(const std::string& holder)>& holderGone);

class TaskLeases : public QObject, public control::TaskClaims {
    Q_OBJECT
public:
    TaskLeases(accounts::AccountStore& accounts, std::string holder, std::chrono::milliseconds ttl,
               QObject* parent = nullptr);

    Result<bool> claim(const std::string& taskId) override;
    bool heldElsewhere(const std::string& taskId) override;
    void release(const std::string& taskId) override;

    // Renews and adopts every ttl/3 from now on; the engine exists only once its face has its claims.
    void start(control::TaskManager& manager, control::Store& store, control::EngineMetrics& metrics);
    // One beat now: renew, abandon what was lost, adopt what was left. Returns the tasks adopted.
    std::vector<std::string> beat();
    // Every lease of this replica's dropped (it stops): another replica takes its tasks over at once.
    void releaseAll();
    const std::string& holder() const { return m_holder; }

signals:
    void problem(const QString& message); // the database could not be asked; the next beat tries again

private:
    void renew();
    std::vector<std::string> adopt();

    accounts::AccountStore& m_accounts;
    std::string m_holder;
    std::chrono::milliseconds m_ttl;
    control::TaskManager* m_manager = nullptr;
    control::Store* m_store = nullptr;
    control::EngineMetrics* m_metrics = nullptr;
    QTimer m_beat;
};

} // namespace warren::server
