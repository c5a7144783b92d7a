#pragma once
// The tools a task may call: the enabled subset of DESIGN §4's tools (the tools setting), each made when
// the task starts or, with lazy_tools, on its first call. The model is told about the enabled ones only;
// a call to any other is answered with the list of those it may use.

#include "agent_core/tools/Tool.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace warren::agent {

// Stands in for a tool that cannot work in this task (the memory tools without a memory store): every
// call fails with the reason, so the model learns it once and moves on.
class UnavailableTool : public Tool {
public:
    explicit UnavailableTool(std::string reason) : m_reason(std::move(reason)) {}
    ToolOutcome run(const nlohmann::json&, const ToolEnv&) override { return failure(m_reason); }

private:
    std::string m_reason;
};

class ToolRegistry {
public:
    // entries: every tool the agent has; enabled: the names the task may call ("finish" is the loop's own
    // and needs no entry).
    ToolRegistry(std::vector<ToolEntry> entries, const std::vector<std::string>& enabled, bool lazy);

    // What the model is told, in the order of the entries.
    std::vector<protocol::ToolSpec> specs() const;

    // The tool for a call, made now if it was not yet; null with why in unavailable when the task may not
    // call it.
    Tool* find(const std::string& name, std::string& unavailable);

    // Names of the tools made so far, sorted (the resource report shows what lazy loading saved).
    std::vector<std::string> loaded() const;

    // The tools of those names (an MCP server's, whose list changed) replaced by entries, enabled, after
    // the others. Not while a call runs: the tools replaced are gone.
    void replace(const std::vector<std::string>& names, std::vector<ToolEntry> entries);

private:
    struct Slot {
        ToolEntry entry;
        std::unique_ptr<Tool> tool;
    };
    void add(ToolEntry entry);
    std::string enabledList() const;

    std::vector<Slot> m_slots;
    bool m_lazy = false;
};

} // namespace warren::agent
