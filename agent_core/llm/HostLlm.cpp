#include "agent_core/llm/HostLlm.h"

namespace warren::agent {

Result<protocol::LlmChatResult> HostLlm::chat(const protocol::LlmChatParams& params,
                                              std::chrono::steady_clock::time_point deadline,
                                              const Cancellation& cancellation) {
    auto reply = m_call(protocol::method::kLlmChat, protocol::toJson(params), deadline, &cancellation);
    if (!reply)
        return reply.error();
    auto result = protocol::llmChatResultFromJson(*reply);
    if (!result)
        return makeError(ErrorCode::InvalidArgument,
                         "llm.chat: the control plane's answer is malformed: " + result.error().message);
    return result;
}

} // namespace warren::agent
