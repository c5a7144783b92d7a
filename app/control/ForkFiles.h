#pragma once
// The disk work of a fork (ControlPlane::fork), done off the faces' thread: the snapshot before the step
// written into a workspace of the new task's own, the original's snapshots up to the step and the
// checkpoints kept before each made the new task's, and the agent's checkpoint to continue from. The
// original is only read (its snapshots, never its workspace). Until kept, what was made goes with the
// ForkFiles: a fork whose task could not be recorded, or whose plane closed before it was, leaves nothing.

#include "app/tasks/DataDir.h"
#include "common/Result.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace warren::control {

struct ForkOrigin {
    std::string taskId;
    std::string workspace;    // the original's
    std::string snapshotsDir; // its shadow repository
    std::uint64_t fromStep = 0;
};

class ForkFiles {
public:
    // id: the new task's; workspace: where its files go, a new or empty directory apart from the original's.
    static Result<std::shared_ptr<ForkFiles>> make(const ForkOrigin& origin, const DataDir& data,
                                                   const std::string& id, const std::filesystem::path& workspace);
    ~ForkFiles(); // removes what it made, unless kept
    ForkFiles(const ForkFiles&) = delete;
    ForkFiles& operator=(const ForkFiles&) = delete;

    void keep() { m_kept = true; } // the fork's task is recorded: the files are its own
    const std::filesystem::path& workspace() const { return m_workspace; }

    std::string from;                 // "before step 3"
    std::size_t files = 0;            // written into the workspace
    bool conversation = false;        // its agent continues from the checkpoint kept before the step
    std::vector<std::string> skipped; // what snapshots do not record: "node_modules/", "big.iso (large)"

private:
    ForkFiles(std::filesystem::path workspace, std::filesystem::path taskDir, bool madeWorkspace)
        : m_workspace(std::move(workspace)), m_taskDir(std::move(taskDir)), m_madeWorkspace(madeWorkspace) {}
    Status write(const ForkOrigin& origin, const DataDir& data, const std::string& id);

    std::filesystem::path m_workspace, m_taskDir;
    bool m_madeWorkspace = false; // else it was there, empty, and is emptied again
    bool m_kept = false;
};

} // namespace warren::control
