#include "agent_core/protocol/AgentHello.h"

#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/Methods.h"

#include <nlohmann/json.hpp>

namespace warren::protocol {

namespace {

constexpr const char* kModelStream = "model";
constexpr const char* kProtocolStream = "protocol";

} // namespace

std::string helloLine(const std::string& token, HelloStream stream) {
    nlohmann::json params = {{"token", token}, {"protocol_version", kProtocolVersion}};
    if (stream == HelloStream::Model)
        params["stream"] = kModelStream;
    return serialize(Notification{method::kAgentHello, std::move(params)}) + "\n";
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
    const bool named = params.is_object() && params.contains("stream");
    const bool knownStream =
        !named || (params["stream"].is_string() &&
                   (params["stream"] == kModelStream || params["stream"] == kProtocolStream));
    if (!params.is_object() || params.size() != (named ? 3u : 2u) || !params.contains("token") ||
        !params["token"].is_string() || !params.contains("protocol_version") ||
        !params["protocol_version"].is_number_unsigned() || !knownStream)
        return makeError(ErrorCode::InvalidArgument, std::string(method::kAgentHello) +
                                                         " params must be exactly {token: string, "
                                                         "protocol_version: unsigned integer} and optionally "
                                                         "stream: \"protocol\" or \"model\"");
    AgentHello result{params["token"].get<std::string>(), params["protocol_version"].get<std::uint64_t>(),
                      named && params["stream"] == kModelStream ? HelloStream::Model : HelloStream::Protocol};
    if (result.protocolVersion != kProtocolVersion)
        return makeError(ErrorCode::Unsupported, "the agent speaks protocol version " +
                                                     std::to_string(result.protocolVersion) +
                                                     ", this control plane version " +
                                                     std::to_string(kProtocolVersion) +
                                                     "; install matching versions of warren and warren-agent");
    return result;
}

} // namespace warren::protocol
