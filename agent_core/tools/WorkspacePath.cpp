#include "agent_core/tools/WorkspacePath.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace warren::agent {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxSymlinks = 40; // the kernel's MAXSYMLINKS

using Components = std::vector<std::string>;

// The names between slashes, without empty ones and "." ("a//./b/" is {"a", "b"}); ".." is kept.
Components splitComponents(std::string_view path) {
    Components out;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t end = std::min(path.find('/', start), path.size());
        const std::string_view name = path.substr(start, end - start);
        if (!name.empty() && name != ".")
            out.emplace_back(name);
        start = end + 1;
    }
    return out;
}

// The components of `absolute` below `base`, or nullopt when it is not under it. Both are absolute.
std::optional<Components> componentsBelow(const fs::path& absolute, const fs::path& base) {
    if (!absolute.is_absolute())
        return std::nullopt;
    const Components path = splitComponents(absolute.lexically_normal().native());
    const Components prefix = splitComponents(base.lexically_normal().native());
    if (prefix.size() > path.size() || !std::equal(prefix.begin(), prefix.end(), path.begin()))
        return std::nullopt;
    return Components(path.begin() + static_cast<std::ptrdiff_t>(prefix.size()), path.end());
}

// An absolute path (one the model gave, or a symlink's target) as components under the workspace root.
// Lexical: ".." in it is applied before any symlink is seen, which can only keep it further inside.
std::optional<Components> mapAbsolute(std::string_view absolute, const fs::path& workspace,
                                      const fs::path& root) {
    const fs::path path(absolute);
    for (const fs::path& base : {workspace, root, fs::path(kSandboxWorkspace)})
        if (auto below = componentsBelow(path, base))
            return below;
    return std::nullopt;
}

fs::path join(fs::path base, const Components& components) {
    for (const auto& name : components)
        base /= name;
    return base;
}

std::string joinRelative(const Components& components) {
    std::string out;
    for (const auto& name : components)
        out += (out.empty() ? "" : "/") + name;
    return out.empty() ? "." : out;
}

Result<std::string> readSymlink(const fs::path& link) {
    std::string target(256, '\0');
    for (;;) {
        const ssize_t length = ::readlink(link.c_str(), target.data(), target.size());
        if (length < 0)
            return makeError(ErrorCode::System, link.native() + ": " + std::strerror(errno));
        if (static_cast<std::size_t>(length) < target.size()) {
            target.resize(static_cast<std::size_t>(length));
            return target;
        }
        target.resize(target.size() * 2);
    }
}

} // namespace

Result<fs::path> resolveInWorkspace(const fs::path& workspace, std::string_view path) {
    if (path.empty())
        return makeError(ErrorCode::InvalidArgument, "path is empty");
    if (path.find('\0') != std::string_view::npos)
        return makeError(ErrorCode::InvalidArgument, "path contains a NUL byte");
    const std::string quoted = "path \"" + std::string(path) + "\"";
    std::error_code ec;
    // The workspace's own path may hold symlinks; symlink targets are compared against both spellings.
    const fs::path root = fs::canonical(workspace, ec);
    if (ec)
        return makeError(ErrorCode::System, "workspace " + workspace.native() + ": " + ec.message());

    std::string throughSymlink; // the last symlink followed, to say how a path got out
    auto outside = [&] {
        return makeError(ErrorCode::InvalidArgument,
                         quoted + " is outside the workspace " + workspace.native() + throughSymlink);
    };

    std::deque<std::string> pending;
    if (path.front() == '/') {
        auto below = mapAbsolute(path, workspace, root);
        if (!below)
            return outside();
        pending.assign(below->begin(), below->end());
    } else {
        const Components components = splitComponents(path);
        pending.assign(components.begin(), components.end());
    }

    Components resolved; // existing directories below the root, then the missing tail
    constexpr std::size_t kAllExist = SIZE_MAX;
    std::size_t missingFrom = kAllExist; // index in resolved of the first component that does not exist
    int symlinks = 0;
    while (!pending.empty()) {
        std::string name = std::move(pending.front());
        pending.pop_front();
        if (name == "..") {
            if (resolved.empty())
                return outside();
            resolved.pop_back();
            // Back among existing directories: the next component must be looked at again.
            if (missingFrom != kAllExist && missingFrom >= resolved.size())
                missingFrom = kAllExist;
            continue;
        }
        resolved.push_back(std::move(name));
        if (missingFrom != kAllExist)
            continue;
        const fs::path candidate = join(root, resolved);
        struct stat status {};
        if (::lstat(candidate.c_str(), &status) != 0) {
            if (errno == ENOENT || errno == ENOTDIR) {
                missingFrom = resolved.size() - 1;
                continue;
            }
            return makeError(ErrorCode::System,
                             quoted + ": " + joinRelative(resolved) + ": " + std::strerror(errno));
        }
        if (!S_ISLNK(status.st_mode))
            continue;
        if (++symlinks > kMaxSymlinks)
            return makeError(ErrorCode::InvalidArgument, quoted + ": too many levels of symbolic links");
        auto target = readSymlink(candidate);
        if (!target)
            return makeError(ErrorCode::System, quoted + ": " + target.error().message);
        throughSymlink = " (through the symlink \"" + joinRelative(resolved) + "\" -> \"" + *target + "\")";
        resolved.pop_back();
        Components next;
        if (!target->empty() && target->front() == '/') {
            auto below = mapAbsolute(*target, workspace, root);
            if (!below)
                return outside();
            resolved.clear();
            next = std::move(*below);
        } else {
            next = splitComponents(*target);
        }
        pending.insert(pending.begin(), next.begin(), next.end());
    }
    return join(workspace, resolved);
}

std::string relativeToWorkspace(const fs::path& workspace, const fs::path& absolute) {
    auto below = componentsBelow(absolute, workspace);
    return below ? joinRelative(*below) : absolute.native();
}

} // namespace warren::agent
