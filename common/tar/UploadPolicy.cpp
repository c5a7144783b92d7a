#include "common/tar/UploadPolicy.h"

#include "common/LinkChain.h"

#include <algorithm>
#include <vector>

namespace warren::tar {

namespace {

// A symlink chain longer than this is refused, as the kernel refuses it (ELOOP at 40).

Error refuse(const TarEntry& entry, const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, "the upload is refused: \"" + entry.path + "\" (at offset " +
                                                     std::to_string(entry.offset) + ") " + why);
}

std::string join(const std::vector<std::string>& parts, std::size_t count) {
    std::string path;
    for (std::size_t i = 0; i < count; ++i)
        path += (i ? "/" : "") + parts[i];
    return path;
}

// The path's components without "." and empty ones, or why it cannot be a path inside the tree.
Result<std::vector<std::string>> components(const std::string& path, const char* what) {
    if (path.empty())
        return makeError(ErrorCode::InvalidArgument, std::string("has an empty ") + what);
    if (path.find('\0') != std::string::npos)
        return makeError(ErrorCode::InvalidArgument, std::string("has a NUL byte in its ") + what);
    if (path.front() == '/')
        return makeError(ErrorCode::InvalidArgument, std::string("has an absolute ") + what);
    std::vector<std::string> kept;
    for (auto& part : splitPath(path)) {
        if (part == "..")
            return makeError(ErrorCode::InvalidArgument,
                             std::string("has a \"..\" component in its ") + what);
        if (!part.empty() && part != ".")
            kept.push_back(std::move(part));
    }
    return kept;
}

// A link target is resolved from the link's directory (at depth `depth` in the tree), lexically here;
// UploadPolicy::finish() follows the chains through the archive's other links.
Status checkLinkTarget(const TarEntry& entry, std::size_t depth) {
    const std::string& target = entry.linkTarget;
    const auto refused = [&](const std::string& why) {
        return refuse(entry,
                      "is a symbolic link " + why + " (\"" + target.substr(0, target.find('\0')) + "\")");
    };
    if (target.empty())
        return refused("with an empty link target");
    if (target.find('\0') != std::string::npos)
        return refused("with a NUL byte in its link target");
    if (target.front() == '/')
        return refused("with an absolute link target");
    for (const auto& part : splitPath(target)) {
        if (part == "..") {
            if (depth == 0)
                return refused("to outside the tree");
            --depth;
        } else if (!part.empty() && part != ".") {
            ++depth;
        }
    }
    return Ok{};
}

const char* kindName(TarEntryType type) {
    return type == TarEntryType::Directory ? "a directory"
           : type == TarEntryType::Symlink ? "a link"
                                           : "a file";
}

} // namespace

// From the entry's parent upwards, to the first directory already known: its own parents were checked when
// it was admitted, and a directory is never replaced, so what lies above it still holds. Each entry costs
// one lookup in the common case, and the walk up is paid once per directory created on the way, so an
// archive of deep paths costs no more than the directories it makes (a walk from the top, per entry, costs
// its depth squared in path bytes).
Status UploadPolicy::admitParents(const TarEntry& entry, const std::string& path) {
    std::vector<std::string> created; // deepest first
    for (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0;
         slash = path.rfind('/', slash - 1)) {
        std::string parent = path.substr(0, slash);
        const auto seen = m_seen.find(parent);
        if (seen != m_seen.end()) {
            if (seen->second == Kind::Symlink)
                return refuse(entry, "goes through \"" + parent + "\", a symbolic link of the same archive");
            if (seen->second == Kind::File)
                return refuse(entry, "goes through \"" + parent + "\", a file of the same archive");
            break;
        }
        created.push_back(std::move(parent));
    }
    // Created on the way, as tar does; each counts as an entry, or one archive of deep paths would have the
    // server create (and remember) thousands of directories per entry it declares.
    if (created.size() > m_limits.maxEntries - std::min(m_entries, m_limits.maxEntries))
        return refuse(entry, "needs one directory more than the " + std::to_string(m_limits.maxEntries) +
                                 " entries allowed");
    m_entries += created.size();
    for (auto& parent : created)
        m_seen.emplace(std::move(parent), Kind::Directory);
    return Ok{};
}

// The limits on count and length, and the types a workspace may hold.
Status UploadPolicy::admitShape(const TarEntry& entry) {
    if (++m_entries > m_limits.maxEntries)
        return refuse(entry,
                      "is one entry more than the " + std::to_string(m_limits.maxEntries) + " allowed");
    if (entry.path.size() > m_limits.maxPathBytes || entry.linkTarget.size() > m_limits.maxPathBytes)
        return refuse(entry, "has a path or link target longer than the " +
                                 std::to_string(m_limits.maxPathBytes) + " bytes allowed");
    switch (entry.type) {
    case TarEntryType::Regular:
    case TarEntryType::Directory:
    case TarEntryType::Symlink:
        return Ok{};
    case TarEntryType::Hardlink:
        return refuse(entry, "is a hard link (to \"" + entry.linkTarget +
                                 "\"); make the tar with --hard-dereference to send its content");
    case TarEntryType::Other:
        return refuse(entry, std::string("has the unsupported tar type '") + entry.typeFlag + "'");
    default:
        return refuse(entry, std::string("is ") + describe(entry.type) + ", which a workspace cannot hold");
    }
}

Result<AdmittedEntry> UploadPolicy::admit(const TarEntry& entry) {
    if (auto shape = admitShape(entry); !shape)
        return shape.error();
    auto parts = components(entry.path, "name");
    if (!parts)
        return refuse(entry, parts.error().message);
    for (const auto& part : *parts) {
        if (part.size() > m_limits.maxNameBytes)
            return refuse(entry, "has a name of " + std::to_string(part.size()) + " bytes (\"" +
                                     part.substr(0, 32) + "...\"); a file or directory name may have at most " +
                                     std::to_string(m_limits.maxNameBytes) + " bytes");
    }
    AdmittedEntry admitted;
    admitted.type = entry.type;
    admitted.path = join(*parts, parts->size());
    if (admitted.path.empty() && entry.type != TarEntryType::Directory)
        return refuse(entry, "names the tree's root but is not a directory");
    if (entry.type == TarEntryType::Directory)
        admitted.mode = (entry.mode & 0777) | 0700;

    if (entry.type == TarEntryType::Symlink) {
        if (auto target = checkLinkTarget(entry, parts->size() - 1); !target)
            return target.error();
        admitted.linkTarget = entry.linkTarget;
    }
    if (auto parents = admitParents(entry, admitted.path); !parents)
        return parents.error();
    if (const auto seen = m_seen.find(admitted.path); seen != m_seen.end() && !admitted.path.empty()) {
        if (seen->second == Kind::Directory && entry.type == TarEntryType::Directory)
            return admitted; // a directory named twice, or after its children: nothing is replaced
        if (seen->second == Kind::Directory)
            return refuse(entry, std::string("would replace a directory with ") + kindName(entry.type));
        return refuse(entry, "appears twice in the archive (the second would replace the first)");
    }

    if (entry.type == TarEntryType::Regular) {
        if (entry.size > m_limits.maxTotalBytes - std::min(m_bytes, m_limits.maxTotalBytes))
            return refuse(entry, "takes the upload past the " + std::to_string(m_limits.maxTotalBytes) +
                                     " bytes allowed");
        m_bytes += entry.size;
        admitted.size = entry.size;
        admitted.mode = (entry.mode & 0777) | 0600;
    }
    if (!admitted.path.empty()) {
        const Kind kind = entry.type == TarEntryType::Directory ? Kind::Directory
                          : entry.type == TarEntryType::Symlink ? Kind::Symlink
                                                                : Kind::File;
        m_seen[admitted.path] = kind;
        if (kind == Kind::Symlink)
            m_links[admitted.path] = entry.linkTarget;
    }
    return admitted;
}

Status UploadPolicy::finish() const {
    for (const auto& [path, target] : m_links) {
        switch (followLinkChain(path, target, m_links)) {
        case LinkChain::StaysInside:
            break;
        case LinkChain::LeavesTree:
            return makeError(ErrorCode::InvalidArgument, "the upload is refused: the symbolic link \"" + path +
                                                             "\" -> \"" + target +
                                                             "\" leads outside the tree through the archive's other links");
        case LinkChain::Loops:
            return makeError(ErrorCode::InvalidArgument, "the upload is refused: the symbolic link \"" + path +
                                                             "\" is part of a loop of links");
        }
    }
    return Ok{};
}

} // namespace warren::tar
