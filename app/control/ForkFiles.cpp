#include "app/control/ForkFiles.h"

#include "app/control/TaskFork.h"
#include "app/snapshots/ShadowRepo.h"
#include "app/snapshots/TaskReview.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace warren::control {

namespace fs = std::filesystem;

namespace {

// The agent's checkpoint at from, made task taskId's, at to.
Status copyCheckpoint(const fs::path& from, const fs::path& to, const std::string& taskId) {
    std::ifstream in(from, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto forked = checkpointForTask(text.str(), taskId);
    if (!forked)
        return forked.error();
    std::error_code error;
    fs::create_directories(to.parent_path(), error);
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    out << *forked;
    if (error || !out.flush())
        return makeError(ErrorCode::System, "cannot write the fork's checkpoint " + to.string());
    return Ok{};
}

// Whether path is `above` or below it, lexically (both canonical).
bool inside(const fs::path& path, const fs::path& above) {
    return std::mismatch(above.begin(), above.end(), path.begin(), path.end()).first == above.end();
}

} // namespace

Result<std::shared_ptr<ForkFiles>> ForkFiles::make(const ForkOrigin& origin, const DataDir& data,
                                                   const std::string& id, const fs::path& workspace) {
    std::error_code error;
    // Not inside the original's workspace (that would change it), nor around it.
    const fs::path resolved = fs::weakly_canonical(workspace, error);
    const fs::path theirs = fs::weakly_canonical(origin.workspace, error);
    if (inside(resolved, theirs) || inside(theirs, resolved))
        return makeError(ErrorCode::InvalidArgument, workspace.string() + " overlaps the workspace of task " +
                                                         origin.taskId + " (" + origin.workspace +
                                                         "); a fork's workspace is a directory of its own");
    if (fs::exists(workspace, error) && (!fs::is_directory(workspace, error) || !fs::is_empty(workspace, error)))
        return makeError(ErrorCode::InvalidArgument, workspace.string() + " is not empty; a fork's workspace is "
                                                                          "a new or empty directory");
    const bool madeWorkspace = !fs::exists(workspace, error);
    fs::create_directories(workspace, error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + workspace.string() + ": " + error.message());
    // From here on, a failure takes back what was made: the directory as it was, no task directory.
    std::shared_ptr<ForkFiles> files(new ForkFiles(workspace, data.taskDir(id), madeWorkspace));
    if (auto written = files->write(origin, data, id); !written)
        return written.error();
    return files;
}

Status ForkFiles::write(const ForkOrigin& origin, const DataDir& data, const std::string& id) {
    auto repo = snapshots::ShadowRepo::open(origin.snapshotsDir, origin.workspace);
    if (!repo)
        return repo.error();
    auto target = repo->beforeStep(origin.fromStep);
    if (!target)
        return target.error();
    if (target->meta.kind != snapshots::SnapshotMeta::Kind::Step)
        return makeError(ErrorCode::InvalidArgument,
                         "step " + std::to_string(origin.fromStep) + " is past the task's last step: a fork "
                                                                     "continues from before a step it ran");
    if (auto copied = repo->copyTo(*target, m_workspace); !copied)
        return copied.error();
    // Its past: the original's snapshots up to the step and the checkpoints kept before each, made its own.
    auto own = snapshots::ShadowRepo::open(data.snapshotsDir(id), m_workspace);
    if (!own)
        return own.error();
    if (auto adopted = own->adopt(*repo, origin.fromStep); !adopted)
        return adopted.error();
    for (std::uint64_t step = 1; step <= origin.fromStep; ++step) {
        if (!snapshots::conversationKept(origin.snapshotsDir, step))
            continue;
        if (auto copied = copyCheckpoint(snapshots::ShadowRepo::checkpointCopy(origin.snapshotsDir, step),
                                         snapshots::ShadowRepo::checkpointCopy(data.snapshotsDir(id), step), id);
            !copied)
            return copied.error();
    }
    std::error_code error;
    fs::create_directories(data.stateDir(id), error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + data.stateDir(id) + ": " + error.message());
    conversation = snapshots::conversationKept(origin.snapshotsDir, origin.fromStep);
    if (conversation)
        if (auto copied = copyCheckpoint(snapshots::ShadowRepo::checkpointCopy(origin.snapshotsDir, origin.fromStep),
                                         data.stateDir(id) + "/checkpoint.json", id);
            !copied)
            return copied.error();
    from = snapshots::describeSnapshot(target->meta);
    for (auto it = fs::recursive_directory_iterator(m_workspace, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error))
        if (!it->is_directory() || it->is_symlink())
            ++files;
    for (const auto& skippedDir : target->meta.skippedDirs)
        skipped.push_back(skippedDir + "/");
    for (const auto& file : target->meta.skippedLarge)
        skipped.push_back(file + " (large)");
    return Ok{};
}

ForkFiles::~ForkFiles() {
    if (m_kept)
        return;
    std::error_code ignored;
    if (m_madeWorkspace) {
        fs::remove_all(m_workspace, ignored);
    } else {
        for (const auto& entry : fs::directory_iterator(m_workspace, ignored))
            fs::remove_all(entry.path(), ignored);
    }
    fs::remove_all(m_taskDir, ignored);
}

} // namespace warren::control
