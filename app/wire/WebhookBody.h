#pragma once
// The bodies of a user's webhooks (DESIGN §15, docs/SERVER.md, "Webhooks"). Pure.
//
//   POST /v1/me/webhooks        {"url", "events"?}: read strictly by the server; events: names of
//                               WebhookEvent, every one when left out
//   answered 201                {"id", "url", "events", "created_at", "secret"}: the secret this once only
//   GET /v1/me/webhooks         {"webhooks": [{"id", "url", "events", "created_at", "deliveries"}, ...]},
//   never a
//                               secret; deliveries: {"delivered", "failed", "last_error"?} on this server
//                               since it started
//   what warrend POSTs to a hook (WebhookDelivery), signed: {"id", "type", "created_at", "task": {"id",
//                               "status"}}; id, the delivery's, is the same in every retry of it

#include "common/Result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::wire {

inline constexpr std::size_t kMaxWebhookBodyBytes = 16 * 1024;

// A task's lifecycle, as a hook subscribes to it.
enum class WebhookEvent {
    TaskCreated,  // POST /v1/tasks created it
    TaskStarted,  // a run of it started (the first, or a resume, a reply)
    TaskWaiting,  // it waits for its user's reply
    TaskFinished, // it ended: succeeded, failed or cancelled
};
std::string_view webhookEventName(WebhookEvent event); // "task.created", ...
std::optional<WebhookEvent> webhookEventFromName(std::string_view name);
std::vector<WebhookEvent> allWebhookEvents();
// "task.created,task.finished" and back: how the store keeps a hook's list. Unknown names are dropped.
std::string joinWebhookEvents(const std::vector<WebhookEvent>& events);
std::vector<WebhookEvent> splitWebhookEvents(std::string_view text);

struct WebhookRequest {
    std::string url;
    std::vector<WebhookEvent> events; // never empty once read: every event when the body names none

    nlohmann::json toJson() const;
    // One object with "url" (a string) and maybe "events" (a non-empty array of event names, each once),
    // nothing else. What the URL may be is WebhookPolicy's to check.
    static Result<WebhookRequest> fromJson(std::string_view body);
};

struct WebhookDeliveries {
    std::uint64_t delivered = 0;
    std::uint64_t failed = 0; // deliveries given up on (every attempt failed, or refused before any)
    std::string lastError;    // the latest attempt's failure; empty when it worked
};

struct WebhookEntry {
    std::string id;
    std::string url;
    std::vector<WebhookEvent> events;
    std::string createdAt;
    std::string secret; // only in the answer to its creation
    WebhookDeliveries deliveries;

    nlohmann::json toJson() const;
};

struct WebhookList {
    std::vector<WebhookEntry> webhooks;
    nlohmann::json toJson() const;
};

// What a hook is sent: one lifecycle event of one of the user's tasks.
struct WebhookDelivery {
    std::string id; // "whd-" and 32 hex digits, the same in each retry: the receiver's deduplication key
    WebhookEvent type = WebhookEvent::TaskCreated;
    std::string createdAt; // RFC 3339, when the event happened
    std::string taskId;
    std::string status; // the task's status then (TaskStatus' name)

    nlohmann::json toJson() const;
    // Strictly: a receiver's reading (the tests' receiver reads it so).
    static Result<WebhookDelivery> fromJson(std::string_view body);
};

} // namespace warren::wire
