#include "common/tar/UploadExtractor.h"

#include "common/UniqueFd.h"
#include "common/WriteAll.h"
#include "common/tar/TarReader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <vector>

namespace warren::tar {

namespace {

Error systemError(const std::string& what, const std::string& path) {
    return makeError(ErrorCode::System,
                     "cannot " + what + " \"" + path + "\" of the upload: " + std::strerror(errno));
}

UniqueFd openDirectory(int parent, const char* name) {
    return UniqueFd(::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

// O_NOFOLLOW stops at a symlink but not at "..": a component that could lead out of the directory is
// refused here too, whatever the policy said, so a policy gap cannot write outside the tree.
bool isPlainComponent(const std::string& part) {
    return !part.empty() && part != "." && part != ".." && part.find('\0') == std::string::npos;
}

Error outside(const std::string& path) {
    return makeError(ErrorCode::InvalidArgument,
                     "the upload is refused: \"" + path + "\" does not name a path inside the upload");
}

// The directory of the entry before, kept open: a tar lists a directory's entries after it, so the next
// entry's parent is most often that directory or one below it, and the walk starts there rather than at
// the root (an archive of deep paths would otherwise cost its depth in openat calls per entry). It was
// reached by the same checked walk, and the policy never lets a directory be replaced.
struct ParentCache {
    std::string path; // relative to the root; "" is the root
    UniqueFd dir;
};

// The directory that will hold path's last component, creating missing ones on the way. A component that
// is a symlink or a file fails here (ELOOP, ENOTDIR) whatever the policy said.
Result<UniqueFd> openParent(int root, const std::string& path, std::string& name, ParentCache& cache) {
    std::size_t start = 0;
    UniqueFd dir;
    if (cache.dir.valid() && (cache.path.empty() || path.starts_with(cache.path + "/"))) {
        dir = UniqueFd(::fcntl(cache.dir.get(), F_DUPFD_CLOEXEC, 0));
        start = cache.path.empty() ? 0 : cache.path.size() + 1;
    } else {
        dir = UniqueFd(::fcntl(root, F_DUPFD_CLOEXEC, 0));
    }
    for (auto slash = path.find('/', start); slash != std::string::npos; slash = path.find('/', start)) {
        const std::string part = path.substr(start, slash - start);
        if (!isPlainComponent(part))
            return outside(path);
        UniqueFd child = openDirectory(dir.get(), part.c_str());
        if (!child.valid() && errno == ENOENT) {
            if (::mkdirat(dir.get(), part.c_str(), 0700) != 0 && errno != EEXIST)
                return systemError("create the directory", path.substr(0, slash));
            child = openDirectory(dir.get(), part.c_str());
        }
        if (!child.valid())
            return systemError("open the directory", path.substr(0, slash));
        dir = std::move(child);
        start = slash + 1;
    }
    name = path.substr(start);
    if (!isPlainComponent(name))
        return outside(path);
    cache.path = start == 0 ? std::string() : path.substr(0, start - 1);
    cache.dir = UniqueFd(::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0));
    return dir;
}

Status writeFile(TarReader& reader, int parent, const std::string& name, const AdmittedEntry& entry,
                 UploadCounts& counts) {
    UniqueFd file(::openat(parent, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file.valid())
        return systemError("create the file", entry.path);
    std::vector<char> buffer(64 * 1024);
    for (;;) {
        auto n = reader.readData(buffer.data(), buffer.size());
        if (!n)
            return n.error();
        if (*n == 0)
            break;
        if (!writeAll(file.get(), std::string_view(buffer.data(), *n)))
            return systemError("write the file", entry.path);
        counts.bytes += *n;
    }
    if (::fchmod(file.get(), entry.mode) != 0)
        return systemError("set the mode of", entry.path);
    if (::close(file.release()) != 0) // a deferred write error (NFS, quota) shows here
        return systemError("write the file", entry.path);
    ++counts.files;
    return Ok{};
}

Status writeDirectory(int parent, const std::string& name, const AdmittedEntry& entry) {
    if (::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST)
        return systemError("create the directory", entry.path);
    const UniqueFd dir = openDirectory(parent, name.c_str());
    if (!dir.valid())
        return systemError("open the directory", entry.path);
    if (::fchmod(dir.get(), entry.mode) != 0)
        return systemError("set the mode of", entry.path);
    return Ok{};
}

Status writeEntry(TarReader& reader, int root, const AdmittedEntry& entry, UploadCounts& counts,
                  ParentCache& cache) {
    if (entry.path.empty()) { // "./": the tree's root, which extract() created
        ++counts.directories;
        if (::fchmod(root, entry.mode) != 0)
            return systemError("set the mode of", ".");
        return Ok{};
    }
    std::string name;
    auto parent = openParent(root, entry.path, name, cache);
    if (!parent)
        return parent.error();
    switch (entry.type) {
    case TarEntryType::Regular:
        return writeFile(reader, parent->get(), name, entry, counts);
    case TarEntryType::Directory:
        ++counts.directories;
        return writeDirectory(parent->get(), name, entry);
    case TarEntryType::Symlink:
        if (::symlinkat(entry.linkTarget.c_str(), parent->get(), name.c_str()) != 0)
            return systemError("create the symbolic link", entry.path);
        ++counts.symlinks;
        return Ok{};
    default:
        break;
    }
    return makeError(ErrorCode::InvalidArgument, "the upload is refused: \"" + entry.path +
                                                     "\" has a type the "
                                                     "policy does not admit");
}

Result<UploadCounts> extractInto(ByteSource& source, int root, const UploadLimits& limits) {
    TarReader reader(source);
    UploadPolicy policy(limits);
    UploadCounts counts;
    ParentCache cache;
    for (;;) {
        auto entry = reader.next();
        if (!entry)
            return entry.error();
        if (!*entry)
            break;
        auto admitted = policy.admit(**entry);
        if (!admitted)
            return admitted.error();
        if (auto written = writeEntry(reader, root, *admitted, counts, cache); !written)
            return written.error();
    }
    if (auto finished = policy.finish(); !finished)
        return finished.error();
    return counts;
}

Result<UploadCounts> extractIntoDirectory(ByteSource& source, const std::filesystem::path& target,
                                          const UploadLimits& limits) {
    const UniqueFd root(::open(target.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!root.valid())
        return systemError("open the directory", target.string());
    return extractInto(source, root.get(), limits);
}

// The error, with a failure to remove what was extracted added to it.
Error withCleanup(Error error, const std::error_code& removeError) {
    if (removeError)
        error.message += " (and removing what was extracted failed: " + removeError.message() + ")";
    return error;
}

} // namespace

Result<UploadCounts> UploadExtractor::extract(ByteSource& source, const std::filesystem::path& target) const {
    if (::mkdir(target.c_str(), 0700) != 0)
        return makeError(ErrorCode::System, "cannot create the upload's directory \"" + target.string() +
                                                "\": " + std::strerror(errno));
    auto result = extractIntoDirectory(source, target, m_limits);
    if (result)
        return result;
    // remove_all does not follow symlinks: it removes the links the upload made, not what they name.
    std::error_code removeError;
    std::filesystem::remove_all(target, removeError);
    return withCleanup(result.error(), removeError);
}

Result<UploadCounts> UploadExtractor::extractIntoEmpty(ByteSource& source,
                                                       const std::filesystem::path& target) const {
    std::error_code error;
    if (!std::filesystem::is_directory(std::filesystem::symlink_status(target, error)) ||
        !std::filesystem::is_empty(target, error))
        return makeError(ErrorCode::InvalidArgument,
                         "cannot extract into \"" + target.string() + "\": it is not an empty directory");
    auto result = extractIntoDirectory(source, target, m_limits);
    if (result)
        return result;
    std::error_code removeError;
    std::vector<std::filesystem::path> extracted;
    for (std::filesystem::directory_iterator it(target, removeError), end; !removeError && it != end;
         it.increment(removeError))
        extracted.push_back(it->path());
    for (const auto& path : extracted)
        if (!removeError)
            std::filesystem::remove_all(path, removeError);
    return withCleanup(result.error(), removeError);
}

} // namespace warren::tar
