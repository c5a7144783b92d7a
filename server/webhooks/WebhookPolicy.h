#pragma once
// What a webhook may be and how its deliveries go (DESIGN §15, docs/SERVER.md "Webhooks"), decided here and
// nowhere else. Pure: the edges (WebhookSender, WebhookDispatcher) only carry it out.
//
// A hook's URL is its user's, and warrend is the operator's: it is reached like any other way out of the
// server (InsideDestinations), never inside the server's host or its networks unless the operator allows the
// destination (`serve --allow-internal`). At registration an address literal or a name the machine answers
// for itself is refused; every other name is resolved at each delivery and the address checked is the one
// connected to (WebhookSender).

#include "app/egress/InsideDestinations.h"
#include "common/Result.h"
#include "common/http/HttpUrl.h"

#include <QHostAddress>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warren::server {

inline constexpr std::size_t kMaxWebhookUrlBytes = 2048;
inline constexpr std::size_t kMaxWebhooksPerUser = 10;
// Deliveries waiting for one hook; past it the newest is dropped (and counted), so a receiver that is down
// costs the server a bounded amount of memory.
inline constexpr std::size_t kMaxQueuedDeliveries = 256;
inline constexpr int kMaxDeliveryAttempts = 8;
// One attempt, from its name's lookup to the answer's status line.
inline constexpr std::chrono::seconds kDeliveryAttemptTimeout{10};

// The URL a user registers: http or https (no other scheme), at most kMaxWebhookUrlBytes, no user name or
// password, no fragment (HttpUrl's strict reading); not at an address inside (a literal) or a name the
// machine answers for itself ("localhost"), unless access allows that destination. The error says why and
// what to do.
Result<HttpUrl> checkWebhookUrl(std::string_view text, const control::InsideAccess& access);

// At delivery: whether the address a name resolved to may be connected to.
bool webhookAddressAllowed(const HttpUrl& url, const QHostAddress& address,
                           const control::InsideAccess& access);

// The Warren-Signature header's value: "sha256=" and the lowercase hex HMAC-SHA256 of body under secret.
std::string webhookSignature(std::string_view secret, std::string_view body);

// After attemptsMade failed attempts (1, 2, ...): how long until the next one (1 s, doubling, at most
// 5 min), or nullopt when the delivery is given up (kMaxDeliveryAttempts made).
std::optional<std::chrono::milliseconds> webhookRetryDelay(int attemptsMade);

// Whether an answer's status delivers: 2xx. A redirect is not followed and does not deliver.
inline bool webhookDelivered(int status) {
    return status >= 200 && status < 300;
}

} // namespace warren::server
