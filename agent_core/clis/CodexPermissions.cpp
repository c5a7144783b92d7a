#include "agent_core/clis/CodexPermissions.h"

#include "agent_core/tools/FileWriteTools.h"
#include "common/JsonFields.h"
#include "common/ShellWords.h"

#include <algorithm>
#include <sstream>

namespace warren::agent {

using json_fields::memberString;
using nlohmann::json;

namespace {

// An update's unified diff ("@@ -1,3 +1,3 @@" then " ", "-", "+" lines) as the patch format's hunks.
void appendHunks(std::string& patch, const std::string& diff) {
    std::istringstream lines(diff);
    std::string line;
    bool any = false;
    bool inHunk = false;
    while (std::getline(lines, line)) {
        if (line.starts_with("@@")) {
            patch += "@@\n";
            inHunk = any = true;
        } else if (inHunk && !line.empty() && (line[0] == ' ' || line[0] == '-' || line[0] == '+')) {
            patch += line + "\n";
        } else {
            inHunk = false; // the diff's end ("\ No newline", Codex's "Moved to: ...")
        }
    }
    if (!any) // a move without a change of content: the format needs a hunk that changes a line
        patch += "@@\n-\n+\n";
}

} // namespace

std::optional<std::string> unwrapShellScript(const std::string& commandLine) {
    const auto words = shellWords(commandLine);
    if (!words || words->size() != 3)
        return std::nullopt;
    const std::string& shell = (*words)[0];
    const std::string name = shell.substr(shell.rfind('/') == std::string::npos ? 0 : shell.rfind('/') + 1);
    if ((name != "bash" && name != "sh" && name != "zsh") || ((*words)[1] != "-c" && (*words)[1] != "-lc"))
        return std::nullopt;
    return (*words)[2];
}

std::string codexChangesAsPatch(const json& changes) {
    std::string patch = "*** Begin Patch\n";
    for (const auto& change : changes.is_array() ? changes : json::array()) {
        if (!change.is_object())
            continue;
        const std::string path = workspaceRelative(memberString(change, "path"));
        const json kind = change.contains("kind") ? change["kind"] : json();
        // exec --json says the kind as a string, the app-server as {type, move_path}.
        const std::string type = kind.is_object()   ? memberString(kind, "type")
                                 : kind.is_string() ? kind.get<std::string>()
                                                    : "";
        const std::string diff = memberString(change, "diff");
        if (type == "add") {
            patch += "*** Add File: " + path + "\n";
            std::istringstream lines(diff);
            for (std::string line; std::getline(lines, line);)
                patch += "+" + line + "\n";
        } else if (type == "delete") {
            patch += "*** Delete File: " + path + "\n";
        } else {
            patch += "*** Update File: " + path + "\n";
            if (kind.is_object() && kind.contains("move_path") && kind["move_path"].is_string())
                patch += "*** Move to: " + workspaceRelative(kind["move_path"].get<std::string>()) + "\n";
            appendHunks(patch, diff);
        }
    }
    return patch + "*** End Patch\n";
}

WarrenCall codexWarrenCall(const CliPermissionAsk& ask) {
    if (ask.tool == kCodexCommand) {
        const std::string command = memberString(ask.input, "command");
        return {"shell", {{"command", unwrapShellScript(command).value_or(command)}}};
    }
    if (ask.tool == kCodexFileChange)
        return {
            "apply_patch",
            {{"input", codexChangesAsPatch(ask.input.contains("changes") ? ask.input["changes"] : json())}}};
    return {ask.tool, ask.input};
}

bool codexCallNeedsApproval(const std::string& codexTool, const std::vector<std::string>& approvalTools) {
    if (codexTool == kCodexCommand)
        return std::find(approvalTools.begin(), approvalTools.end(), "shell") != approvalTools.end();
    if (codexTool == kCodexFileChange)
        return std::any_of(approvalTools.begin(), approvalTools.end(),
                           [](const std::string& tool) { return isFileWriteTool(tool); });
    return false;
}

std::string codexPermissionAnswer(const CliPermissionAsk& ask, bool allowed) {
    // The request's id as it came (a number or a string): CodexAppServer keeps it as its JSON text.
    const json id = json::parse(ask.requestId, nullptr, false);
    const json line{{"id", id.is_discarded() ? json(ask.requestId) : id},
                    {"result", {{"decision", allowed ? "accept" : "decline"}}}};
    return line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace warren::agent
