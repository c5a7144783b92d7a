#pragma once
// The scripted model: each call takes the next turn of a script (protocol/Script.h). A call whose last
// tool results say a call was interrupted (kInterruptedResult) is answered by retrying those calls, as a
// real model would, without consuming a turn: so a task killed and resumed any number of times follows
// the same script to the same end. A request without tools (compaction's handoff summary) takes the next
// turn only when it has no tool calls, and is refused otherwise without taking one.

#include "agent_core/llm/Llm.h"
#include "agent_core/protocol/Script.h"

#include <cstddef>

#include <mutex>

namespace warren::agent {

class ScriptedLlm : public Llm {
public:
    explicit ScriptedLlm(protocol::Script script);

    Result<protocol::LlmChatResult> chat(const protocol::LlmChatParams& params,
                                         std::chrono::steady_clock::time_point deadline,
                                         const Cancellation& cancellation) override;

    nlohmann::json saveState() const override;
    Status restoreState(const nlohmann::json& state) override;

    std::size_t position() const { return m_position; }

private:
    protocol::Script m_script;
    mutable std::mutex m_mutex; // sub-agents ask from their own threads: each call takes the next turn
    std::size_t m_position = 0; // the next turn
};

} // namespace warren::agent
