#include "agent_core/tools/WriteFileTool.h"

#include "agent_core/tools/ReadFileTool.h"
#include "agent_core/tools/ToolArguments.h"
#include "agent_core/tools/WorkspacePath.h"
#include "common/UniqueFd.h"
#include "common/WriteAll.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::agent {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Keeps a temporary name within NAME_MAX (255) however long the file's name is.
constexpr std::size_t kTempNameStemBytes = 200;

// A file larger than this is replaced without being read back for the diff of its change.
constexpr std::size_t kMaxDiffedFileBytes = 16 * 1024 * 1024;

Error systemError(const std::string& what) {
    return makeError(ErrorCode::System, what + ": " + std::strerror(errno));
}

// Tools that trust a file's modification time in whole seconds (Python's bytecode cache checks the
// source's mtime in seconds and its size; make, rsync's quick check) would take a file rewritten within
// the second of the previous version, at the same size, for unchanged. The new version's mtime is moved
// to the second after the old one's when the clock has not got there yet, so it always differs.
bool advanceMtimePast(int fd, const struct stat& replaced) {
    struct stat now {};
    if (::fstat(fd, &now) != 0)
        return false;
    if (now.st_mtim.tv_sec > replaced.st_mtim.tv_sec)
        return true;
    const struct timespec times[2] = {{0, UTIME_OMIT}, {replaced.st_mtim.tv_sec + 1, now.st_mtim.tv_nsec}};
    return ::futimens(fd, times) == 0;
}

// A name beside path that nobody has yet: ".NAME.warren-PID-N.tmp".
fs::path nameBeside(const fs::path& path) {
    static std::atomic<unsigned> counter{0};
    std::string name(".");
    name.append(path.filename().native().substr(0, kTempNameStemBytes))
        .append(".warren-")
        .append(std::to_string(::getpid()))
        .append("-")
        .append(std::to_string(counter++))
        .append(".tmp");
    return path.parent_path() / name;
}

// Gives the unnamed file fd the name `to`, which must not exist. Through /proc: linkat's AT_EMPTY_PATH
// needs a capability the agent does not have.
bool linkUnnamed(int fd, const fs::path& to) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    return ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, to.c_str(), AT_SYMLINK_FOLLOW) == 0;
}

// Writes content to fd, keeps replaced's owner, mode and a later mtime, and syncs it.
Status fill(int fd, const std::string& shown, std::string_view content, const struct stat* replaced) {
    if (!writeAll(fd, content))
        return systemError("cannot write " + shown);
    if (replaced) {
        // Owner first: fchown clears set-id bits, fchmod then restores them. Failing to give the file back
        // to its owner (not root) is fine; failing to keep its mode is not.
        if ((replaced->st_uid != ::geteuid() || replaced->st_gid != ::getegid()) &&
            ::fchown(fd, replaced->st_uid, replaced->st_gid) != 0) {
            // Not ours to give back: the file stays with the agent's user.
        }
        if (::fchmod(fd, replaced->st_mode & 07777) != 0)
            return systemError("cannot keep the mode of " + shown);
        if (!advanceMtimePast(fd, *replaced))
            return systemError("cannot set the modification time of " + shown);
    }
    if (::fsync(fd) != 0)
        return systemError("cannot write " + shown);
    return Ok{};
}

// Moves the finished file temp over path; temp is gone either way.
Status replaceWith(const fs::path& temp, const fs::path& path, const std::string& shown) {
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const Error error = systemError("cannot replace " + shown);
        ::unlink(temp.c_str());
        return error;
    }
    return Ok{};
}

// The file is written unnamed (O_TMPFILE), so a process killed while writing leaves nothing behind. A new
// file is then linked straight into place; a file being replaced is linked beside it and renamed over it,
// so the name beside it lives for two system calls, not for the whole write. Nothing where the file system
// has no unnamed files or /proc is missing: the caller writes a named file instead.
std::optional<Status> writeUnnamed(const fs::path& path, const std::string& shown, std::string_view content,
                                   const struct stat* replaced) {
    const UniqueFd file(::open(path.parent_path().c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666));
    if (!file.valid())
        return std::nullopt;
    if (auto filled = fill(file.get(), shown, content, replaced); !filled)
        return filled;
    if (!replaced && linkUnnamed(file.get(), path))
        return Ok{};
    for (int attempt = 0; attempt < 100; ++attempt) {
        const fs::path temp = nameBeside(path);
        if (linkUnnamed(file.get(), temp))
            return replaceWith(temp, path, shown);
        if (errno != EEXIST)
            break;
    }
    return std::nullopt;
}

} // namespace

Status writeFileAtomically(const fs::path& path, const std::string& shown, std::string_view content,
                           const struct stat* replaced) {
    if (auto written = writeUnnamed(path, shown, content, replaced))
        return *written;
    fs::path temp;
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        temp = nameBeside(path);
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt == 100))
            return systemError("cannot create a temporary file beside " + shown);
    }
    auto filled = fill(fd, shown, content, replaced);
    if (::close(fd) != 0 && filled)
        filled = systemError("cannot write " + shown);
    if (!filled) {
        ::unlink(temp.c_str());
        return filled;
    }
    return replaceWith(temp, path, shown);
}

Status checkReplaceable(const fs::path& path, const std::string& shown, const struct stat& status) {
    if ((status.st_mode & 0222) == 0 || (::access(path.c_str(), W_OK) != 0 && errno != ENOENT))
        return makeError(ErrorCode::InvalidArgument,
                         shown + " is read-only; change its permissions first if it really should change");
    return Ok{};
}

protocol::ToolSpec WriteFileTool::spec() {
    return {
        std::string(kName),
        "Create or overwrite a file in the workspace with the given content (parent directories are made).",
        json{{"type", "object"},
             {"properties",
              {{"path",
                {{"type", "string"}, {"description", "File path, relative to /workspace or under it"}}},
               {"content", {{"type", "string"}, {"description", "The whole new content of the file"}}}}},
             {"required", {"path", "content"}},
             {"additionalProperties", false}}};
}

ToolOutcome WriteFileTool::run(const json& arguments, const ToolEnv& env) {
    const std::string tool(kName);
    auto reader = ToolArguments::read(kName, arguments, {"path", "content"});
    if (!reader)
        return failure(reader.error().message);
    auto path = reader->string("path");
    if (!path)
        return failure(path.error().message);
    auto content = reader->string("content");
    if (!content)
        return failure(content.error().message);

    auto resolved = resolveInWorkspace(env.workspace, *path);
    if (!resolved)
        return failure(tool + ": " + resolved.error().message);
    const std::string shown = relativeToWorkspace(env.workspace, *resolved);

    struct stat status {};
    const bool exists = ::lstat(resolved->c_str(), &status) == 0;
    if (!exists && errno != ENOENT && errno != ENOTDIR)
        return failure(tool + ": " + shown + ": " + std::strerror(errno));
    if (exists && S_ISDIR(status.st_mode))
        return failure(tool + ": " + shown + " is a directory");
    if (exists && !S_ISREG(status.st_mode))
        return failure(tool + ": " + shown + " is not a regular file");
    if (exists) {
        if (auto replaceable = checkReplaceable(*resolved, shown, status); !replaceable)
            return failure(tool + ": " + replaceable.error().message);
    } else {
        std::error_code ec;
        fs::create_directories(resolved->parent_path(), ec);
        if (ec)
            return failure(tool + ": cannot create the directory " +
                           relativeToWorkspace(env.workspace, resolved->parent_path()) + ": " + ec.message());
    }

    // The content about to be replaced, for the diff of the change; none when it is too large or cannot be
    // read (a file the agent may write but not read).
    std::optional<std::string> replaced;
    if (env.onFileChanged && exists && static_cast<std::uint64_t>(status.st_size) <= kMaxDiffedFileBytes) {
        if (auto file = readWholeFile(*resolved, shown, kMaxDiffedFileBytes))
            replaced = std::move(file->content);
    }

    if (auto written = writeFileAtomically(*resolved, shown, *content, exists ? &status : nullptr); !written)
        return failure(tool + ": " + written.error().message);
    if (env.onFileChanged) {
        if (exists && !replaced) {
            env.onFileChanged(shown, FileChange::Modified, nullptr);
        } else {
            const FileDiff diff = diffFileChange(
                replaced ? std::optional<std::string_view>(*replaced) : std::nullopt, *content, shown);
            env.onFileChanged(shown, exists ? FileChange::Modified : FileChange::Created, &diff);
        }
    }
    ToolOutcome outcome;
    outcome.bytesWritten = content->size();
    outcome.output =
        "wrote " + std::to_string(content->size()) + " bytes to " + shown + (exists ? "" : " (new file)");
    return outcome;
}

} // namespace warren::agent
