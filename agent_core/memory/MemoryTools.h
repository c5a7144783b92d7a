#pragma once
// The memory tools of DESIGN §4 on an AgentMemory:
//   memory_save {key, value, namespace?}   creates or replaces; says when the write is buffered
//   memory_load {key, namespace?}          the value; a missing key is not a failure: ok with
//                                          "no memory under key \"k\" in namespace \"default\"", because
//                                          looking before saving is normal and not an error to react to
//   memory_search {query, limit?}          one JSON line {"namespace","key","value"} per hit, best first;
//                                          limit 1..100, default 10
// namespace defaults to "default". Arguments are strict: an unknown one, a wrong type or a bad value is a
// failed outcome naming it, and so is an error of the store (with its message); nothing throws.

#include "agent_core/memory/AgentMemory.h"
#include "agent_core/tools/Tool.h"

namespace warren::agent {

inline constexpr std::uint64_t kDefaultMemorySearchLimit = 10;
inline constexpr std::uint64_t kMaxMemorySearchLimit = 100;

class MemorySaveTool : public Tool {
public:
    explicit MemorySaveTool(AgentMemory& memory) : m_memory(memory) {}
    static protocol::ToolSpec spec();
    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;

private:
    AgentMemory& m_memory;
};

class MemoryLoadTool : public Tool {
public:
    explicit MemoryLoadTool(AgentMemory& memory) : m_memory(memory) {}
    static protocol::ToolSpec spec();
    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
    bool readOnly() const override { return true; }

private:
    AgentMemory& m_memory;
};

class MemorySearchTool : public Tool {
public:
    explicit MemorySearchTool(AgentMemory& memory) : m_memory(memory) {}
    static protocol::ToolSpec spec();
    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
    bool readOnly() const override { return true; }

private:
    AgentMemory& m_memory;
};

} // namespace warren::agent
