#pragma once
// Tasks that asked to wait for a concurrency slot ("queue": true) rather than be refused: stored as queued
// but held (not in the TaskManager's queue), and listed in the accounts' waiting_tasks, oldest first.
// offerSlots() walks that list whenever a slot may have come free (a run ended, the server started, the
// operator may have raised a quota) and starts each task whose owner's and tenant's quotas now have room,
// in arrival order per user and tenant; it never takes a slot from a running task. A task that is no
// longer queued (cancelled while it waited) leaves the list.

#include "common/Result.h"
#include "server/accounts/AccountTypes.h"

#include <string>

namespace warren::control {
class Store;
class TaskManager;
} // namespace warren::control
namespace warren::accounts {
class AccountStore;
}

namespace warren::server {

class WaitingTasks {
public:
    WaitingTasks(accounts::AccountStore& accounts, control::Store& store, control::TaskManager& manager)
        : m_accounts(accounts), m_store(store), m_manager(manager) {}

    // Starts what now fits. An error names the task it stopped at; the rest wait for the next offer.
    Status offerSlots();

private:
    Status start(const accounts::WaitingTask& task);

    accounts::AccountStore& m_accounts;
    control::Store& m_store;
    control::TaskManager& m_manager;
};

} // namespace warren::server
