#include "app/snapshots/SnapshotRules.h"

#include <algorithm>

namespace warren::snapshots {

const std::vector<std::string>& SnapshotRules::dependencyDirNames() {
    // Package managers' and build tools' output: regenerated from what is recorded.
    static const std::vector<std::string> names = {
        "node_modules",  ".venv",       "venv",    "__pycache__", ".tox",  ".mypy_cache",
        ".pytest_cache", ".ruff_cache", ".gradle", ".next",       ".nuxt", ".parcel-cache",
        ".terraform",    "target",      "build",   "dist",        ".cache"};
    return names;
}

bool SnapshotRules::isDependencyDir(std::string_view name) const {
    const auto& names = dependencyDirNames();
    return std::find(names.begin(), names.end(), name) != names.end();
}

bool SnapshotRules::isHeld(std::string_view path) const {
    return std::find(heldPaths.begin(), heldPaths.end(), path) != heldPaths.end();
}

std::optional<std::string> literalPattern(std::string_view path, bool directory) {
    if (path.empty() || path.find('\n') != std::string_view::npos)
        return std::nullopt;
    std::string pattern = "/";
    for (char c : path) {
        // The glob characters, the escape itself, and what is special at a line's start or end.
        if (c == '\\' || c == '*' || c == '?' || c == '[' || c == ']' || c == '!' || c == '#' || c == ' ')
            pattern += '\\';
        pattern += c;
    }
    if (directory)
        pattern += '/';
    return pattern;
}

std::string excludeFileText(const SnapshotRules& rules, const std::vector<std::string>& extraPaths,
                            const std::vector<std::string>& extraDirs) {
    std::string text = "# Written by Warren for each snapshot: what the task's snapshots leave out.\n";
    for (const auto& name : rules.dependencyDirNames())
        text += name + "/\n";
    for (const auto& held : rules.heldPaths)
        if (auto pattern = literalPattern(held, false)) // a pattern without '/' at its end: file or directory
            text += *pattern + "\n";
    for (const auto& path : extraPaths)
        if (auto pattern = literalPattern(path, false))
            text += *pattern + "\n";
    for (const auto& dir : extraDirs)
        if (auto pattern = literalPattern(dir, true))
            text += *pattern + "\n";
    return text;
}

std::string attributesFileText() {
    return "* -text -filter -ident -working-tree-encoding\n";
}

} // namespace warren::snapshots
