#pragma once
// The model through the control plane: one llm.chat request per call. The control plane holds the keys,
// picks the provider and model, streams the reply as model_delta events and counts the tokens; the agent
// only sends the conversation.

#include "agent_core/host/HostCall.h"
#include "agent_core/llm/Llm.h"


namespace warren::agent {

class HostLlm : public Llm {
public:
    explicit HostLlm(HostCall call) : m_call(std::move(call)) {}

    Result<protocol::LlmChatResult> chat(const protocol::LlmChatParams& params,
                                         std::chrono::steady_clock::time_point deadline,
                                         const Cancellation& cancellation) override;

private:
    HostCall m_call;
};

} // namespace warren::agent
