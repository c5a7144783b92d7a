#include "app/timeline/NetworkDescription.h"

namespace warren::timeline {

NetworkDescription describeNetworkRequest(const protocol::NetworkRequestData& data) {
    const std::string target = data.host + ":" + std::to_string(data.port);
    if (!data.allowed)
        return {"network refused: " + data.method + " " + target, data.reason.value_or(""), true};
    if (!data.path)
        return {"network: " + data.method + " " + target, data.address.value_or(""), false};
    std::string names;
    for (const std::string& name : data.secrets)
        names += (names.empty() ? "" : ", ") + name;
    std::string title = (data.method.empty() ? std::string("TLS") : data.method) + " " + target + *data.path;
    if (data.status)
        title += " \xE2\x86\x92 " + std::to_string(*data.status); // →
    title += names.empty() ? ", no secret put in" : ", with " + names;
    if (data.reason)
        return {"secret request failed: " + title, *data.reason, true};
    return {"secret request: " + title, data.address.value_or(""), false};
}

} // namespace warren::timeline
