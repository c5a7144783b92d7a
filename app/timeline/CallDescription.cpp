#include "app/timeline/CallDescription.h"

#include "agent_core/protocol/McpToolName.h"
#include "agent_core/tools/PatchFormat.h"
#include "app/egress/NetworkQuestion.h"

#include <optional>
#include <string_view>
#include <utility>

namespace warren::timeline {

using nlohmann::json;

namespace {

std::string firstLine(const std::string& text) {
    const auto end = text.find('\n');
    return end == std::string::npos ? text : text.substr(0, end) + " \xE2\x80\xA6"; // …
}

std::string compactJson(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<std::string> field(const json& arguments, const char* name) {
    const auto it = arguments.find(name);
    if (it == arguments.end() || !it->is_string())
        return std::nullopt;
    return it->get<std::string>();
}

// The files a patch touches, as its title names them.
std::string patchTitle(const json& arguments) {
    const auto patch = agent::parsePatch(stringArgument(arguments, "input"));
    if (!patch)
        return "patch (not readable)";
    std::string out = "patch";
    for (std::size_t i = 0; i < patch->ops.size(); ++i) {
        if (i == 3) {
            out += " +" + std::to_string(patch->ops.size() - 3) + " more";
            break;
        }
        out += (i == 0 ? " " : ", ") + patch->ops[i].path;
    }
    return out;
}

// A path a CLI agent names (Claude Code gives absolute ones) as Warren names it: relative to the workspace.
std::string workspacePath(std::string path) {
    constexpr std::string_view kWorkspace = "/workspace/";
    return path.starts_with(kWorkspace) ? path.substr(kWorkspace.size()) : path;
}

} // namespace

std::optional<std::pair<std::string, json>> asWarrenCall(const std::string& tool, const json& arguments) {
    const auto command = field(arguments, "command");
    if ((tool == "Bash" || tool == "command_execution") && command)
        return std::pair<std::string, json>{"shell", {{"command", *command}}};
    const auto filePath = field(arguments, "file_path");
    if (!filePath)
        return std::nullopt;
    json mapped = {{"path", workspacePath(*filePath)}};
    if (tool == "Write") {
        if (const auto content = field(arguments, "content"))
            mapped["content"] = *content;
        return std::pair<std::string, json>{"write_file", mapped};
    }
    if (tool == "Edit" || tool == "MultiEdit") {
        for (const char* name : {"old_string", "new_string"}) // Edit's; MultiEdit holds a list of them
            if (const auto text = field(arguments, name))
                mapped[name] = *text;
        if (const auto all = arguments.find("replace_all"); all != arguments.end() && all->is_boolean())
            mapped["replace_all"] = *all;
        return std::pair<std::string, json>{"edit_file", mapped};
    }
    if (tool == "Read")
        return std::pair<std::string, json>{"read_file", mapped};
    return std::nullopt;
}

namespace {

// The CLIs' calls that have no Warren tool of their own; nullopt for any other.
std::optional<std::string> cliTitle(const std::string& tool, const json& arguments) {
    if (tool == "Grep" || tool == "Glob") {
        const std::string path = workspacePath(stringArgument(arguments, "path"));
        return (tool == "Grep" ? "search " : "find ") + stringArgument(arguments, "pattern") +
               (path.empty() ? "" : " in " + path);
    }
    if (tool == "WebFetch" && arguments.contains("url"))
        return "fetch " + stringArgument(arguments, "url");
    if ((tool == "WebSearch" || tool == "web_search") && arguments.contains("query"))
        return "search the web for " + stringArgument(arguments, "query");
    if (tool == "TodoWrite" && arguments.contains("todos") && arguments["todos"].is_array())
        return "update plan (" + std::to_string(arguments["todos"].size()) +
               (arguments["todos"].size() == 1 ? " step)" : " steps)");
    if (tool == "Task" && arguments.contains("description"))
        return "start agent: " + firstLine(stringArgument(arguments, "description"));
    if (tool == "file_change" && arguments.contains("changes") && arguments["changes"].is_array()) {
        std::string out;
        const auto& changes = arguments["changes"];
        for (std::size_t i = 0; i < changes.size(); ++i) {
            if (i == 3) {
                out += " +" + std::to_string(changes.size() - 3) + " more";
                break;
            }
            out += (i == 0 ? "" : ", ") + stringArgument(changes[i], "kind") + " " +
                   workspacePath(stringArgument(changes[i], "path"));
        }
        return out.empty() ? std::string("file change") : out;
    }
    if (tool == "mcp_tool_call" && arguments.contains("tool"))
        return stringArgument(arguments, "server") + "/" + stringArgument(arguments, "tool");
    return std::nullopt;
}

// An MCP server's tool (mcp__SERVER__TOOL, DESIGN §13; Claude Code names them so too): "SERVER: TOOL", the
// server as the user named it in .mcp.json.
std::optional<std::string> mcpTitle(const std::string& tool, const json& arguments) {
    const auto parts = protocol::splitMcpToolName(tool);
    if (!parts)
        return std::nullopt;
    const std::string args = arguments.empty() ? std::string() : " " + firstLine(compactJson(arguments));
    return parts->server + ": " + parts->tool + args;
}

std::string title(const std::string& tool, const json& arguments) {
    if (const auto mcp = mcpTitle(tool, arguments))
        return *mcp;
    if (const auto warren = asWarrenCall(tool, arguments))
        return title(warren->first, warren->second);
    if (const auto question = control::NetworkQuestion::fromApproval(tool, arguments))
        return "reach " + question->target();
    if (const auto cli = cliTitle(tool, arguments))
        return *cli;
    const std::string path = stringArgument(arguments, "path");
    if (tool == "shell")
        return "$ " + firstLine(stringArgument(arguments, "command"));
    if (tool == "write_file")
        return "write " + path;
    if (tool == "edit_file")
        return "edit " + path;
    if (tool == "read_file")
        return "read " + path;
    if (tool == "list_files")
        return "list " + (path.empty() ? std::string(".") : path);
    if (tool == "search")
        return "search " + stringArgument(arguments, "pattern") + (path.empty() ? "" : " in " + path);
    if (tool == "apply_patch")
        return patchTitle(arguments);
    if (tool == "update_plan" && arguments.contains("plan") && arguments["plan"].is_array())
        return "update plan (" + std::to_string(arguments["plan"].size()) +
               (arguments["plan"].size() == 1 ? " step)" : " steps)");
    if (tool == "skill") {
        const std::string file = stringArgument(arguments, "file");
        return "use skill " + stringArgument(arguments, "name") + (file.empty() ? "" : ": " + file);
    }
    if (tool == "memory_save")
        return "remember " + stringArgument(arguments, "key");
    if (tool == "memory_load")
        return "recall " + stringArgument(arguments, "key");
    if (tool == "memory_search")
        return "search memory for " + stringArgument(arguments, "query");
    if (tool == "spawn_agent" && arguments.contains("brief")) {
        const std::string role = stringArgument(arguments, "role");
        return "start " + (role.empty() ? std::string("worker") : role) + ": " +
               firstLine(stringArgument(arguments, "brief"));
    }
    if (tool == "wait_agents") {
        const auto agents = arguments.find("agents");
        if (agents == arguments.end() || !agents->is_array())
            return "wait for the agents";
        std::string names;
        for (const json& agent : *agents)
            names += (names.empty() ? "" : ", ") + (agent.is_string() ? agent.get<std::string>() : compactJson(agent));
        return "wait for " + names;
    }
    if (tool == "send_agent" && arguments.contains("agent"))
        return "tell " + stringArgument(arguments, "agent") + ": " + firstLine(stringArgument(arguments, "message"));
    if (tool == "close_agent" && arguments.contains("agent"))
        return "close " + stringArgument(arguments, "agent");
    return tool + " " + firstLine(compactJson(arguments));
}

std::string actedOn(const std::string& tool, const json& arguments) {
    if (const auto warren = asWarrenCall(tool, arguments))
        return actedOn(warren->first, warren->second);
    if (const auto question = control::NetworkQuestion::fromApproval(tool, arguments))
        return question->method + " " + question->target();
    const auto path = field(arguments, "path");
    if (tool == "shell")
        return field(arguments, "command").value_or(compactJson(arguments));
    if ((tool == "read_file" || tool == "edit_file") && path)
        return *path;
    if (tool == "write_file" && path) {
        const auto content = field(arguments, "content");
        if (!content)
            return *path;
        return *path + " (" + withThousands(content->size()) + (content->size() == 1 ? " byte)" : " bytes)");
    }
    if (tool == "search")
        if (const auto pattern = field(arguments, "pattern"))
            return *pattern + (path ? " in " + *path : "");
    if (tool == "apply_patch")
        if (const auto input = field(arguments, "input"))
            return *input; // the patch itself: what an approval is about
    if (tool == "list_files" && (path || arguments.empty()))
        return path.value_or(".");
    if (tool == "skill")
        if (const auto name = field(arguments, "name")) {
            const auto file = field(arguments, "file");
            return *name + (file ? ": " + *file : "");
        }
    return compactJson(arguments);
}

} // namespace

std::string stringArgument(const json& arguments, const char* name) {
    return field(arguments, name).value_or("");
}

CallDescription describeCall(const std::string& tool, const json& arguments) {
    return CallDescription{title(tool, arguments), actedOn(tool, arguments)};
}

std::string withThousands(std::uint64_t value) {
    const std::string digits = std::to_string(value);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace warren::timeline
