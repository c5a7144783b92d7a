#include "sandbox/policy/ProtectedPaths.h"

#include "common/UniqueFd.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::sandbox {
namespace {

// A protected directory with more entries than this is not something a person checks in by hand.
constexpr int kMaxScannedEntries = 20000;

Error refuse(const std::string& relative, const std::string& why, const std::string& fix) {
    return makeError(ErrorCode::InvalidArgument,
                     "protected path " + relative + " " + why + "; a sandboxed program could change it. " + fix);
}

std::string removeProtectionHint(const ProtectedPath& path) {
    return "Or, if the host never runs or trusts it, set \"protected_paths\": {\"" + path.path +
           (path.directory ? "/" : "") + "\": false} in a profile.";
}

std::vector<std::string> splitPath(const std::string& relative) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start < relative.size()) {
        std::size_t end = relative.find('/', start);
        if (end == std::string::npos)
            end = relative.size();
        parts.push_back(relative.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

// Where a symlink leads on the host, also when its target does not exist yet: the deepest existing
// directory on the way, canonicalised, with the rest appended. (A missing target inside the workspace
// is as dangerous as an existing one: the sandbox could create it.)
std::string resolveAsFarAsExists(const std::string& link) {
    char buffer[PATH_MAX];
    if (realpath(link.c_str(), buffer))
        return buffer;
    const ssize_t n = readlink(link.c_str(), buffer, sizeof buffer - 1);
    if (n < 0)
        return {};
    std::string target(buffer, static_cast<std::size_t>(n));
    if (target.empty() || target[0] != '/')
        target = link.substr(0, link.rfind('/')) + "/" + target;
    std::string missing;
    for (std::string existing = target; !existing.empty();) {
        if (realpath(existing.c_str(), buffer))
            return (std::string(buffer) == "/" ? std::string() : std::string(buffer)) + missing;
        const auto slash = existing.rfind('/');
        if (slash == std::string::npos)
            break;
        const std::string last = existing.substr(slash + 1);
        if (last == "..") // cannot step over ".." without knowing what it leaves: stay conservative
            return link;
        missing = "/" + last + missing;
        existing = slash == 0 ? "/" : existing.substr(0, slash);
    }
    return link;
}

// Every regular file under a protected directory must have one name only, and no symlink there may lead
// back into the workspace, where the sandbox could write through it.
Status scanProtectedTree(const std::string& root, const std::string& relative, const std::string& workspace,
                         int& budget) {
    DIR* dir = opendir(root.c_str());
    if (!dir)
        return makeError(ErrorCode::System, "cannot read protected directory " + relative + ": " + std::strerror(errno));
    Status status = Ok{};
    while (dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..")
            continue;
        if (--budget < 0) {
            status = makeError(ErrorCode::InvalidArgument, "protected directory " + relative + " holds more than " +
                                                              std::to_string(kMaxScannedEntries) + " entries");
            break;
        }
        const std::string path = root + "/" + name;
        const std::string rel = relative + "/" + name;
        struct stat st {};
        if (lstat(path.c_str(), &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            const std::string target = resolveAsFarAsExists(path);
            if (target == workspace || target.rfind(workspace + "/", 0) == 0) {
                status = refuse(rel, "is a symbolic link into the workspace",
                                "Replace the link with a copy of what it points to.");
                break;
            }
        } else if (S_ISDIR(st.st_mode)) {
            status = scanProtectedTree(path, rel, workspace, budget);
            if (!status)
                break;
        } else if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
            status = refuse(rel, "has " + std::to_string(st.st_nlink) + " hard links",
                            "Give it a single name (cp it to a new file and rename that over it).");
            break;
        }
    }
    closedir(dir);
    return status;
}

} // namespace

Result<ProtectionPlan> planProtection(const std::string& workspace, const std::vector<ProtectedPath>& paths) {
    ProtectionPlan plan;
    auto add = [&plan](const std::string& relative, ProtectionEntry::Kind kind) {
        plan.entries.push_back({relative, kind});
    };
    int budget = kMaxScannedEntries;

    for (const ProtectedPath& wanted : paths) {
        const std::vector<std::string> parts = splitPath(wanted.path);
        std::string relative;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            relative += (i ? "/" : "") + parts[i];
            const bool last = i + 1 == parts.size();
            const std::string host = workspace + "/" + relative;
            struct stat st {};
            if (lstat(host.c_str(), &st) != 0) {
                if (errno != ENOENT)
                    return makeError(ErrorCode::System, "cannot inspect " + host + ": " + std::strerror(errno));
                if (wanted.onlyIfExists)
                    break;
                // Missing: hold its place so the sandbox cannot create it (or anything below it).
                const bool directory = !last || wanted.directory;
                add(relative, directory ? ProtectionEntry::Kind::PlaceholderDir : ProtectionEntry::Kind::PlaceholderFile);
                break;
            }
            if (S_ISLNK(st.st_mode))
                return refuse(relative, "is a symbolic link", "Replace the link with what it points to. " +
                                                                  removeProtectionHint(wanted));
            if (!last && S_ISDIR(st.st_mode)) {
                add(relative, ProtectionEntry::Kind::Pin);
                continue;
            }
            // The protected path itself, or a non-directory on its way (a worktree's ".git" file points
            // git elsewhere, so it is as sensitive as the directory it replaces).
            if (S_ISREG(st.st_mode) && st.st_nlink > 1)
                return refuse(relative, "has " + std::to_string(st.st_nlink) + " hard links",
                              "Give it a single name (cp it to a new file and rename that over it). " +
                                  removeProtectionHint(wanted));
            if (S_ISDIR(st.st_mode))
                if (auto scanned = scanProtectedTree(host, relative, workspace, budget); !scanned)
                    return scanned.error();
            add(relative, ProtectionEntry::Kind::ReadOnly);
            break;
        }
    }

    // Two protected paths can share a parent (".git/hooks" and ".git/config" both pin ".git"); a read-only
    // or placeholder entry also covers whatever below it another path asked for.
    std::sort(plan.entries.begin(), plan.entries.end(), [](const auto& a, const auto& b) {
        return a.relative != b.relative ? a.relative < b.relative : a.kind > b.kind;
    });
    std::vector<ProtectionEntry> merged;
    for (const auto& entry : plan.entries) {
        if (!merged.empty() && merged.back().relative == entry.relative)
            continue; // same path: the stronger kind sorted first
        const bool covered = std::any_of(merged.begin(), merged.end(), [&](const ProtectionEntry& earlier) {
            return earlier.kind != ProtectionEntry::Kind::Pin && entry.relative.rfind(earlier.relative + "/", 0) == 0;
        });
        if (!covered)
            merged.push_back(entry);
    }
    plan.entries = std::move(merged);
    return plan;
}

std::string protectionKindName(ProtectionEntry::Kind kind) {
    switch (kind) {
    case ProtectionEntry::Kind::Pin:
        return "pinned (cannot be renamed or replaced)";
    case ProtectionEntry::Kind::ReadOnly:
        return "read-only";
    case ProtectionEntry::Kind::PlaceholderFile:
        return "cannot be created (empty read-only placeholder)";
    case ProtectionEntry::Kind::PlaceholderDir:
        return "cannot be created (empty read-only directory)";
    }
    return "";
}

Status createPlaceholders(const std::string& workspace, const ProtectionPlan& plan) {
    for (const auto& entry : plan.entries) { // a parent before its children
        const std::string host = workspace + "/" + entry.relative;
        int made = 0;
        if (entry.kind == ProtectionEntry::Kind::PlaceholderDir) {
            made = ::mkdir(host.c_str(), 0755);
        } else if (entry.kind == ProtectionEntry::Kind::PlaceholderFile) {
            made = ::open(host.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (made >= 0)
                made = ::close(made);
        }
        if (made != 0 && errno != EEXIST) // one made since the plan is bound over as it is
            return makeError(ErrorCode::System, "cannot create the mount point of protected path " + host +
                                                    ": " + std::strerror(errno));
    }
    return Ok{};
}

PlaceholderRemoval removePlaceholders(const std::string& workspace, const ProtectionPlan& plan,
                                      std::optional<DirectoryIdentity> identity) {
    PlaceholderRemoval result;
    const UniqueFd root(::open(workspace.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat rootStat {};
    const bool rootOk = root.valid() && ::fstat(root.get(), &rootStat) == 0 &&
                        (!identity || DirectoryIdentity{rootStat.st_dev, rootStat.st_ino} == *identity);
    for (auto it = plan.entries.rbegin(); it != plan.entries.rend(); ++it) { // children before their parents
        const ProtectionEntry& entry = *it;
        if (entry.kind != ProtectionEntry::Kind::PlaceholderFile && entry.kind != ProtectionEntry::Kind::PlaceholderDir)
            continue;
        if (!rootOk) { // gone, or another directory now has its name: nothing of it is ours to remove
            result.kept.push_back(entry.relative);
            continue;
        }
        const std::vector<std::string> parts = splitPath(entry.relative);
        const bool wellFormed = !parts.empty() && std::none_of(parts.begin(), parts.end(), [](const std::string& part) {
            return part.empty() || part == "." || part == "..";
        });
        if (!wellFormed) {
            result.kept.push_back(entry.relative);
            continue;
        }
        UniqueFd parent;
        int at = root.get();
        int missing = 0; // errno of the directory on the way that could not be opened
        for (std::size_t i = 0; i + 1 < parts.size() && !missing; ++i) {
            UniqueFd next(::openat(at, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!next.valid()) {
                missing = errno; // ELOOP or ENOTDIR: a link or a file on the way, not to be followed
                break;
            }
            parent = std::move(next);
            at = parent.get();
        }
        struct stat st {};
        if (!missing && ::fstatat(at, parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            missing = errno;
        if (missing) {
            if (missing != ENOENT)
                result.kept.push_back(entry.relative);
            continue; // ENOENT: gone already
        }
        bool removed = false;
        if (entry.kind == ProtectionEntry::Kind::PlaceholderDir && S_ISDIR(st.st_mode))
            removed = ::unlinkat(at, parts.back().c_str(), AT_REMOVEDIR) == 0; // fails if anything is in it
        else if (entry.kind == ProtectionEntry::Kind::PlaceholderFile && S_ISREG(st.st_mode) && st.st_size == 0 &&
                 st.st_nlink == 1)
            removed = ::unlinkat(at, parts.back().c_str(), 0) == 0;
        (removed ? result.removed : result.kept).push_back(entry.relative);
    }
    return result;
}

} // namespace warren::sandbox
