#pragma once
// A task's snapshots: a shadow git repository in the task's own directory whose work tree is the task's
// workspace (`git --git-dir=SHADOW --work-tree=WORKSPACE`), kept by the control plane outside the sandbox,
// so that what a step changed through the shell is recorded as well as what its edit tools did.
//
// Isolation from the user's own repository: its .git is never named to git, so git neither reads its index
// nor writes there; its objects are borrowed read-only (objects/info/alternates), and its index is copied
// once to seed the shadow's, so that unchanged tracked files are neither stored nor hashed again. No user
// or system configuration is read (app/git/GitProcess), and hooks, signing, fsmonitor, filters,
// end-of-line conversion and automatic gc are off (see ShadowRepo.cpp's switches and SnapshotRules).
//
// Crash-only: every change is made under a lock file; git's own lock files left by a killed run are stale
// under it and removed; a snapshot is visible only once its ref is updated (atomically, by git); a rewind
// first records the present (an undo snapshot) and a journal, so a rewind killed half-way is finished, or
// undone, by running it again.
//
// Refs: refs/warren/steps/NNNNNNNNNN (before step N; the End snapshot after the last step is the next
// number), refs/warren/undo/NNNNNNNNNN (the workspace before each rewind), refs/warren/present (the
// workspace when a rewind was last previewed).

#include "app/snapshots/RewindPlan.h"
#include "app/snapshots/SnapshotMeta.h"
#include "app/snapshots/SnapshotRules.h"
#include "common/Result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warren::snapshots {

struct Snapshot {
    std::string ref;
    std::string commit;
    SnapshotMeta meta;
};

struct RewindResult {
    RewindPlan plan;
    Snapshot undo; // the workspace as it was before: rewinding to it takes the rewind back
};

class ShadowRepo {
public:
    struct Options {
        std::string git = "git";
        SnapshotRules rules;
        std::size_t keepSteps = 200; // step snapshots kept besides the first: older ones are pruned
    };

    // Opens the repository at dir for workspace, creating it on first use. Held paths given in the options
    // are kept in DIR/held; opened without any, the repository uses the ones kept.
    static Result<ShadowRepo> open(const std::filesystem::path& dir, const std::filesystem::path& workspace,
                                   Options options);
    static Result<ShadowRepo> open(const std::filesystem::path& dir, const std::filesystem::path& workspace) {
        return open(dir, workspace, Options{});
    }
    // Whether dir holds a shadow repository.
    static bool exists(const std::filesystem::path& dir);

    const std::filesystem::path& dir() const { return m_dir; }
    const std::filesystem::path& workspace() const { return m_workspace; }
    // Where the agent's checkpoint as it was before step `step` is kept (TaskSnapshots copies it there).
    static std::filesystem::path checkpointCopy(const std::filesystem::path& dir, std::uint64_t step);

    // Records the workspace now as kind/step.
    Result<Snapshot> snapshot(SnapshotMeta::Kind kind, std::uint64_t step);
    // Step and End snapshots, by step; undo snapshots after them, oldest first.
    Result<std::vector<Snapshot>> list() const;
    // The snapshot before step `step` (the End one when it is one past the last step); an error naming the
    // steps there are when there is none.
    Result<Snapshot> beforeStep(std::uint64_t step) const;

    // git's unified diff from one snapshot to another (binary as "Binary files differ"), narrowed to paths.
    Result<std::string> diff(const Snapshot& from, const Snapshot& to,
                             const std::vector<std::string>& paths = {}) const;
    Result<std::vector<TreeChange>> changes(const Snapshot& from, const Snapshot& to) const;

    // Records the workspace as it is now (refs/warren/present, replaced each time), for a review up to now.
    Result<Snapshot> present();
    // What rewinding to target would change now (narrowed to onlyPaths); the workspace is not touched.
    Result<RewindPlan> previewRewind(const Snapshot& target, const std::vector<std::string>& onlyPaths = {});
    // Records the present (an undo snapshot), then makes the workspace what target recorded (narrowed to
    // onlyPaths), leaving what snapshots skip alone.
    Result<RewindResult> rewind(const Snapshot& target, const std::vector<std::string>& onlyPaths = {});
    // Writes what target recorded, its empty directories too, into dest (an empty directory), for a fork of
    // the task: neither the workspace nor a snapshot changes. What snapshots skip is not there.
    Status copyTo(const Snapshot& target, const std::filesystem::path& dest);
    // Takes the step snapshots of another task's repository up to upToStep (a fork's past, so its review
    // and rewinds reach back to its first step); that repository is only read.
    Status adopt(const ShadowRepo& from, std::uint64_t upToStep);
    // A rewind that was killed before it finished: the step or undo snapshot it was going to.
    std::optional<std::string> interruptedRewind() const;

    // Drops step snapshots beyond keepSteps (never the first) and the objects only they held.
    Status prune();

private:
    struct Lock;
    ShadowRepo(std::filesystem::path dir, std::filesystem::path workspace, Options options)
        : m_dir(std::move(dir)), m_workspace(std::move(workspace)), m_options(std::move(options)) {}

    Result<std::string> git(const std::vector<std::string>& args, const std::string& index = {},
                            const std::string& input = {}) const;
    Result<Snapshot> record(SnapshotMeta::Kind kind, std::uint64_t step, const std::string& ref);
    Result<Snapshot> readSnapshot(const std::string& ref) const;
    Result<RewindPlan> plan(const Snapshot& now, const Snapshot& target,
                            const std::vector<std::string>& onlyPaths) const;
    Status apply(const RewindPlan& plan, const Snapshot& target);
    void removeStaleLocks() const;
    Status keepHeldPaths();

    std::filesystem::path m_dir;
    std::filesystem::path m_workspace;
    Options m_options;
};

std::string stepRef(std::uint64_t step);

} // namespace warren::snapshots
