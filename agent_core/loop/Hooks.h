#pragma once
// Lifecycle hooks (DESIGN §4): on_task_start, on_step, on_task_complete, on_low_memory, on_error. Each can
// have a C++ callback (set by a program that embeds the framework) and a shell command (the settings of
// the same names), run in the workspace inside the sandbox. A hook that fires with either is one hook
// event; a failing command is reported in it and never stops the task.

#include "agent_core/config/AgentConfig.h"
#include "agent_core/loop/EventLog.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

namespace warren::agent {

namespace hook {
inline constexpr const char* kOnTaskStart = "on_task_start";
inline constexpr const char* kOnStep = "on_step";
inline constexpr const char* kOnTaskComplete = "on_task_complete";
inline constexpr const char* kOnLowMemory = "on_low_memory";
inline constexpr const char* kOnError = "on_error";
} // namespace hook

struct HookContext {
    std::string hook;   // one of hook::
    std::string taskId;
    std::uint64_t step = 0;
    std::string detail; // on_error: the error; on_task_complete: the exit reason; on_low_memory: the RSS
};

using HookCallback = std::function<void(const HookContext&)>;

class Hooks {
public:
    void setCallback(const std::string& hook, HookCallback callback);
    void setCommands(std::map<std::string, std::string> commands) { m_commands = std::move(commands); }

    // Runs the hook's callback and command, if any, and emits the hook event.
    void fire(const HookContext& context, const std::filesystem::path& workspace, EventLog& events) const;

private:
    std::map<std::string, HookCallback> m_callbacks;
    std::map<std::string, std::string> m_commands;
};

} // namespace warren::agent
