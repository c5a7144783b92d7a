#include "agent_core/protocol/AgentHello.h"

#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/Methods.h"

#include <nlohmann/json.hpp>

namespace warren::protocol {

std::string helloLine(const std::string& token) {
    return serialize(Notification{method::kAgentHello, {{"token", token}, {"protocol_version", kProtocolVersion}}}) +
           "\n";
}

Result<AgentHello> parseHello(std::string_view line) {
    auto message = parseMessage(line);
    if (!message)
        return makeError(ErrorCode::InvalidArgument, "the first line is not a protocol message: " +
                                                         message.error().message);
    const auto* hello = std::get_if<Notification>(&*message);
    if (!hello || hello->method != method::kAgentHello)
        return makeError(ErrorCode::InvalidArgument, std::string("the first line must be the ") +
                                                         method::kAgentHello + " notification");
    const nlohmann::json& params = hello->params;
    if (!params.is_object() || params.size() != 2 || !params.contains("token") || !params["token"].is_string() ||
        !params.contains("protocol_version") || !params["protocol_version"].is_number_unsigned())
        return makeError(ErrorCode::InvalidArgument, std::string(method::kAgentHello) +
                                                         " params must be exactly {token: string, "
                                                         "protocol_version: unsigned integer}");
    AgentHello result{params["token"].get<std::string>(), params["protocol_version"].get<std::uint64_t>()};
    if (result.protocolVersion != kProtocolVersion)
        return makeError(ErrorCode::Unsupported, "the agent speaks protocol version " +
                                                     std::to_string(result.protocolVersion) +
                                                     ", this control plane version " +
                                                     std::to_string(kProtocolVersion) +
                                                     "; install matching versions of warren and warren-agent");
    return result;
}

} // namespace warren::protocol
