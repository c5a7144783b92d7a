#include "agent_core/loop/Hooks.h"

#include "agent_core/process/ProcessRunner.h"

#include <chrono>
#include <unistd.h>

namespace warren::agent {

namespace {
// A hook is a notification, not a task of its own: it gets a short time and a short output.
constexpr std::chrono::seconds kHookTimeout{30};
constexpr std::size_t kHookOutputBytes = 4096;

std::vector<std::string> inheritedEnvironment() {
    std::vector<std::string> environment;
    for (char** entry = environ; entry && *entry; ++entry)
        environment.emplace_back(*entry);
    return environment;
}
} // namespace

void Hooks::setCallback(const std::string& hook, HookCallback callback) {
    m_callbacks[hook] = std::move(callback);
}

void Hooks::fire(const HookContext& context, const std::filesystem::path& workspace, EventLog& events) const {
    const auto callback = m_callbacks.find(context.hook);
    const auto command = m_commands.find(context.hook);
    if (callback == m_callbacks.end() && command == m_commands.end())
        return;
    if (callback != m_callbacks.end() && callback->second)
        callback->second(context);

    protocol::HookData data;
    data.name = context.hook;
    data.detail = context.detail;
    if (command != m_commands.end()) {
        ProcessSpec spec;
        spec.argv = {"/bin/sh", "-c", command->second};
        spec.workdir = workspace;
        spec.environment = inheritedEnvironment();
        spec.environment.push_back("WARREN_HOOK=" + context.hook);
        spec.environment.push_back("WARREN_TASK_ID=" + context.taskId);
        spec.environment.push_back("WARREN_STEP=" + std::to_string(context.step));
        spec.environment.push_back("WARREN_HOOK_DETAIL=" + context.detail);
        spec.deadline = std::chrono::steady_clock::now() + kHookTimeout;
        spec.capBytes = kHookOutputBytes;
        data.command = command->second;
        auto result = runProcess(spec);
        if (result) {
            data.exitCode = result->exitCode;
            data.output = result->output;
        } else {
            data.error = result.error().message;
        }
    }
    events.emit(data);
}

} // namespace warren::agent
