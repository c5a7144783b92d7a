#pragma once
// What a task snapshot records and what it leaves out, decided purely (tests/unit/tst_snapshot_rules.cpp).
//
// Left out, left alone by a rewind, and listed as skipped: what the workspace's .gitignore files ignore;
// dependency and build directories by name at any depth (node_modules, .venv, target, build, ...), which are
// large, regenerated, and would cost every step a walk; files over the size limit that nothing recorded
// before. Files the user's own repository tracks are always recorded: its index seeds the shadow's.
//
// The shadow repository's own files say the same to git: info/exclude (these rules, and each large file as
// an anchored literal pattern) and info/attributes, which outranks every .gitattributes in the workspace so
// that no filter, end-of-line conversion or encoding comes between the workspace's bytes and the snapshot.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::snapshots {

struct SnapshotRules {
    std::uint64_t largeFileBytes = 16u << 20; // an untracked file above this is skipped
    // The sandbox's protected paths (.envrc, .vscode, ...: read-only inside, and where absent held by an
    // empty placeholder while the agent runs): the task cannot change them, so they are never recorded and
    // a rewind leaves them alone; else a snapshot taken during the run would record the placeholders.
    std::vector<std::string> heldPaths; // relative, without a trailing '/'
    static const std::vector<std::string>& dependencyDirNames();

    bool isDependencyDir(std::string_view name) const;
    bool isHeld(std::string_view path) const;
    bool isLarge(std::uint64_t size) const { return size > largeFileBytes; }
};

// A workspace path (relative, '/'-separated) as a gitignore pattern matching exactly it: anchored with '/',
// glob characters escaped, a directory with a trailing '/'. nullopt for a path a pattern cannot name (a
// newline in it): git then records it.
std::optional<std::string> literalPattern(std::string_view path, bool directory);

// info/exclude: the dependency directories, the held paths, then each path in extraPaths (files) and
// extraDirs.
std::string excludeFileText(const SnapshotRules& rules, const std::vector<std::string>& extraPaths,
                            const std::vector<std::string>& extraDirs);

// info/attributes: the workspace's bytes exactly as they are.
std::string attributesFileText();

} // namespace warren::snapshots
