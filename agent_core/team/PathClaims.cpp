#include "agent_core/team/PathClaims.h"

#include "agent_core/tools/PatchFormat.h"

namespace warren::agent {

std::optional<std::string> PathClaims::claim(const std::string& agent, const std::string& path) {
    std::lock_guard lock(m_mutex);
    const auto [it, inserted] = m_holder.try_emplace(path, agent);
    if (inserted || it->second == agent)
        return std::nullopt;
    return it->second;
}

void PathClaims::release(const std::string& agent, const std::string& path) {
    std::lock_guard lock(m_mutex);
    if (const auto it = m_holder.find(path); it != m_holder.end() && it->second == agent)
        m_holder.erase(it);
}

void PathClaims::releaseAll(const std::string& agent) {
    std::lock_guard lock(m_mutex);
    std::erase_if(m_holder, [&](const auto& entry) { return entry.second == agent; });
}

std::vector<std::string> PathClaims::heldBy(const std::string& agent) const {
    std::lock_guard lock(m_mutex);
    std::vector<std::string> paths;
    for (const auto& [path, holder] : m_holder)
        if (holder == agent)
            paths.push_back(path);
    return paths;
}

std::vector<std::string> pathsWrittenBy(const protocol::ToolCall& call) {
    const bool patch = call.name == "apply_patch";
    if (call.name != "write_file" && call.name != "edit_file" && !patch)
        return {};
    const auto argument = call.arguments.find(patch ? "input" : "path");
    if (!call.arguments.is_object() || argument == call.arguments.end() || !argument->is_string())
        return {};
    if (!patch)
        return {argument->get<std::string>()};
    auto parsed = parsePatch(argument->get<std::string>());
    if (!parsed)
        return {};
    std::vector<std::string> paths;
    for (const auto& op : parsed->ops) {
        paths.push_back(op.path);
        if (!op.moveTo.empty())
            paths.push_back(op.moveTo);
    }
    return paths;
}

} // namespace warren::agent
