#include "server/api/TaskWebhooks.h"

#include "agent_core/protocol/Timestamp.h"
#include "server/accounts/AccountStore.h"
#include "server/api/ServerIds.h"
#include "server/webhooks/WebhookDispatcher.h"
#include "server/webhooks/WebhookPolicy.h"

#include <algorithm>
#include <chrono>

namespace warren::server {

std::optional<wire::WebhookEvent> TaskWebhooks::endEvent(control::TaskStatus status) {
    if (status == control::TaskStatus::Waiting || status == control::TaskStatus::Sleeping)
        return wire::WebhookEvent::TaskWaiting;
    if (control::isFinal(status))
        return wire::WebhookEvent::TaskFinished;
    return std::nullopt;
}

void TaskWebhooks::taskEvent(const std::string& taskId, wire::WebhookEvent event,
                             control::TaskStatus status) {
    auto owner = m_accounts.taskOwner(taskId);
    if (!owner || !*owner)
        return; // not a user's task (or the database is away: counted among its errors)
    auto hooks = m_accounts.webhooks((*owner)->userId);
    if (!hooks || hooks->empty())
        return;
    const wire::WebhookDelivery base{"", event, protocol::formatTimestamp(std::chrono::system_clock::now()),
                                     taskId, control::taskStatusName(status)};
    for (const accounts::WebhookRecord& hook : *hooks) {
        const auto events = wire::splitWebhookEvents(hook.events);
        if (std::find(events.begin(), events.end(), event) == events.end())
            continue;
        auto url = checkWebhookUrl(hook.url, m_access);
        if (!url) {
            m_dispatcher.refused(hook.id, url.error().message);
            continue;
        }
        wire::WebhookDelivery delivery = base;
        delivery.id = newWebhookDeliveryId();
        // Kept until it is settled, so that a warrend killed meanwhile sends it when it starts; with the
        // database away it goes all the same, kept in memory only.
        (void)m_accounts.addWebhookDelivery({delivery.id, hook.id, delivery.toJson().dump()});
        m_dispatcher.enqueue(WebhookTarget{hook.id, *url, hook.secret}, delivery);
    }
}

void TaskWebhooks::resumeWaiting() {
    auto waiting = m_accounts.waitingWebhookDeliveries();
    if (!waiting)
        return;
    for (const auto& [hook, row] : *waiting) {
        auto delivery = wire::WebhookDelivery::fromJson(row.body);
        auto url = checkWebhookUrl(hook.url, m_access);
        if (!delivery || !url) {
            if (!url)
                m_dispatcher.refused(hook.id, url.error().message);
            (void)m_accounts.removeWebhookDelivery(row.id);
            continue;
        }
        m_dispatcher.enqueue(WebhookTarget{hook.id, *url, hook.secret}, *delivery);
    }
}

} // namespace warren::server
