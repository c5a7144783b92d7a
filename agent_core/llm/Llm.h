#pragma once
// The model, behind one interface: HostLlm asks the control plane (which holds the keys) with llm.chat;
// ScriptedLlm serves turns from a script file (offline demo, tests, benchmarks).

#include "agent_core/protocol/Methods.h"
#include "agent_core/tools/Cancellation.h"
#include "common/Result.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <string_view>

namespace warren::agent {

// The start of a tool result that tells the model its call was cut short by a kill of the agent and was
// not run again: its effects, if any, are unknown. A real model decides what to do; the scripted model
// retries the call.
inline constexpr std::string_view kInterruptedResult = "[interrupted]";

class Llm {
public:
    virtual ~Llm() = default;

    // One model call. Errors say what failed and what to do; a stop request or the deadline ends the wait.
    virtual Result<protocol::LlmChatResult> chat(const protocol::LlmChatParams& params,
                                                 std::chrono::steady_clock::time_point deadline,
                                                 const Cancellation& cancellation) = 0;

    // State that must survive a kill (the script position), kept in the checkpoint.
    virtual nlohmann::json saveState() const { return nullptr; }
    virtual Status restoreState(const nlohmann::json& /*state*/) { return Ok{}; }
};

} // namespace warren::agent
