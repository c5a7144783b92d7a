#pragma once
// Where the control plane keeps its files (--data-dir, default $XDG_DATA_HOME/warren):
//   warren.db                 the Store
//   tasks/<id>/state          the agent's checkpoints (/state in its sandbox)
//   tasks/<id>/output         its artifacts and resource_report.json (/output)
//   tasks/<id>/snapshots      the workspace before each step (app/snapshots/ShadowRepo), never in a sandbox
//   memories/<prefix>         the filesystem memory backend's files (/memories/<prefix>)
//   secrets.json              API keys, only where no OS keychain answers (0600)

#include "common/Result.h"

#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

struct DataDir {
    std::string root;

    std::string database() const { return root + "/warren.db"; }
    std::string taskDir(const std::string& id) const { return root + "/tasks/" + id; }
    std::string stateDir(const std::string& id) const { return taskDir(id) + "/state"; }
    std::string outputDir(const std::string& id) const { return taskDir(id) + "/output"; }
    std::string snapshotsDir(const std::string& id) const { return taskDir(id) + "/snapshots"; }
    std::string memoriesDir(const std::string& prefix) const { return root + "/memories/" + prefix; }

    // A small file beside the task (tasks/<id>/name: a reply, a sleep's questions): keepTaskFile writes it
    // whole or not at all (a crash leaves the old one or none; the error names it and asks whether the disk
    // is full), forgetTaskFile removes it if it is there.
    std::string taskFile(const std::string& taskId, const std::string& name) const { return taskDir(taskId) + "/" + name; }
    Status keepTaskFile(const std::string& taskId, const std::string& name, std::string_view text) const;
    void forgetTaskFile(const std::string& taskId, const std::string& name) const;

    // $XDG_DATA_HOME/warren, else ~/.local/share/warren.
    static std::string defaultRoot();
    // path made (its own user's only, with tasks/ and subdirs in it) and resolved: the tasks' directories
    // are mounted into sandboxes, which take absolute host paths only.
    static Result<DataDir> prepare(const std::string& path, const std::vector<std::string>& subdirs = {});
};

} // namespace warren::control
