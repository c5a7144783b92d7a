#include "app/egress/NetworkQuestion.h"

#include "agent_core/protocol/EventTypes.h"

namespace warren::control {

using nlohmann::json;

json NetworkQuestion::toJson() const { return json{{"host", host}, {"port", port}, {"method", method}}; }

std::optional<NetworkQuestion> NetworkQuestion::fromApproval(std::string_view tool, const json& arguments) {
    if (tool != kNetworkTool || !arguments.is_object() || arguments.size() != 3)
        return std::nullopt;
    const auto host = arguments.find("host");
    const auto port = arguments.find("port");
    const auto method = arguments.find("method");
    if (host == arguments.end() || !host->is_string() || port == arguments.end() || !port->is_number_unsigned() ||
        method == arguments.end() || !method->is_string())
        return std::nullopt;
    const auto number = port->get<std::uint64_t>();
    if (number == 0 || number > 65535)
        return std::nullopt;
    return NetworkQuestion{host->get<std::string>(), std::uint16_t(number), method->get<std::string>()};
}

std::string networkQuestionId(std::uint64_t run, std::uint64_t number) {
    return std::string(kNetworkQuestionPrefix) + std::to_string(run) + "." + std::to_string(number);
}

bool isNetworkQuestionId(std::string_view id) { return id.substr(0, kNetworkQuestionPrefix.size()) == kNetworkQuestionPrefix; }

bool isNetworkQuestionEvent(std::string_view type, const std::optional<std::string>& tool, const json& data) {
    if (type != protocol::event_type::kApprovalRequested && type != protocol::event_type::kApprovalResolved)
        return false;
    if (tool && *tool == kNetworkTool)
        return true;
    const auto id = data.find("id");
    return id != data.end() && id->is_string() && isNetworkQuestionId(id->get_ref<const std::string&>());
}

} // namespace warren::control
