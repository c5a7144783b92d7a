#pragma once
// Claude Code's permission requests put to Warren's approvals (docs/AGENT.md "A CLI agent"). Claude Code
// runs with --permission-prompt-tool stdio: a tool call its rules do not allow becomes a control_request
// line on its stdout, which the supervisor answers with a control_response line on its stdin. Pure: which
// of Claude Code's tools are Warren's which tools, which are allowed without asking, and the lines of that
// exchange. Measured with Claude Code 2.1.197:
//   -> {"type":"control_request","request_id":R,"request":{"subtype":"can_use_tool","tool_name":"Bash",
//       "input":{...},"tool_use_id":"toolu_..."}}
//   <- {"type":"control_response","response":{"subtype":"success","request_id":R,
//       "response":{"behavior":"allow","updatedInput":{...}}}}   (or "behavior":"deny","message":...)

#include "agent_core/clis/CliStream.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::agent {

// Warren's tool that one of Claude Code's tools is (Bash: shell, Write: write_file, Edit: edit_file, ...);
// nullopt for a tool Warren has no counterpart of (WebFetch, an MCP server's tool, one added later).
std::optional<std::string> warrenToolOf(const std::string& claudeTool);

// A call of Claude Code's as Warren's approval rules read it (app/proxy/ApprovalRules.h): its Warren tool's
// name (or its own, without one) and its input with file_path or notebook_path also as path (relative to
// /workspace when inside it, as Warren's agent names files). So a rule allowing `git status` or a path glob
// decides a Claude Code call as it decides Warren's own agent's.
WarrenCall warrenCallOf(const std::string& claudeTool, const nlohmann::json& input);

// Whether a call of claudeTool waits for Warren's approval under approval_tools: never when the list is
// empty; otherwise when its Warren tool is listed, and always for a tool without one (what Warren cannot
// name, it does not let through unasked).
bool claudeCallNeedsApproval(const std::string& claudeTool, const std::vector<std::string>& approvalTools);

// Claude Code's --allowedTools under approval_tools: its tools that run without asking. The others reach
// the supervisor as permission requests.
std::string claudeAllowedTools(const std::vector<std::string>& approvalTools);

// A control_request line's can_use_tool ask; nullopt for any other request (or one without a request id).
std::optional<CliPermissionAsk> claudePermissionAskOf(const nlohmann::json& object);

// The control_response line (with its newline) that answers ask: allowed runs the call with its input
// unchanged; denied tells the model message.
std::string claudePermissionAnswer(const CliPermissionAsk& ask, bool allowed, const std::string& message);

// The control_response line (with its newline) that tells Claude Code a control request of id requestId is
// not served (any subtype but can_use_tool).
std::string claudeControlRefusal(const std::string& requestId, const std::string& subtype);

// The user message line (with its newline) that gives Claude Code its prompt on stdin
// (--input-format stream-json).
std::string claudeUserMessage(const std::string& text);

} // namespace warren::agent
