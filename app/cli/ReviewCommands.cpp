#include "app/cli/ReviewCommands.h"

#include "app/control/ControlPlane.h"

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

void print(const RewindSummary& summary, const RewindRequest& request) {
    if (request.files) {
        std::cout << "files:\n";
        if (summary.lines.empty())
            std::cout << "  nothing to change\n";
        for (const auto& line : summary.lines)
            std::cout << "  " << line << "\n";
    }
    if (request.conversation)
        std::cout << "conversation: " << summary.conversation << "\n";
    if (request.files)
        std::cout << kRewindLimits << "\n";
}

} // namespace

int diffTask(ControlPlane& plane, const DiffCommand& command) {
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
    for (const auto& file : changes->files)
        std::cout << file.diff;
    return kOk;
}

int rewindTask(ControlPlane& plane, const RewindCommand& command) {
    RewindRequest request{command.toStep, command.paths, command.files, command.conversation};
    auto preview = plane.previewRewind(command.taskId, request);
    if (!preview)
        return failed(preview.error().message);
    std::cout << "rewind " << command.taskId << " to " << preview->target << ":\n";
    print(*preview, request);
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
    if (request.files)
        std::cout << "done: `warren rewind " << command.taskId << " --undo` takes the files back\n";
    if (request.conversation)
        std::cout << "`warren resume " << command.taskId << "` continues the task from step "
                  << *command.toStep << "\n";
    return kOk;
}

} // namespace warren::control
