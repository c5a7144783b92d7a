#pragma once
// The record of the placeholders a launch makes in the user's workspace (ProtectedPaths: the empty files and
// directories that hold the place of a protected path that does not exist yet), so that none is left behind
// when the launcher is killed before it could remove them.
//
// A launch writes its record before anything can create a placeholder: a file in a private directory of the
// user's that outlives a reboot (placeholderRecordDir(), 0700: a power cut is a crash too, and the runtime
// directory is emptied by one), naming the backend, the workspace (its path and its device and inode) and
// each placeholder. The launcher holds an
// flock on the record for as long as it lives; clear() removes the placeholders and then the record once the
// sandbox is gone. A record nobody holds locked is one whose launcher died (kill -9, a crash, a power cut):
// sweepPlaceholderRecords() removes its placeholders that are still empty and then the record. The sweep runs
// where a sandbox of that backend can no longer be running: for bwrap, whose sandbox dies with its launcher,
// at every bwrap launch and when a control plane recovers its interrupted tasks; for a container, which may
// outlive its launcher, after the engine's sweep has removed the orphaned containers.
//
// Removal never follows a symbolic link and never removes what the user put there since: see
// removePlaceholders().

#include "common/Result.h"
#include "common/UniqueFd.h"
#include "sandbox/Backend.h"
#include "sandbox/policy/ProtectedPaths.h"

#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

class PlaceholderRecord {
public:
    PlaceholderRecord() = default; // records nothing
    PlaceholderRecord(PlaceholderRecord&&) noexcept = default;
    PlaceholderRecord& operator=(PlaceholderRecord&&) noexcept = default;
    ~PlaceholderRecord() = default; // not cleared: the record stays for the sweep

    // Writes the record of plan's placeholders in workspace (the canonical path) and locks it; a plan without
    // placeholders writes nothing. An error stops the launch: a placeholder nobody recorded could be left.
    static Result<PlaceholderRecord> write(Backend backend, const std::string& workspace,
                                           const ProtectionPlan& plan);

    // Once the sandbox is gone: removes the placeholders (removePlaceholders), then the record.
    void clear();

    const std::string& path() const { return m_path; } // empty when nothing was recorded

private:
    std::string m_workspace;
    ProtectionPlan m_plan;
    std::optional<DirectoryIdentity> m_identity; // the workspace's, once recorded
    std::string m_path;
    UniqueFd m_lock;
};

// Where records are kept: $WARREN_PLACEHOLDER_RECORDS (warrend's unit names one in its state directory), else
// $XDG_STATE_HOME/warren/placeholder-records, else ~/.local/state/warren/placeholder-records, else
// /tmp/warren-placeholder-records-UID.
std::string placeholderRecordDir();

struct PlaceholderSweep {
    std::size_t records = 0;          // records of dead launchers handled (and deleted)
    std::vector<std::string> removed; // host paths of the placeholders removed
    std::vector<std::string> kept;    // host paths left because they are no longer an empty placeholder
};

// Handles the records of the given backends whose launcher is gone; a record still locked is left alone.
PlaceholderSweep sweepPlaceholderRecords(const std::vector<Backend>& backends);

// The host paths of the placeholders recorded in workspace (canonical) by any launch, running or dead, for a
// face that lists the workspace's files and must not show them as the user's.
std::vector<std::string> recordedPlaceholders(const std::string& workspace);

} // namespace warren::sandbox
