#pragma once
// Codex's stream (codex exec --json), one JSON object a line, turned into Warren's events. Pure, like
// ClaudeStream; tests feed it streams captured from the real CLI. What it reads:
//   {"type":"thread.started","thread_id":...}   the session (codex exec resume continues it)
//   {"type":"turn.started"}                      a model turn: step_started
//   {"type":"item.started"|"item.completed","item":{"id":...,"type":...}}  by the item's type:
//       agent_message -> model_response; reasoning -> its reasoning; todo_list -> plan_updated;
//       command_execution, file_change, mcp_tool_call, web_search -> tool_call when it starts (each in a
//       step of its own, so the workspace snapshot per step shows what it changed) and tool_result when it
//       completes; error -> error (not fatal: codex goes on)
//   {"type":"turn.completed","usage":{...}}      the end: the last agent message is the summary
//   {"type":"turn.failed","error":{"message":...}}, {"type":"error","message":...}
// Tool names are codex's item types (command_execution, file_change, ...).

#include "agent_core/clis/CliStream.h"

#include <set>
#include <string>
#include <string_view>

namespace warren::agent {

class CodexStream {
public:
    CliLine translate(std::string_view line);

private:
    void onItem(const nlohmann::json& item, bool completed, CliLine& out);
    void startCall(const std::string& id, const std::string& type, nlohmann::json arguments, CliLine& out);

    std::set<std::string> m_started; // tool items whose tool_call was emitted
    bool m_stepOpen = false;         // the current step has no tool call yet
    std::string m_lastMessage;       // the last agent_message: the run's summary
    std::string m_lastError;         // the last error: a failed turn's summary when it gives none
};

} // namespace warren::agent
