#include "server/api/WaitingTasks.h"

#include "app/store/Store.h"
#include "app/tasks/TaskManager.h"
#include "server/accounts/AccountStore.h"

#include <set>

namespace warren::server {

using accounts::LimitLevel;

Status WaitingTasks::offerSlots() {
    auto waiting = m_accounts.waitingTasks();
    if (!waiting)
        return waiting.error();
    // A user or tenant found full stays full for the rest of this walk: their later tasks keep their
    // place behind the earlier one instead of each costing a transaction.
    std::set<std::int64_t> fullUsers, fullTenants;
    for (const auto& task : *waiting) {
        if (fullUsers.contains(task.userId) || fullTenants.contains(task.tenantId))
            continue;
        auto record = m_store.task(task.taskId);
        if (!record)
            return record.error();
        if (!*record || (*record)->status != control::TaskStatus::Queued || m_manager.isActive(task.taskId)) {
            if (auto forgotten = m_accounts.forgetWaitingTask(task.taskId); !forgotten)
                return forgotten;
            continue;
        }
        // Claimed before its reservation: a replica offering slots at the same time skips it, rather than
        // reserving it too and giving the reservation back when it finds the task taken.
        auto claimed = m_manager.claim(task.taskId);
        if (!claimed)
            return claimed.error();
        if (!*claimed)
            continue;
        auto reservation = m_accounts.reserveTask(task.userId, task.taskId);
        if (!reservation)
            return reservation.error();
        if (reservation->refused) {
            if (reservation->refused->level == LimitLevel::User)
                fullUsers.insert(task.userId);
            else
                fullTenants.insert(task.tenantId);
            continue;
        }
        if (auto started = start(task); !started)
            return started;
    }
    return Ok{};
}

// The reservation is taken (and the task left the list with it): a task that cannot start gives the slot
// back and waits again, at the end, for the next offer.
Status WaitingTasks::start(const accounts::WaitingTask& task) {
    auto resumed = m_manager.resume(task.taskId, {});
    if (resumed)
        return Ok{};
    (void)m_accounts.releaseTask(task.taskId);
    (void)m_accounts.addWaitingTask(task.userId, task.taskId);
    return makeError(resumed.error().code,
                     "cannot start queued task " + task.taskId + ": " + resumed.error().message);
}

} // namespace warren::server
