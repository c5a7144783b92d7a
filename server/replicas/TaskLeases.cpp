#include "server/replicas/TaskLeases.h"

#include "app/metrics/EngineMetrics.h"
#include "app/store/Store.h"
#include "app/tasks/TaskManager.h"
#include "server/accounts/AccountStore.h"

#include "sandbox/ProcessOwner.h"

#include <QSysInfo>
#include <unistd.h>

namespace warren::server {

using control::TaskStatus;

std::string replicaMachine() {
    return sandbox::thisMachine() + "/" + QSysInfo::machineHostName().toStdString();
}

std::string replicaName() {
    return replicaMachine() + ":" + std::to_string(::getpid()) + ":" + sandbox::processStartTime(::getpid());
}

bool replicaGone(const std::string& replica) {
    return sandbox::ownerGone(replica, replicaMachine(), sandbox::processStartTime);
}

std::vector<Orphan> orphanedTasks(const std::vector<std::string>& queuedOrRunning,
                                  const std::map<std::string, std::string>& liveLeases,
                                  const std::set<std::string>& waiting,
                                  const std::function<bool(const std::string& holder)>& holderGone) {
    std::vector<Orphan> orphans;
    for (const auto& id : queuedOrRunning) {
        if (waiting.contains(id))
            continue;
        const auto lease = liveLeases.find(id);
        if (lease == liveLeases.end())
            orphans.push_back({id, {}});
        else if (holderGone(lease->second))
            orphans.push_back({id, lease->second});
    }
    return orphans;
}

TaskLeases::TaskLeases(accounts::AccountStore& accounts, std::string holder, std::chrono::milliseconds ttl,
                       QObject* parent)
    : QObject(parent), m_accounts(accounts), m_holder(std::move(holder)), m_ttl(ttl) {
    m_beat.setInterval(std::max<std::chrono::milliseconds>(ttl / 3, std::chrono::milliseconds(100)));
    connect(&m_beat, &QTimer::timeout, this, [this] { (void)beat(); });
}

Result<bool> TaskLeases::claim(const std::string& taskId) {
    return m_accounts.takeLease(taskId, m_holder, m_ttl);
}

// A database that cannot be asked answers "no": a cancel goes to this replica's own runner or record.
bool TaskLeases::heldElsewhere(const std::string& taskId) {
    auto held = m_accounts.heldElsewhere(taskId, m_holder);
    return held && *held;
}

void TaskLeases::release(const std::string& taskId) {
    if (auto released = m_accounts.releaseLease(taskId, m_holder); !released)
        emit problem(QString::fromStdString(released.error().message)); // it expires by itself
}

void TaskLeases::releaseAll() {
    m_beat.stop();
    if (auto dropped = m_accounts.renewLeases(m_holder, {}, m_ttl); !dropped)
        emit problem(QString::fromStdString(dropped.error().message));
}

void TaskLeases::start(control::TaskManager& manager, control::Store& store, control::EngineMetrics& metrics) {
    m_manager = &manager;
    m_store = &store;
    m_metrics = &metrics;
    m_beat.start();
}

std::vector<std::string> TaskLeases::beat() {
    if (!m_manager)
        return {};
    renew();
    return adopt();
}

void TaskLeases::renew() {
    const std::vector<std::string> mine = m_manager->claimedHere();
    auto held = m_accounts.renewLeases(m_holder, mine, m_ttl);
    if (!held)
        return emit problem(QString::fromStdString(held.error().message));
    const std::set<std::string> kept(held->begin(), held->end());
    for (const auto& id : mine)
        if (!kept.contains(id)) {
            m_manager->abandon(id);
            m_metrics->taskLease("lost");
            emit problem(QString::fromStdString("task " + id + ": another replica took it over while this one "
                                                "did not renew its lease; it runs there now"));
        }
}

std::vector<std::string> TaskLeases::adopt() {
    auto leased = m_accounts.liveLeases();
    auto waiting = m_accounts.waitingTasks();
    auto running = m_store->taskIdsWithStatus(TaskStatus::Running);
    auto queued = m_store->taskIdsWithStatus(TaskStatus::Queued);
    for (const Error* error : {leased ? nullptr : &leased.error(), waiting ? nullptr : &waiting.error(),
                               running ? nullptr : &running.error(), queued ? nullptr : &queued.error()})
        if (error) {
            emit problem(QString::fromStdString(error->message));
            return {};
        }
    std::set<std::string> waits;
    for (const auto& task : *waiting)
        waits.insert(task.taskId);
    std::vector<std::string> tasks = std::move(*running);
    tasks.insert(tasks.end(), queued->begin(), queued->end());
    const std::map<std::string, std::string> live(leased->begin(), leased->end());
    std::vector<std::string> adopted;
    for (const auto& [id, goneHolder] : orphanedTasks(tasks, live, waits, replicaGone)) {
        // A dead holder's lease is taken from it here; adopt's own claim then finds it this replica's.
        if (!goneHolder.empty()) {
            auto taken = m_accounts.takeLease(id, m_holder, m_ttl, goneHolder);
            if (!taken || !*taken)
                continue;
        }
        auto taken = m_manager->adopt(id);
        if (!taken) {
            emit problem(QString::fromStdString("cannot take over task " + id + ": " + taken.error().message));
        } else if (*taken) {
            m_metrics->taskLease("adopted");
            adopted.push_back(id);
        }
    }
    return adopted;
}

} // namespace warren::server
