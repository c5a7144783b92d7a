#include "server/webhooks/WebhookDispatcher.h"

#include "app/metrics/EngineMetrics.h"
#include "server/webhooks/WebhookPolicy.h"
#include "server/webhooks/WebhookSender.h"

#include <QNetworkProxy>
#include <QTimer>

namespace warren::server {

WebhookDispatcher::WebhookDispatcher(control::InsideAccess access, control::EngineMetrics& metrics,
                                     Settled settled, QObject* parent)
    : QObject(parent), m_access(std::move(access)), m_metrics(metrics), m_settled(std::move(settled)) {
    m_network.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    m_network.setProxy(QNetworkProxy::NoProxy);
}

void WebhookDispatcher::enqueue(const WebhookTarget& target, const wire::WebhookDelivery& delivery) {
    auto [found, added] = m_hooks.try_emplace(target.hookId);
    Hook& hook = found->second;
    if (added)
        hook.generation = ++m_generations;
    hook.target = target;
    if (hook.queue.size() >= kMaxQueuedDeliveries) {
        ++hook.counts.failed;
        hook.counts.lastError = "dropped delivery " + delivery.id + ": " +
                                std::to_string(kMaxQueuedDeliveries) +
                                " deliveries already wait for this hook";
        m_metrics.webhookDelivery("dropped");
        return settle(delivery.id);
    }
    hook.queue.push_back({delivery.id, QByteArray::fromStdString(delivery.toJson().dump()),
                          std::string(wire::webhookEventName(delivery.type)), delivery.createdAt, 0});
    if (!hook.busy)
        next(target.hookId);
}

void WebhookDispatcher::refused(const std::string& hookId, const std::string& why) {
    Hook& hook = m_hooks[hookId];
    if (hook.generation == 0)
        hook.generation = ++m_generations;
    ++hook.counts.failed;
    hook.counts.lastError = why;
    m_metrics.webhookDelivery("refused");
}

void WebhookDispatcher::settle(const std::string& deliveryId) {
    if (m_settled)
        m_settled(deliveryId);
}

void WebhookDispatcher::forget(const std::string& hookId) {
    m_hooks.erase(hookId);
}

wire::WebhookDeliveries WebhookDispatcher::deliveries(const std::string& hookId) const {
    const auto found = m_hooks.find(hookId);
    return found == m_hooks.end() ? wire::WebhookDeliveries{} : found->second.counts;
}

void WebhookDispatcher::next(const std::string& hookId) {
    const auto found = m_hooks.find(hookId);
    if (found == m_hooks.end() || found->second.queue.empty()) {
        if (found != m_hooks.end())
            found->second.busy = false;
        return;
    }
    Hook& hook = found->second;
    hook.busy = true;
    Pending& pending = hook.queue.front();
    ++pending.attempts;
    const QList<QPair<QByteArray, QByteArray>> headers{
        {"Warren-Signature",
         QByteArray::fromStdString(webhookSignature(hook.target.secret, pending.body.toStdString()))},
        {"Warren-Delivery", QByteArray::fromStdString(pending.id)},
        {"Warren-Event", QByteArray::fromStdString(pending.type)},
        {"Warren-Timestamp", QByteArray::fromStdString(pending.createdAt)},
    };
    WebhookSender::send(m_network, hook.target.url, m_access, pending.body, headers, this,
                        [this, hookId, generation = hook.generation](Status result) {
                            attempted(hookId, generation, std::move(result));
                        });
}

void WebhookDispatcher::attempted(const std::string& hookId, std::uint64_t generation, Status result) {
    const auto found = m_hooks.find(hookId);
    if (found == m_hooks.end() || found->second.generation != generation)
        return; // forgotten meanwhile
    Hook& hook = found->second;
    Pending& pending = hook.queue.front();
    if (result) {
        ++hook.counts.delivered;
        hook.counts.lastError.clear();
        m_metrics.webhookDelivery("delivered");
        const std::string id = pending.id;
        hook.queue.pop_front();
        settle(id);
        return next(hookId);
    }
    hook.counts.lastError = "delivery " + pending.id + ", attempt " + std::to_string(pending.attempts) +
                            ": " + result.error().message;
    const auto delay = result.error().code == ErrorCode::InvalidArgument
                           ? std::nullopt
                           : webhookRetryDelay(pending.attempts);
    if (!delay) {
        ++hook.counts.failed;
        m_metrics.webhookDelivery(result.error().code == ErrorCode::InvalidArgument ? "refused" : "failed");
        const std::string id = pending.id;
        hook.queue.pop_front();
        settle(id);
        return next(hookId);
    }
    m_metrics.webhookRetry();
    QTimer::singleShot(*delay, this, [this, hookId, generation] {
        const auto still = m_hooks.find(hookId);
        if (still != m_hooks.end() && still->second.generation == generation)
            next(hookId);
    });
}

} // namespace warren::server
