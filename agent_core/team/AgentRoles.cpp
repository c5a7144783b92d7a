#include "agent_core/team/AgentRoles.h"

#include "agent_core/loop/BuiltInTools.h"

#include <algorithm>

namespace warren::agent {

namespace {

bool isMemoryTool(const std::string& name) {
    return name.starts_with("memory_");
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

} // namespace

const std::vector<std::string>& roleNames() {
    static const std::vector<std::string> names = {"worker", "explorer"};
    return names;
}

Result<std::vector<std::string>> toolsForRole(std::string_view role, const std::vector<std::string>& starterTools) {
    std::vector<std::string> tools;
    if (role == "worker") {
        std::copy_if(starterTools.begin(), starterTools.end(), std::back_inserter(tools),
                     [](const std::string& name) { return !isMemoryTool(name); });
    } else if (role == "explorer") {
        std::copy_if(starterTools.begin(), starterTools.end(), std::back_inserter(tools), [](const std::string& name) {
            return name == "finish" || (!isMemoryTool(name) && isReadOnlyTool(name));
        });
    } else {
        return makeError(ErrorCode::InvalidArgument,
                         "unknown role \"" + std::string(role) + "\" (known: " + joined(roleNames()) + ")");
    }
    if (std::find(tools.begin(), tools.end(), "finish") == tools.end())
        tools.push_back("finish");
    return tools;
}

std::string subAgentBrief(const std::string& agentId, std::string_view role, const std::string& brief) {
    std::string text = "You are " + agentId + ", a sub-agent (role: " + std::string(role) +
                       ") started by another agent of this task to do one piece of its work. You share the "
                       "workspace and the sandbox with the other agents of the task, who may be working at the "
                       "same time: change only what your brief asks for. A file another agent is writing is "
                       "refused to you with a conflict naming that agent; leave it to them or say so in your "
                       "summary. When you are done, call finish: your summary is all the agent that started you "
                       "reads, so say what you did, what you found and what is left.";
    if (role == "explorer")
        text += " You are read-only: look, do not change anything.";
    return text + "\n\nYour brief:\n" + brief;
}

std::string subAgentCallId(const std::string& agentId, std::uint64_t modelCall, std::size_t index,
                           const std::string& modelId) {
    constexpr std::size_t kLongestId = 40; // OpenAI's limit on a tool call's id
    std::string id = agentId + "_" + modelId;
    if (modelId.empty() || id.size() > kLongestId)
        id = agentId + "_" + std::to_string(modelCall) + "_" + std::to_string(index);
    return id;
}

} // namespace warren::agent
