#include "server/api/ServerIds.h"

#include <QRandomGenerator>

namespace warren::server {

namespace {

// From the system's generator (getrandom): a secret may be made of them.
std::string randomHex(const char* prefix, int digits) {
    static const char* hex = "0123456789abcdef";
    std::string id = prefix;
    for (int i = 0; i < digits; ++i)
        id += hex[QRandomGenerator::system()->bounded(16)];
    return id;
}

} // namespace

std::string newUploadId() {
    return randomHex("u-", 16);
}

std::string newWebhookId() {
    return randomHex("wh-", 16);
}

std::string newWebhookDeliveryId() {
    return randomHex("whd-", 32);
}

std::string newWebhookSecret() {
    return randomHex("whsec_", 64);
}

} // namespace warren::server
