#pragma once
// The deliveries of every webhook, each hook on its own: a bounded queue per hook (kMaxQueuedDeliveries;
// past it the newest is dropped and counted), one attempt at a time per hook, bounded in time
// (WebhookSender), retried after a failure on webhookRetryDelay's schedule until it is delivered or given up.
// Hooks do not wait for each other: a dead receiver delays only its own hook's queue. Nothing waits on the
// event loop.
//
// At least once: a delivery is retried until a receiver answers 2xx, so a receiver may see one twice (an
// answer lost on the way, a server killed after the answer) and deduplicates by the Warren-Delivery id. The
// queues are in memory; what keeps a delivery across a restart is its owner's (TaskWebhooks keeps each in
// the database until `settled` says it left its queue for good).

#include "app/egress/InsideDestinations.h"
#include "app/wire/WebhookBody.h"
#include "common/http/HttpUrl.h"

#include <QNetworkAccessManager>
#include <QObject>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>

namespace warren::control {
class EngineMetrics;
}

namespace warren::server {

// Where one hook's deliveries go and what signs them, as the store has it at the event.
struct WebhookTarget {
    std::string hookId;
    HttpUrl url;
    std::string secret;
};

class WebhookDispatcher : public QObject {
    Q_OBJECT
public:
    // settled(delivery id): the delivery left its queue for good (delivered, given up on, refused, dropped).
    using Settled = std::function<void(const std::string& deliveryId)>;
    WebhookDispatcher(control::InsideAccess access, control::EngineMetrics& metrics, Settled settled = {},
                      QObject* parent = nullptr);

    // Queues delivery for target (its URL and secret replacing what the hook had, for what is still queued).
    void enqueue(const WebhookTarget& target, const wire::WebhookDelivery& delivery);
    // A delivery refused before it was queued (its URL no longer passes the policy): counted and told.
    void refused(const std::string& hookId, const std::string& why);
    // The hook was removed: what it had queued is dropped, an attempt under way is not retried.
    void forget(const std::string& hookId);
    wire::WebhookDeliveries deliveries(const std::string& hookId) const;

private:
    struct Pending {
        std::string id;
        QByteArray body; // every attempt sends these bytes, so its signature is the same each time
        std::string type;
        std::string createdAt;
        int attempts = 0;
    };
    struct Hook {
        WebhookTarget target;
        std::uint64_t generation = 0; // a forgotten hook's attempt finds another number, or no hook
        std::deque<Pending> queue;
        bool busy = false; // an attempt is under way, or a retry is waiting for its time
        wire::WebhookDeliveries counts;
    };
    void next(const std::string& hookId);
    void attempted(const std::string& hookId, std::uint64_t generation, Status result);

    void settle(const std::string& deliveryId);

    control::InsideAccess m_access;
    control::EngineMetrics& m_metrics;
    Settled m_settled;
    QNetworkAccessManager m_network; // its own: no cookie, cache or proxy of another part of warrend
    std::map<std::string, Hook> m_hooks;
    std::uint64_t m_generations = 0;
};

} // namespace warren::server
