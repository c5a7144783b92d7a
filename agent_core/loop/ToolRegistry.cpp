#include "agent_core/loop/ToolRegistry.h"

#include <algorithm>

namespace warren::agent {

ToolRegistry::ToolRegistry(std::vector<ToolEntry> entries, const std::vector<std::string>& enabled, bool lazy)
    : m_lazy(lazy) {
    for (auto& entry : entries)
        if (std::find(enabled.begin(), enabled.end(), entry.spec.name) != enabled.end())
            add(std::move(entry));
}

void ToolRegistry::add(ToolEntry entry) {
    Slot slot{std::move(entry), nullptr};
    if (!m_lazy)
        slot.tool = slot.entry.make();
    m_slots.push_back(std::move(slot));
}

void ToolRegistry::replace(const std::vector<std::string>& names, std::vector<ToolEntry> entries) {
    std::erase_if(m_slots, [&](const Slot& slot) {
        return std::find(names.begin(), names.end(), slot.entry.spec.name) != names.end();
    });
    for (auto& entry : entries)
        add(std::move(entry));
}

std::string ToolRegistry::enabledList() const {
    std::string list;
    for (const auto& slot : m_slots)
        list += slot.entry.spec.name + ", ";
    return list + "finish";
}

std::vector<protocol::ToolSpec> ToolRegistry::specs() const {
    std::vector<protocol::ToolSpec> specs;
    for (const auto& slot : m_slots)
        specs.push_back(slot.entry.spec);
    return specs;
}

Tool* ToolRegistry::find(const std::string& name, std::string& unavailable) {
    for (auto& slot : m_slots) {
        if (slot.entry.spec.name != name)
            continue;
        if (!slot.tool)
            slot.tool = slot.entry.make();
        return slot.tool.get();
    }
    unavailable = "there is no tool \"" + name + "\" in this task; the tools are: " + enabledList();
    return nullptr;
}

std::vector<std::string> ToolRegistry::loaded() const {
    std::vector<std::string> names;
    for (const auto& slot : m_slots)
        if (slot.tool)
            names.push_back(slot.entry.spec.name);
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace warren::agent
