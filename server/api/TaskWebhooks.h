#pragma once
// A task's lifecycle told to its owner's webhooks: created (POST /v1/tasks), started (a run's task_started or
// task_resumed event is stored), waiting and finished (its run ended with that status). Each event reads the
// owner's hooks from the accounts as they are now, checks each URL again (the policy may have changed since
// its registration: the operator's --allow-internal), keeps a delivery per subscribed hook in the database
// and hands it to the WebhookDispatcher, which sends it later (nothing here waits on the network) and says
// when it is settled, which removes it.

#include "app/egress/InsideDestinations.h"
#include "app/store/StoreTypes.h"
#include "app/wire/WebhookBody.h"

#include <optional>
#include <string>

namespace warren::accounts {
class AccountStore;
}

namespace warren::server {

class WebhookDispatcher;

class TaskWebhooks {
public:
    TaskWebhooks(accounts::AccountStore& accounts, WebhookDispatcher& dispatcher,
                 control::InsideAccess access)
        : m_accounts(accounts), m_dispatcher(dispatcher), m_access(std::move(access)) {}

    void taskEvent(const std::string& taskId, wire::WebhookEvent event, control::TaskStatus status);
    // At start: the deliveries a warrend before this one kept and did not settle (it was killed, or stopped
    // with them waiting), queued again as they were (the same id and bytes), oldest first.
    void resumeWaiting();
    // The webhook event a run's end is, by the status it ended with: waiting or finished (a final status);
    // none for paused or interrupted.
    static std::optional<wire::WebhookEvent> endEvent(control::TaskStatus status);

    WebhookDispatcher& dispatcher() { return m_dispatcher; }
    const control::InsideAccess& access() const { return m_access; }

private:
    accounts::AccountStore& m_accounts;
    WebhookDispatcher& m_dispatcher;
    control::InsideAccess m_access;
};

} // namespace warren::server
