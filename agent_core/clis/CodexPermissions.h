#pragma once
// Codex's approval requests put to Warren's approvals (docs/AGENT.md "A CLI agent"). A task whose settings
// ask for approvals runs `codex app-server` (CodexAppServer.h) with the approval policy "untrusted": each
// command and each file change becomes a JSON-RPC request on its stdout, which the supervisor answers on its
// stdin. Pure: which of Codex's calls are Warren's which tools, whether one waits for the user, and the
// answer's line. Measured with Codex 0.171.0:
//   -> {"method":"item/commandExecution/requestApproval","id":0,"params":{"itemId":"call_0",
//       "command":"/bin/bash -lc 'touch ran.txt'",...}}
//   -> {"method":"item/fileChange/requestApproval","id":1,"params":{"itemId":"call_1",...}}  (the changes
//       are the item's, from its item/started)
//   <- {"id":0,"result":{"decision":"accept"}}   (or "decline")

#include "agent_core/clis/CliStream.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::agent {

// Codex's tool names (its items' types, as the tool_call events carry them).
inline constexpr const char* kCodexCommand = "command_execution";
inline constexpr const char* kCodexFileChange = "file_change";

// A call of Codex's as Warren's approval rules read it:
// - a command is shell, its command the script Codex wraps in `bash -lc '...'` (so "commands starting with
//   git" and a deny rule read what the model wrote);
// - a file change is apply_patch, its input a patch in Warren's (and Codex's) format naming every path it
//   adds, deletes, updates or moves to, relative to /workspace when inside it (so a path rule decides each);
// - anything else keeps its own name and input.
WarrenCall codexWarrenCall(const CliPermissionAsk& ask);

// Whether a call waits for Warren's approval under approval_tools: a command when shell is listed, a file
// change when any tool that writes files is (apply_patch, write_file, edit_file). What Codex asks about and
// Warren does not gate is allowed at once.
bool codexCallNeedsApproval(const std::string& codexTool, const std::vector<std::string>& approvalTools);

// The answer line (with its newline) to the request ask came from.
std::string codexPermissionAnswer(const CliPermissionAsk& ask, bool allowed);

// SCRIPT of a `SHELL -c SCRIPT` or `SHELL -lc SCRIPT` command line (bash, sh, zsh; its words as a shell reads
// them: common/ShellWords.h), as Codex shows the argv it runs. nullopt for any other command line.
std::optional<std::string> unwrapShellScript(const std::string& commandLine);

// Codex's changes of one file change item ([{path, kind: {type, move_path}, diff}]) as a patch
// (PatchFormat.h): every path, with the update diffs' hunks.
std::string codexChangesAsPatch(const nlohmann::json& changes);

} // namespace warren::agent
