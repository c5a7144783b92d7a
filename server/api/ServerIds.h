#pragma once
// Ids the server makes: an upload's "u-" and 16 random hex digits (tasks keep the control plane's "t-"); a
// webhook's "wh-" and 16, a webhook delivery's "whd-" and 32; a webhook's secret, "whsec_" and 64 (32 random
// bytes), which signs its deliveries.

#include <string>

namespace warren::server {

std::string newUploadId();
std::string newWebhookId();
std::string newWebhookDeliveryId();
std::string newWebhookSecret();

} // namespace warren::server
