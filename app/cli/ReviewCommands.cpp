#include "app/cli/ReviewCommands.h"

#include "app/control/LocalControlPlane.h"
#include "app/snapshots/ShadowRepo.h"
#include "common/UniqueFd.h"

#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <iostream>
#include <string>
#include <sys/file.h>
#include <unistd.h>

namespace warren::control {

namespace fs = std::filesystem;
using snapshots::ShadowRepo;
using snapshots::Snapshot;
using snapshots::SnapshotMeta;

const char* const kRewindLimits =
    "A rewind puts back the files in the workspace. It cannot take back what commands did outside it: files "
    "elsewhere, network calls, databases, services started or stopped. What snapshots skip (ignored files, "
    "dependency and build directories, large files) is left as it is.";

namespace {

constexpr int kOk = 0, kFailed = 1, kUsage = 2;

int failed(const std::string& message) {
    std::cerr << "warren: " << message << "\n";
    return kFailed;
}

Result<ShadowRepo> openSnapshots(const DataDir& data, const TaskRecord& task) {
    const std::string dir = data.snapshotsDir(task.id);
    if (!ShadowRepo::exists(dir))
        return makeError(ErrorCode::NotFound, "task " + task.id +
                                                  " has no snapshots (it ran before this version of Warren, "
                                                  "or never reached its first step)");
    return ShadowRepo::open(dir, task.workspace);
}

std::string describe(const SnapshotMeta& meta) {
    switch (meta.kind) {
    case SnapshotMeta::Kind::Step:
        return "before step " + std::to_string(meta.step);
    case SnapshotMeta::Kind::End:
        return "after step " + std::to_string(meta.step - 1) + " (the end)";
    case SnapshotMeta::Kind::Undo:
        return "before a rewind";
    }
    return {};
}

void listSkipped(const SnapshotMeta& meta) {
    if (meta.skippedDirs.empty() && meta.skippedLarge.empty())
        return;
    std::cerr << "not recorded, left alone:";
    for (const auto& dir : meta.skippedDirs)
        std::cerr << " " << dir << "/";
    for (const auto& file : meta.skippedLarge)
        std::cerr << " " << file << " (large)";
    std::cerr << "\n";
}

// The checkpoint kept before the step replaces the agent's (atomically, owned as its directory is, so
// that the agent can replace it again); none kept: the task had no checkpoint yet and starts afresh.
Status putCheckpointBack(const fs::path& kept, const fs::path& checkpoint) {
    std::error_code error;
    if (!fs::exists(kept, error)) {
        fs::remove(checkpoint, error);
        if (error)
            return makeError(ErrorCode::System, "cannot remove " + checkpoint.string() + ": " + error.message());
        return Ok{};
    }
    const fs::path temporary = checkpoint.string() + ".rewind";
    fs::copy_file(kept, temporary, fs::copy_options::overwrite_existing, error);
    struct stat dir {};
    if (!error && ::stat(checkpoint.parent_path().c_str(), &dir) == 0)
        (void)::chown(temporary.c_str(), dir.st_uid, dir.st_gid);
    if (!error)
        fs::rename(temporary, checkpoint, error);
    if (error)
        return makeError(ErrorCode::System, "cannot put the checkpoint back into " + checkpoint.string() + ": " +
                                                error.message());
    return Ok{};
}

} // namespace

int diffTask(LocalControlPlane& plane, const TaskRecord& task, const DiffCommand& command) {
    const DataDir& data = plane.dataDir();
    auto repo = openSnapshots(data, task);
    if (!repo)
        return failed(repo.error().message);
    auto all = repo->list();
    if (!all)
        return failed(all.error().message);
    std::optional<Snapshot> from, to;
    for (const auto& snapshot : *all) {
        if (snapshot.meta.kind == SnapshotMeta::Kind::Undo)
            continue;
        if (!from && (!command.step || snapshot.meta.step == *command.step))
            from = snapshot;
        if (command.step ? snapshot.meta.step == *command.step + 1 : true)
            to = snapshot;
    }
    if (!from)
        return failed(repo->beforeStep(*command.step).error().message);
    if (!to || to->meta.step <= from->meta.step)
        return failed(command.step ? "step " + std::to_string(*command.step) +
                                         " has no snapshot after it (the task is still in it, or was killed "
                                         "during it)"
                                   : "task " + task.id + " has only the snapshot before its first step");
    auto diff = repo->diff(*from, *to);
    if (!diff)
        return failed(diff.error().message);
    std::cerr << "task " << task.id << ", " << task.workspace << ": from " << describe(from->meta) << " to "
              << describe(to->meta) << "\n";
    listSkipped(to->meta);
    std::cout << *diff;
    return kOk;
}

int rewindTask(LocalControlPlane& plane, const TaskRecord& task, const RewindCommand& command) {
    const DataDir& data = plane.dataDir();
    // The task's own lock: it cannot run while its workspace is put back, nor start meanwhile.
    UniqueFd lock(::open((data.taskDir(task.id) + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!lock.valid() || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
        return failed("task " + task.id + " is running; stop it first (warren cancel " + task.id + ")");
    auto repo = openSnapshots(data, task);
    if (!repo)
        return failed(repo.error().message);
    std::optional<Snapshot> target;
    if (command.toStep) {
        auto found = repo->beforeStep(*command.toStep);
        if (!found)
            return failed(found.error().message);
        target = std::move(*found);
    } else {
        auto all = repo->list();
        if (!all)
            return failed(all.error().message);
        for (const auto& snapshot : *all)
            if (snapshot.meta.kind == SnapshotMeta::Kind::Undo)
                target = snapshot;
        if (!target)
            return failed("task " + task.id + " was never rewound: there is nothing to undo");
    }
    if (auto interrupted = repo->interruptedRewind())
        std::cerr << "warren: a rewind (to " << *interrupted
                  << ") was interrupted; this one starts from the workspace as it was before that one\n";
    std::optional<snapshots::RewindPlan> plan;
    if (command.files) {
        auto previewed = repo->previewRewind(*target, command.paths);
        if (!previewed)
            return failed(previewed.error().message);
        plan = std::move(*previewed);
    }
    std::cout << "rewind " << task.id << " to " << describe(target->meta) << ":\n";
    if (plan) {
        std::cout << "files in " << task.workspace << ":\n";
        if (plan->empty())
            std::cout << "  nothing to change\n";
        for (const auto& line : snapshots::describePlan(*plan))
            std::cout << "  " << line << "\n";
        std::cout << kRewindLimits << "\n";
    }
    const fs::path checkpoint = fs::path(data.stateDir(task.id)) / "checkpoint.json";
    const fs::path kept =
        command.conversation ? ShadowRepo::checkpointCopy(repo->dir(), *command.toStep) : fs::path();
    if (command.conversation)
        std::cout << "conversation: the agent's checkpoint "
                  << (fs::exists(kept) ? "as it was before step " + std::to_string(*command.toStep)
                                       : std::string("removed: the task starts again from its prompt"))
                  << "; `warren resume " << task.id << "` continues from there\n";
    if (command.check || (plan && plan->empty() && !command.conversation))
        return kOk;
    if (!command.yes) {
        if (!::isatty(STDIN_FILENO)) {
            std::cerr << "warren rewind: add --yes to change the workspace (stdin is not a terminal to ask on)\n";
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
    if (plan) {
        auto done = repo->rewind(*target, command.paths);
        if (!done)
            return failed(done.error().message + "\nRun the same command again to finish it, or `warren rewind " +
                          task.id + " --undo` to go back.");
        std::cout << "files: " << done->plan.files.size() << " changed; `warren rewind " << task.id
                  << " --undo` takes it back\n";
    }
    if (command.conversation) {
        if (auto put = putCheckpointBack(kept, checkpoint); !put)
            return failed(put.error().message);
        if (auto marked = plane.markRewound(task.id); !marked)
            return failed(marked.error().message);
        std::cout << "conversation: rewound; `warren resume " << task.id << "` continues from step "
                  << *command.toStep << "\n";
    }
    return kOk;
}

} // namespace warren::control
