#include "app/tasks/RunEnding.h"

#include "app/store/Store.h"

#include <QCryptographicHash>
#include <QFile>
#include <filesystem>

namespace warren::control {

namespace fs = std::filesystem;

namespace {

TaskStatus statusForFinishReason(const std::string& reason) {
    if (reason == "finished")
        return TaskStatus::Succeeded;
    if (reason == "cancelled")
        return TaskStatus::Cancelled;
    if (reason == "paused")
        return TaskStatus::Paused;
    if (reason == "waiting")
        return TaskStatus::Waiting;
    return TaskStatus::Failed; // failed, guard
}

} // namespace

void RunEnding::stopped(StopCause cause, std::string why) {
    if (m_stopCause != StopCause::None)
        return;
    m_stopCause = cause;
    m_stopWhy = std::move(why);
}

void RunEnding::agentFinished(std::string reason, std::string summary) {
    m_finishedReason = std::move(reason);
    m_summary = std::move(summary);
}

void RunEnding::agentRefused(std::string message) { m_startRefused = std::move(message); }

RunEnding::Ending RunEnding::after(const sandbox::SandboxExit& exit, const std::string& diagnostics,
                                   const std::string& taskId) const {
    const bool limit = m_stopCause == StopCause::Timeout || m_stopCause == StopCause::Budget;
    if (m_finishedReason) {
        TaskStatus status = statusForFinishReason(*m_finishedReason);
        std::string error;
        if (limit) {
            status = TaskStatus::Failed;
            error = m_stopWhy;
        } else if (status == TaskStatus::Failed) {
            error = m_summary;
        }
        const std::string reason = m_stopCause == StopCause::Timeout  ? "timeout"
                                   : m_stopCause == StopCause::Budget ? "budget"
                                                                      : *m_finishedReason;
        // Put to sleep, the agent paused as asked: the task sleeps (it ended otherwise: as it says).
        if (m_stopCause == StopCause::Sleep && status == TaskStatus::Paused)
            return {TaskStatus::Sleeping, "sleeping", ""};
        return {status, reason, error};
    }
    switch (m_stopCause) {
    case StopCause::User:
        return {TaskStatus::Cancelled, "cancelled", ""};
    case StopCause::Pause:
        return {TaskStatus::Paused, "paused", ""};
    case StopCause::Sleep:
        break; // the agent did not say it paused: as the sandbox's exit says
    case StopCause::Timeout:
        return {TaskStatus::Failed, "timeout", m_stopWhy};
    case StopCause::Budget:
        return {TaskStatus::Failed, "budget", m_stopWhy};
    case StopCause::None:
        break;
    }
    if (!m_startRefused.empty())
        return {TaskStatus::Failed, "refused", "the agent refused the task: " + m_startRefused + diagnostics};
    const std::string how = exit.reason == sandbox::SandboxExit::Reason::Signaled
                                ? "was killed by signal " + std::to_string(exit.exitCode - 128)
                                : "exited with status " + std::to_string(exit.exitCode);
    return {TaskStatus::Interrupted, "interrupted",
            "the agent " + how + " without finishing the task" + diagnostics + "\n`warren resume " + taskId +
                "` continues from its last checkpoint."};
}

std::vector<std::string> storeArtifacts(Store& store, const std::string& taskId, const std::string& outputDir) {
    std::vector<std::string> problems;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(outputDir, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (!it->is_regular_file(error) || it->is_symlink(error))
            continue;
        QFile file(QString::fromStdString(it->path().string()));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        QCryptographicHash hash(QCryptographicHash::Sha256);
        hash.addData(&file);
        ArtifactRecord artifact{taskId, fs::relative(it->path(), outputDir).string(),
                                static_cast<std::uint64_t>(file.size()), hash.result().toHex().toStdString()};
        if (auto stored = store.putArtifact(artifact); !stored)
            problems.push_back(stored.error().message);
    }
    return problems;
}

} // namespace warren::control
