#include "app/cli/ReviewCommands.h"

#include "app/control/LocalControlPlane.h"

#include <iostream>
#include <string>
#include <unistd.h>

namespace warren::control {

namespace {

constexpr int kOk = 0, kFailed = 1, kUsage = 2;

int failed(const std::string& message) {
    std::cerr << "warren: " << message << "\n";
    return kFailed;
}

void print(const RewindSummary& summary) {
    if (summary.files) {
        std::cout << "files:\n";
        if (summary.lines.empty())
            std::cout << "  nothing to change\n";
        for (const auto& line : summary.lines)
            std::cout << "  " << line << "\n";
    }
    if (!summary.conversation.empty())
        std::cout << "conversation: " << summary.conversation << "\n";
    if (summary.files)
        std::cout << kRewindLimits << "\n";
}

// --fork: nothing of the task changes, so nothing to ask; what the new task holds is said after.
int forkTask(LocalControlPlane& plane, const RewindCommand& command) {
    auto fork = plane.fork(command.taskId, ForkRequest{*command.toStep, command.workspace});
    if (!fork)
        return failed(fork.error().message);
    std::cerr << "forked " << command.taskId << " from " << fork->from << " into task " << fork->task.id
              << ": " << fork->files << " files in " << fork->task.workspace << "; " << fork->conversation
              << "; " << command.taskId << " and its workspace are as they were\n";
    if (!fork->skipped.empty()) {
        std::cerr << "not recorded by the snapshots, so not in the fork:";
        for (const auto& skipped : fork->skipped)
            std::cerr << " " << skipped;
        std::cerr << "\n";
    }
    std::cerr << "`warren resume " << fork->task.id << "` runs it\n";
    std::cout << fork->task.id << "\n"; // alone on stdout, for scripts
    return kOk;
}

} // namespace

int diffTask(LocalControlPlane& plane, const DiffCommand& command) {
    auto changes = plane.taskChanges(command.taskId, command.step);
    if (!changes)
        return failed(changes.error().message);
    std::cerr << "task " << command.taskId << ": from " << changes->from << " to " << changes->to << ", "
              << changes->files.size() << " files changed\n";
    if (!changes->skipped.empty()) {
        std::cerr << "not recorded, left alone:";
        for (const auto& skipped : changes->skipped)
            std::cerr << " " << skipped;
        std::cerr << "\n";
    }
    std::string emptyDirs; // git's diff shows no directory: said beside it
    for (const auto& file : changes->files)
        if (!file.path.empty() && file.path.back() == '/')
            emptyDirs += std::string(" ") + (file.change == "added" ? "+" : "-") + file.path;
    if (!emptyDirs.empty())
        std::cerr << "empty directories made (+) or removed (-):" << emptyDirs << "\n";
    for (const auto& file : changes->files)
        std::cout << file.diff;
    return kOk;
}

int rewindTask(LocalControlPlane& plane, const RewindCommand& command) {
    if (command.fork)
        return forkTask(plane, command);
    RewindRequest request{command.toStep, command.paths, command.files, command.conversation};
    auto preview = plane.previewRewind(command.taskId, request);
    if (!preview)
        return failed(preview.error().message);
    std::cout << "rewind " << command.taskId << " to " << preview->target << ":\n";
    print(*preview);
    if (command.check || preview->changesNothing())
        return kOk;
    if (!command.yes) {
        if (!::isatty(STDIN_FILENO)) {
            std::cerr << "warren rewind: add --yes to go ahead (stdin is not a terminal to ask on)\n";
            return kUsage;
        }
        std::cout << "Go ahead? [y/N] " << std::flush;
        std::string answer;
        std::getline(std::cin, answer);
        if (answer != "y" && answer != "Y" && answer != "yes") {
            std::cout << "nothing changed\n";
            return kOk;
        }
    }
    auto done = plane.rewind(command.taskId, request);
    if (!done)
        return failed(done.error().message);
    std::cout << "done: `warren rewind " << command.taskId << " --undo` takes "
              << (done->files && !done->conversation.empty() ? "the files and the conversation"
                  : done->files                              ? "the files"
                                                             : "the conversation")
              << " back\n";
    if (!done->conversation.empty() && command.toStep)
        std::cout << "`warren resume " << command.taskId << "` continues the task from step "
                  << *command.toStep << "\n";
    return kOk;
}

} // namespace warren::control
