#pragma once
// Codex run as `codex app-server` (JSON-RPC 2.0 without its "jsonrpc" member, one object a line on stdin and
// stdout), for a task whose settings ask for approvals: `codex exec` cannot ask, the app-server's approval
// policy "untrusted" asks for every command and file change (CodexPermissions.h). Pure, like CodexStream,
// which it feeds: each notification is read as the line of `codex exec --json` that says the same, so the
// events are the same in both modes. Measured with Codex 0.171.0:
//   <- initialize, initialized, thread/start {cwd, approvalPolicy, sandbox} or thread/resume {threadId,
//      excludeTurns, ...}
//      (codexAppServerOpening: the CLI's first input)
//   -> the thread/start or thread/resume result {thread: {id}}: the session; turn/start {threadId, input} is
//      the reply
//   -> turn/started, item/started, item/completed ({type: commandExecution, fileChange, agentMessage,
//      reasoning, mcpToolCall, webSearch, ...}, camelCase), turn/plan/updated, thread/tokenUsage/updated,
//      error {error: {message}, willRetry}, turn/completed {turn: {status, error}}: the run's end
//   -> item/commandExecution/requestApproval, item/fileChange/requestApproval: a permission ask; any other
//      request of Codex's is answered with an error, so that it does not wait
// A response that is an error fails the run; other notifications are not events.

#include "agent_core/clis/CliStream.h"
#include "agent_core/clis/CodexStream.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace warren::agent {

// The lines that start the server and its thread (each with its newline): a new thread in workspace, or
// session's.
std::string codexAppServerOpening(const std::filesystem::path& workspace,
                                  const std::optional<std::string>& session);

class CodexAppServer {
public:
    // prompt: the turn's input, sent once the thread is there.
    explicit CodexAppServer(std::string prompt) : m_prompt(std::move(prompt)) {}
    CliLine translate(std::string_view line);

private:
    CliLine onResponse(const nlohmann::json& object);
    CliLine onRequest(const nlohmann::json& object);
    CliLine onNotification(const std::string& method, const nlohmann::json& params);
    CliLine asExec(const nlohmann::json& line) { return m_stream.translate(line.dump()); }

    std::string m_prompt;
    CodexStream m_stream;
    bool m_turnSent = false;
    // The thread's token total so far (thread/tokenUsage/updated), and what it was when the turn started.
    nlohmann::json m_usage = nlohmann::json::object();
    nlohmann::json m_turnStart = nlohmann::json::object();
    std::map<std::string, nlohmann::json> m_changes; // a started file change item's changes, by item id
};

} // namespace warren::agent
