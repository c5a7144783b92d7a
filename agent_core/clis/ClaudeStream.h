#pragma once
// Claude Code's stream (claude -p --output-format stream-json --verbose), one JSON object a line, turned
// into Warren's events. Pure: lines in, events out, no I/O; tests feed it streams captured from the real
// CLI (tests/fixtures/cli_streams). What it reads:
//   {"type":"system","subtype":"init","session_id":...}   the session (resume continues it)
//   {"type":"assistant","message":{"id":...,"content":[...]}}  one content block a line; a new message id
//       is a new model turn (step_started); text -> model_response, thinking -> its reasoning,
//       tool_use -> tool_call (arguments = its input, tool = Claude Code's name: Bash, Edit, Write, ...)
//   {"type":"user","message":{"content":[{"type":"tool_result",...}]}}  -> tool_result, output bounded
//   {"type":"result","is_error":...,"result":...,"usage":{...}}  the end, its summary and usage
//   {"type":"control_request","request":{"subtype":"can_use_tool",...}}  a permission ask
//       (ClaudePermissions); any other control request is answered that it is not served
// Anything else is a debug log; a line that is not JSON, or not what these say, is an error event (not
// fatal): the CLI's output is the sandbox's, not to be trusted, and never stops the supervisor.

#include "agent_core/clis/CliStream.h"

#include <map>
#include <string>
#include <string_view>

namespace warren::agent {

class ClaudeStream {
public:
    CliLine translate(std::string_view line);

private:
    void onAssistant(const nlohmann::json& message, CliLine& out);
    void onUser(const nlohmann::json& message, CliLine& out);
    void onResult(const nlohmann::json& object, CliLine& out);

    std::string m_messageId;                    // the model turn the last assistant line belonged to
    std::map<std::string, std::string> m_tools; // tool_use id -> tool name, for the results
};

} // namespace warren::agent
