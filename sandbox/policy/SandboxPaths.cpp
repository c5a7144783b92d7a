#include "sandbox/policy/SandboxPaths.h"

namespace warren::sandbox {
namespace {

bool isUnder(const std::string& path, const std::string& mountPoint) {
    return path == mountPoint || path.rfind(mountPoint + "/", 0) == 0;
}

// "usr/bin" relative to the link's directory, or an absolute target, as a normalised sandbox path.
std::string resolveLink(const std::string& linkPath, const std::string& target) {
    return normalizePath(target.rfind('/', 0) == 0 ? target : linkPath.substr(0, linkPath.rfind('/') + 1) + target);
}

} // namespace

std::string normalizePath(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string::npos)
            end = path.size();
        const std::string part = path.substr(start, end - start);
        if (part == "..") {
            if (!parts.empty())
                parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        start = end + 1;
    }
    std::string out;
    for (const auto& part : parts)
        out += "/" + part;
    return out.empty() ? "/" : out;
}

std::optional<std::string> hostPathOf(const SandboxProfile& profile, const std::string& sandboxPath,
                                      const HostLookup& lookup) {
    std::string path = sandboxPath;
    for (int hops = 0; hops < 40; ++hops) {
        // The deepest mount holding the path decides; the workspace is a mount too.
        const MountSpec* best = nullptr;
        for (const auto& mount : profile.mounts)
            if (isUnder(path, mount.dest) && (!best || mount.dest.size() > best->dest.size()))
                best = &mount;
        if (isUnder(path, profile.workspaceDest) && (!best || profile.workspaceDest.size() > best->dest.size()))
            return profile.workspaceSource + path.substr(profile.workspaceDest.size());
        if (!best)
            return std::nullopt;
        if (best->type == MountSpec::Type::Symlink) {
            path = resolveLink(best->dest, best->target) + path.substr(best->dest.size());
            continue;
        }
        if (best->type != MountSpec::Type::RoBind && best->type != MountSpec::Type::Bind &&
            best->type != MountSpec::Type::Mirror)
            return std::nullopt;
        const HostEntry entry = lookup(best->source);
        if (best->type == MountSpec::Type::Mirror && entry.kind == HostEntry::Kind::Symlink) {
            path = resolveLink(best->dest, entry.linkTarget) + path.substr(best->dest.size());
            continue;
        }
        return best->source + path.substr(best->dest.size());
    }
    return std::nullopt;
}

bool commandFound(const SandboxProfile& profile, const std::string& command,
                  const std::function<bool(const std::string&)>& isExecutable, const HostLookup& lookup) {
    auto executableInside = [&](const std::string& sandboxPath) {
        const auto host = hostPathOf(profile, sandboxPath, lookup);
        return host && isExecutable(*host);
    };
    if (command.find('/') != std::string::npos)
        return executableInside(command[0] == '/' ? command : profile.workspaceDest + "/" + command);
    const auto path = profile.env.find("PATH");
    const std::string searchPath = path == profile.env.end() ? "/usr/local/bin:/usr/bin:/bin" : path->second;
    std::size_t start = 0;
    while (start <= searchPath.size()) {
        std::size_t end = searchPath.find(':', start);
        if (end == std::string::npos)
            end = searchPath.size();
        const std::string dir = searchPath.substr(start, end - start);
        if (!dir.empty() && dir[0] == '/' && executableInside(dir + "/" + command))
            return true;
        start = end + 1;
    }
    return false;
}

} // namespace warren::sandbox
