#include "app/remote/WorkspacePack.h"

#include "app/git/GitProcess.h"
#include "common/LinkChain.h"
#include "common/UniqueFd.h"
#include "common/Utf8.h"
#include "common/WriteAll.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::remote {

using git::GitScratch;
using tar::kTarEndBytes;
using tar::TarMember;
using tar::tarHeaders;
using tar::tarPadding;

namespace fs = std::filesystem;

namespace {

// The server follows a chain of links at most this far, as the kernel does (ELOOP at 40).
// How many of the largest parts the over-the-cap message names.
constexpr std::size_t kLargestNamed = 5;

TarMember toMember(const FoundEntry& entry) {
    TarMember member;
    member.path = entry.path;
    member.type = entry.type == FoundEntry::Type::Directory ? TarMember::Type::Directory
                  : entry.type == FoundEntry::Type::Symlink ? TarMember::Type::Symlink
                                                            : TarMember::Type::File;
    member.mode = entry.mode;
    member.size = entry.size;
    member.mtime = entry.mtime;
    member.linkTarget = entry.linkTarget;
    return member;
}

// Why the link at path, with target, is left out: its chain leads out of the tree or loops, which the
// server's UploadPolicy::finish refuses (the same walk, common/LinkChain).
std::string chainProblem(LinkChain chain, const std::string& target) {
    if (chain == LinkChain::Loops)
        return "is a symbolic link in a loop of links, which the server refuses";
    return "is a symbolic link that leads out of the workspace through its other links (\"" + target +
           "\"), which the server refuses";
}

std::string topLevelOf(const FoundEntry& entry) {
    const auto slash = entry.path.find('/');
    if (slash != std::string::npos)
        return entry.path.substr(0, slash + 1);
    return entry.type == FoundEntry::Type::Directory ? entry.path + "/" : entry.path;
}

} // namespace

void IgnoreList::addListing(std::string_view root, std::string_view gitOutput) {
    const std::string prefix = root.empty() ? std::string() : std::string(root) + "/";
    while (!gitOutput.empty()) {
        const auto end = std::min(gitOutput.find('\0'), gitOutput.size());
        const std::string_view item = gitOutput.substr(0, end);
        gitOutput.remove_prefix(std::min(end + 1, gitOutput.size()));
        if (item.empty())
            continue;
        if (item.back() == '/')
            m_directories.insert(prefix + std::string(item.substr(0, item.size() - 1)));
        else
            m_files.insert(prefix + std::string(item));
    }
}

bool IgnoreList::ignored(std::string_view path, bool directory) const {
    return directory ? m_directories.contains(path) : m_files.contains(path);
}

std::optional<std::string> skipReason(const FoundEntry& entry) {
    if (firstInvalidUtf8(entry.path))
        return std::string(
            "its name is not UTF-8, which the upload's manifest cannot hold; rename it to send it");
    switch (entry.type) {
    case FoundEntry::Type::File:
    case FoundEntry::Type::Directory:
        return std::nullopt;
    case FoundEntry::Type::Symlink:
        if (firstInvalidUtf8(entry.linkTarget))
            return std::string("is a symbolic link whose target is not UTF-8");
        if (!entry.linkTarget.empty() && entry.linkTarget.front() == '/')
            return "is a symbolic link to an absolute path (\"" + entry.linkTarget +
                   "\"), which the server refuses";
        if (!linkStaysInside(entry.path, entry.linkTarget))
            return "is a symbolic link that leads out of the workspace (\"" + entry.linkTarget +
                   "\"), which the server refuses";
        return std::nullopt;
    case FoundEntry::Type::Fifo:
        return std::string("is a FIFO, which a workspace upload cannot hold");
    case FoundEntry::Type::Socket:
        return std::string("is a socket, which a workspace upload cannot hold");
    case FoundEntry::Type::CharDevice:
        return std::string("is a character device, which a workspace upload cannot hold");
    case FoundEntry::Type::BlockDevice:
        return std::string("is a block device, which a workspace upload cannot hold");
    case FoundEntry::Type::Other:
        break;
    }
    return std::string("is of a file type a workspace upload cannot hold");
}

std::uint64_t archiveSize(const std::vector<FoundEntry>& entries) {
    std::uint64_t bytes = kTarEndBytes;
    for (const auto& entry : entries) {
        bytes += tarHeaders(toMember(entry)).size();
        if (entry.type == FoundEntry::Type::File)
            bytes += entry.size + tarPadding(entry.size);
    }
    return bytes;
}

std::string describeBytes(std::uint64_t bytes) {
    static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024)
        return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
    std::uint64_t unit = 1024;
    std::size_t index = 0;
    while (index + 1 < std::size(kUnits) && bytes >= unit * 1024) {
        unit *= 1024;
        ++index;
    }
    // One decimal, rounded down so that a size just over a cap never reads as the cap itself.
    const std::uint64_t tenths = bytes * 10 / unit;
    const std::string whole = std::to_string(tenths / 10);
    return (tenths % 10 == 0 ? whole : whole + "." + std::to_string(tenths % 10)) + " " + kUnits[index];
}

Status checkPackSize(const std::vector<FoundEntry>& entries, std::uint64_t maxBytes) {
    const std::uint64_t total = archiveSize(entries);
    if (total <= maxBytes)
        return Ok{};
    std::map<std::string, std::uint64_t> parts;
    for (const auto& entry : entries)
        parts[topLevelOf(entry)] += entry.size;
    std::vector<std::pair<std::string, std::uint64_t>> largest(parts.begin(), parts.end());
    std::stable_sort(largest.begin(), largest.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string named;
    for (std::size_t i = 0; i < largest.size() && i < kLargestNamed && largest[i].second > 0; ++i)
        named += (i ? ", " : "") + largest[i].first + " (" + describeBytes(largest[i].second) + ")";
    return makeError(ErrorCode::InvalidArgument,
                     "the workspace is too large to upload: its archive would be " + describeBytes(total) +
                         " (" + std::to_string(total) + " bytes), more than the " + describeBytes(maxBytes) +
                         " allowed. The largest parts: " + named +
                         ". Add what the task does not need to .gitignore and try again");
}

// ---- the edges: git, the walk, the tar file ----

namespace {

bool lexists(const fs::path& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0;
}

// The repository's own exclude file: .git/info/exclude, or, for a worktree or a submodule whose .git is a
// file ("gitdir: DIR"), the one in the directory it names (its common directory for a worktree).
std::optional<fs::path> infoExclude(const fs::path& top) {
    const fs::path dotGit = top / ".git";
    fs::path gitDir = dotGit;
    std::error_code error;
    if (fs::is_regular_file(fs::symlink_status(dotGit, error))) {
        std::ifstream file(dotGit);
        std::string line;
        std::getline(file, line);
        if (!line.starts_with("gitdir: "))
            return std::nullopt;
        gitDir = fs::path(line.substr(8));
        if (gitDir.is_relative())
            gitDir = top / gitDir;
        std::ifstream common(gitDir / "commondir");
        if (std::string commonDir; std::getline(common, commonDir) && !commonDir.empty())
            gitDir = fs::path(commonDir).is_relative() ? gitDir / commonDir : fs::path(commonDir);
    }
    const fs::path exclude = gitDir / "info" / "exclude";
    return fs::is_regular_file(exclude, error) ? std::optional<fs::path>(exclude) : std::nullopt;
}

// The work tree the workspace lies in: the nearest directory from it upwards that holds a ".git", or the
// workspace itself when none does.
fs::path enclosingTop(const fs::path& workspace) {
    for (fs::path at = workspace;; at = at.parent_path()) {
        if (lexists(at / ".git"))
            return at;
        if (at == at.parent_path())
            return workspace;
    }
}

class Walk {
public:
    Walk(const fs::path& workspace, const GitScratch& git) : m_workspace(workspace), m_git(git) {}

    // The ignored paths of the repository (or plain tree) whose work tree is top, as seen from dir.
    Status listIgnored(const std::string& dir, const fs::path& top) {
        std::vector<std::string> args = {
            "--work-tree=" + top.string(), "ls-files",   "-z", "--others", "--ignored",
            "--exclude-standard",          "--directory"};
        if (const auto exclude = infoExclude(top))
            args.push_back("--exclude-from=" + exclude->string());
        const fs::path at = dir.empty() ? m_workspace : m_workspace / dir;
        auto listed = m_git.run(at, args);
        if (!listed)
            return listed.error();
        if (listed->status != 0)
            return makeError(ErrorCode::System, "git could not read the .gitignore files of \"" +
                                                    at.string() + "\" (exit " +
                                                    std::to_string(listed->status) + "): " + listed->err);
        m_ignored.addListing(dir, listed->out);
        return Ok{};
    }

    Status walk(const std::string& dir) {
        const fs::path at = dir.empty() ? m_workspace : m_workspace / dir;
        auto names = listDirectory(at, dir);
        if (!names)
            return names.error();
        for (const std::string& name : *names) {
            if (name == ".git")
                continue; // the repository's metadata, never the workspace's content
            const std::string path = dir.empty() ? name : dir + "/" + name;
            auto found = inspect(m_workspace / path, path);
            if (!found)
                return found.error();
            const bool directory = found->type == FoundEntry::Type::Directory;
            if (m_ignored.ignored(path, directory))
                continue;
            m_found.push_back(*found);
            if (!directory)
                continue;
            if (lexists(m_workspace / path / ".git")) // a nested repository: its own rules
                if (auto listed = listIgnored(path, m_workspace / path); !listed)
                    return listed.error();
            if (auto inner = walk(path); !inner)
                return inner.error();
        }
        return Ok{};
    }

    std::vector<FoundEntry>& found() { return m_found; }

private:
    static Result<std::vector<std::string>> listDirectory(const fs::path& at, const std::string& dir) {
        DIR* handle = ::opendir(at.c_str());
        if (handle == nullptr)
            return makeError(ErrorCode::System, "cannot read the directory \"" + (dir.empty() ? "." : dir) +
                                                    "\" of the workspace: " + std::strerror(errno) +
                                                    "; make it readable, or add it to .gitignore");
        std::vector<std::string> names;
        while (const dirent* entry = ::readdir(handle)) {
            const std::string name = entry->d_name;
            if (name != "." && name != "..")
                names.push_back(name);
        }
        ::closedir(handle);
        std::sort(names.begin(), names.end());
        return names;
    }

    static Result<FoundEntry> inspect(const fs::path& full, const std::string& path) {
        struct stat info {};
        if (::lstat(full.c_str(), &info) != 0)
            return makeError(ErrorCode::System,
                             "cannot read \"" + path + "\" in the workspace: " + std::strerror(errno));
        FoundEntry entry;
        entry.path = path;
        entry.mode = info.st_mode & 07777;
        entry.mtime = info.st_mtim.tv_sec;
        switch (info.st_mode & S_IFMT) {
        case S_IFREG:
            entry.type = FoundEntry::Type::File;
            entry.size = static_cast<std::uint64_t>(info.st_size);
            break;
        case S_IFDIR:
            entry.type = FoundEntry::Type::Directory;
            break;
        case S_IFLNK: {
            entry.type = FoundEntry::Type::Symlink;
            std::error_code error;
            entry.linkTarget = fs::read_symlink(full, error).string();
            if (error)
                return makeError(ErrorCode::System, "cannot read the symbolic link \"" + path +
                                                        "\" in the workspace: " + error.message());
            break;
        }
        case S_IFIFO:
            entry.type = FoundEntry::Type::Fifo;
            break;
        case S_IFSOCK:
            entry.type = FoundEntry::Type::Socket;
            break;
        case S_IFCHR:
            entry.type = FoundEntry::Type::CharDevice;
            break;
        case S_IFBLK:
            entry.type = FoundEntry::Type::BlockDevice;
            break;
        default:
            entry.type = FoundEntry::Type::Other;
        }
        return entry;
    }

    fs::path m_workspace;
    const GitScratch& m_git;
    IgnoreList m_ignored;
    std::vector<FoundEntry> m_found;
};

PackSelection choose(std::vector<FoundEntry> found) {
    PackSelection selection;
    std::map<std::string, std::string> links;
    for (auto& entry : found) {
        if (auto reason = skipReason(entry)) {
            selection.skipped.push_back({entry.path, std::move(*reason)});
            continue;
        }
        if (entry.type == FoundEntry::Type::Symlink)
            links.emplace(entry.path, entry.linkTarget);
        selection.entries.push_back(std::move(entry));
    }
    const auto leaving = linksLeavingTree(links);
    std::erase_if(selection.entries, [&](const FoundEntry& entry) {
        return entry.type == FoundEntry::Type::Symlink && leaving.contains(entry.path);
    });
    for (const auto& [path, chain] : leaving)
        selection.skipped.push_back({path, chainProblem(chain, links.at(path))});
    std::sort(selection.skipped.begin(), selection.skipped.end(),
              [](const SkippedEntry& a, const SkippedEntry& b) { return a.path < b.path; });
    return selection;
}

// Writes in large pieces: one write per header would be thousands of system calls for a source tree.
class TarOutput {
public:
    explicit TarOutput(int fd) : m_fd(fd) {}
    Status write(std::string_view bytes) {
        m_buffer.append(bytes);
        m_written += bytes.size();
        return m_buffer.size() >= kFlushAt ? flush() : Status(Ok{});
    }
    Status flush() {
        if (!writeAll(m_fd, m_buffer))
            return makeError(ErrorCode::System,
                             std::string("cannot write the workspace's archive: ") + std::strerror(errno));
        m_buffer.clear();
        return Ok{};
    }
    std::uint64_t written() const { return m_written; }

private:
    static constexpr std::size_t kFlushAt = 256 * 1024;
    int m_fd;
    std::string m_buffer;
    std::uint64_t m_written = 0;
};

Error unreadable(const std::string& path, const std::string& why) {
    return makeError(ErrorCode::System, "cannot read \"" + path + "\" in the workspace: " + why +
                                            "; make it readable, or add it to .gitignore to leave it out");
}

// The file's bytes as the header declared them, hashed on the way. A file that grew since it was measured
// is sent as it was measured (the manifest says what was sent); one that shrank cannot fill its header.
Result<ManifestEntry> writeFile(TarOutput& out, const fs::path& workspace, const FoundEntry& entry) {
    // O_NONBLOCK: if the file was replaced by a FIFO since the walk, opening it does not wait for a writer.
    const UniqueFd fd(
        ::open((workspace / entry.path).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat info {};
    if (!fd.valid() || ::fstat(fd.get(), &info) != 0)
        return unreadable(entry.path, std::strerror(errno));
    if (!S_ISREG(info.st_mode))
        return unreadable(entry.path, "it is no longer a regular file");
    Sha256 hash;
    std::string buffer(64 * 1024, '\0');
    for (std::uint64_t left = entry.size; left > 0;) {
        const ssize_t n = ::read(fd.get(), buffer.data(), std::min<std::uint64_t>(left, buffer.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return unreadable(entry.path, std::strerror(errno));
        if (n == 0)
            return makeError(ErrorCode::System,
                             "\"" + entry.path +
                                 "\" in the workspace became shorter while it was being "
                                 "packed; pack the workspace again once nothing writes to it");
        const auto got = static_cast<std::size_t>(n);
        hash.add(buffer.data(), got);
        if (auto written = out.write(std::string_view(buffer.data(), got)); !written)
            return written.error();
        left -= got;
    }
    if (auto padded = out.write(std::string(tarPadding(entry.size), '\0')); !padded)
        return padded.error();
    ManifestEntry manifest;
    manifest.path = entry.path;
    manifest.size = entry.size;
    manifest.sha256 = hash.hex();
    manifest.executable = (entry.mode & S_IXUSR) != 0;
    return manifest;
}

Result<PackResult> writeArchive(int fd, const fs::path& workspace, PackSelection selection) {
    TarOutput out(fd);
    PackResult result;
    std::vector<ManifestEntry> manifest;
    for (const auto& entry : selection.entries) {
        if (auto written = out.write(tarHeaders(toMember(entry))); !written)
            return written.error();
        switch (entry.type) {
        case FoundEntry::Type::File: {
            auto file = writeFile(out, workspace, entry);
            if (!file)
                return file.error();
            manifest.push_back(std::move(*file));
            ++result.files;
            break;
        }
        case FoundEntry::Type::Symlink:
            manifest.push_back({entry.path, ManifestEntry::Type::Symlink, 0, {}, false, entry.linkTarget});
            ++result.symlinks;
            break;
        default:
            ++result.directories;
        }
    }
    if (auto end = out.write(std::string(kTarEndBytes, '\0')); !end)
        return end.error();
    if (auto flushed = out.flush(); !flushed)
        return flushed.error();
    result.bytes = out.written();
    result.manifest = WorkspaceManifest(std::move(manifest));
    result.skipped = std::move(selection.skipped);
    return result;
}

} // namespace

Result<PackSelection> selectWorkspace(const fs::path& workspace, const PackOptions& options) {
    std::error_code error;
    const fs::path root = fs::canonical(workspace, error);
    if (error || !fs::is_directory(root, error))
        return makeError(ErrorCode::NotFound,
                         "the workspace \"" + workspace.string() + "\" is not a directory that can be read");
    auto git = GitScratch::create(options.git);
    if (!git)
        return git.error();
    Walk walk(root, *git);
    if (auto listed = walk.listIgnored("", enclosingTop(root)); !listed)
        return listed.error();
    if (auto walked = walk.walk(""); !walked)
        return walked.error();
    return choose(std::move(walk.found()));
}

Result<PackResult> packWorkspace(const fs::path& workspace, const fs::path& tarFile,
                                 const PackOptions& options) {
    auto selection = selectWorkspace(workspace, options);
    if (!selection)
        return selection.error();
    if (auto fits = checkPackSize(selection->entries, options.maxBytes); !fits)
        return fits.error();
    UniqueFd fd(::open(tarFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!fd.valid())
        return makeError(ErrorCode::System, "cannot create the workspace's archive \"" + tarFile.string() +
                                                "\": " + std::strerror(errno));
    auto result = writeArchive(fd.get(), fs::canonical(workspace), std::move(*selection));
    if (result && ::close(fd.release()) != 0) // a deferred write error (NFS, quota) shows here
        result = makeError(ErrorCode::System, "cannot write the workspace's archive \"" + tarFile.string() +
                                                  "\": " + std::strerror(errno));
    if (!result) {
        fd.reset();
        ::unlink(tarFile.c_str());
    }
    return result;
}

} // namespace warren::remote
