#pragma once
// How one run of a task ends, from what was seen while it ran: the agent's task_finished, the control
// plane's stop (the user's, a pause, the timeout, the token budget), the agent's refusal of the task, and
// finally how its sandbox exited. Pure: TaskRunner tells it what happens and asks it at the end. Also what
// the run left in /output, recorded as the task's artifacts.

#include "app/store/StoreTypes.h"
#include "sandbox/bwrap/Launcher.h"

#include <optional>
#include <string>
#include <vector>

namespace warren::control {

class Store;

class RunEnding {
public:
    enum class StopCause { None, User, Pause, Sleep, Timeout, Budget }; // Sleep: a pause that ends Sleeping
    struct Ending {
        TaskStatus status = TaskStatus::Failed;
        std::string reason, error;
        friend bool operator==(const Ending&, const Ending&) = default;
    };

    // The control plane stops the run (why: what the task's error says for a limit). The first cause stays.
    void stopped(StopCause cause, std::string why);
    StopCause stopCause() const { return m_stopCause; }
    // The agent's task_finished: its reason (finished, failed, cancelled, paused, waiting, guard) and summary.
    void agentFinished(std::string reason, std::string summary);
    // The agent answered task.start with an error.
    void agentRefused(std::string message);
    const std::string& summary() const { return m_summary; }
    // The agent said how its run ended, or refused it: its connection's end and its sandbox's exit follow.
    bool agentEnded() const { return m_finishedReason.has_value() || !m_startRefused.empty(); }

    // How the run ended once its sandbox exited (not a sandbox that could not start the agent): as the agent
    // said (unless the control plane stopped it for a limit), else as the control plane stopped it, else the
    // agent's refusal, else it died on its way. diagnostics: the tail of the agent's stderr, for the error.
    Ending after(const sandbox::SandboxExit& exit, const std::string& diagnostics, const std::string& taskId) const;

private:
    StopCause m_stopCause = StopCause::None;
    std::string m_stopWhy;
    std::optional<std::string> m_finishedReason;
    std::string m_summary;
    std::string m_startRefused;
};

// The task's /output files as its artifacts (path, size, SHA-256); regular files only. Returns what could
// not be stored.
std::vector<std::string> storeArtifacts(Store& store, const std::string& taskId, const std::string& outputDir);

} // namespace warren::control
