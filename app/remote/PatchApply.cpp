#include "app/remote/PatchApply.h"

#include "app/git/GitProcess.h"
#include "common/UniqueFd.h"
#include "common/WriteAll.h"

#include <QCryptographicHash>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <set>
#include <sys/stat.h>

namespace warren::remote {

namespace fs = std::filesystem;
using git::GitOutput;
using git::GitScratch;
using git::PatchFile;
using git::PatchSection;

namespace {

const char* describe(LocalState::Type type) {
    switch (type) {
    case LocalState::Type::File:
        return "a file";
    case LocalState::Type::Symlink:
        return "a symbolic link";
    case LocalState::Type::Directory:
        return "a directory";
    case LocalState::Type::Missing:
    case LocalState::Type::Other:
    case LocalState::Type::BeyondSymlink:
    case LocalState::Type::UnderFile:
        break;
    }
    return "something other than a file, a link or a directory";
}

} // namespace

std::optional<std::string> conflictReason(const ManifestEntry* uploaded, const LocalState& local) {
    using Type = LocalState::Type;
    if (local.type == Type::BeyondSymlink)
        return std::string("a directory on its path is a symbolic link here");
    if (local.type == Type::UnderFile)
        return "\"" + local.blockedBy + "\" is a file here, where the patch needs a directory";
    if (uploaded == nullptr) {
        if (local.type == Type::Missing)
            return std::nullopt;
        return std::string("exists here but was not part of the upload (created since, or left out as "
                           "ignored)");
    }
    if (local.type == Type::Missing)
        return std::string("was deleted here since the upload");
    const bool wasFile = uploaded->type == ManifestEntry::Type::File;
    const Type expected = wasFile ? Type::File : Type::Symlink;
    if (local.type != expected)
        return std::string("is ") + describe(local.type) + " here but was " + describe(expected) +
               " in the upload";
    if (!wasFile) {
        if (uploaded->target.empty()) // known only by the patch's blob id
            return std::string("the symbolic link was changed here since the upload");
        if (local.target != uploaded->target)
            return "the symbolic link was changed here since the upload (it points to \"" + local.target +
                   "\", not \"" + uploaded->target + "\")";
        return std::nullopt;
    }
    if (local.sha256 != uploaded->sha256)
        return std::string("was changed here since the upload");
    if (local.executable != uploaded->executable)
        return std::string("its executable bit was changed here since the upload");
    return std::nullopt;
}

Result<LocalState> readLocalState(const fs::path& workspace, const std::string& path) {
    LocalState state;
    // Each directory on the way is looked at without following it: a link there would take the patch
    // (and this hash) outside the workspace.
    for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        struct stat info {};
        if (::lstat((workspace / path.substr(0, slash)).c_str(), &info) != 0)
            return state; // missing on the way: the path is missing
        if (S_ISLNK(info.st_mode)) {
            state.type = LocalState::Type::BeyondSymlink;
            return state;
        }
        if (!S_ISDIR(info.st_mode)) {
            // git apply --check does not see this one: it fails only when it writes, part-way through.
            state.type = LocalState::Type::UnderFile;
            state.blockedBy = path.substr(0, slash);
            return state;
        }
    }
    const fs::path full = workspace / path;
    struct stat info {};
    if (::lstat(full.c_str(), &info) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return state;
        return makeError(ErrorCode::System,
                         "cannot look at \"" + path + "\" in the workspace: " + std::strerror(errno));
    }
    if (S_ISREG(info.st_mode)) {
        state.type = LocalState::Type::File;
        state.executable = (info.st_mode & S_IXUSR) != 0;
        auto hash = fileSha256(full, path);
        if (!hash)
            return hash.error();
        state.sha256 = std::move(*hash);
    } else if (S_ISLNK(info.st_mode)) {
        state.type = LocalState::Type::Symlink;
        std::error_code error;
        state.target = fs::read_symlink(full, error).string();
        if (error)
            return makeError(ErrorCode::System, "cannot read the symbolic link \"" + path +
                                                    "\" in the workspace: " + error.message());
    } else {
        state.type = S_ISDIR(info.st_mode) ? LocalState::Type::Directory : LocalState::Type::Other;
    }
    return state;
}

namespace {

// One path the patch touches: its file and every section that touches it (two for a type change).
struct Touched {
    PatchFile file;
    std::vector<std::string_view> sections;
};

std::vector<Touched> groupByPath(const std::vector<PatchSection>& sections,
                                 const std::vector<PatchFile>& files) {
    std::vector<Touched> touched;
    for (const auto& file : files)
        touched.push_back({file, {}});
    for (const auto& section : sections)
        for (auto& each : touched)
            if (each.file.path == section.file.path)
                each.sections.push_back(section.text);
    return touched;
}

Status writePatchFile(const fs::path& file, const std::vector<const Touched*>& files) {
    const UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    bool written = fd.valid();
    for (const Touched* each : files)
        for (const auto section : each->sections)
            written = written && writeAll(fd.get(), section);
    if (!written)
        return makeError(ErrorCode::System,
                         std::string("cannot write the patch to a scratch file: ") + std::strerror(errno));
    return Ok{};
}

// git apply's first complaint, without its "error: " prefix: what the user reads as the reason.
std::string firstComplaint(const std::string& err) {
    std::string line = err.substr(0, std::min(err.find('\n'), err.size()));
    if (line.starts_with("error: "))
        line.erase(0, 7);
    return line.empty() ? std::string("git apply refused it") : line;
}

class Applier {
public:
    Applier(const fs::path& workspace, const GitScratch& git) : m_workspace(workspace), m_git(git) {}

    // git apply (--check only when check) of files' sections.
    Result<GitOutput> apply(const std::vector<const Touched*>& files, bool check) const {
        const fs::path patchFile = m_git.path() / "task.patch";
        if (auto written = writePatchFile(patchFile, files); !written)
            return written.error();
        std::vector<std::string> args = {"--work-tree=" + m_workspace.string(), "apply", "--binary",
                                         "--whitespace=nowarn"};
        if (check)
            args.push_back("--check");
        args.push_back(patchFile.string());
        return m_git.run(m_workspace, args);
    }

private:
    fs::path m_workspace;
    const GitScratch& m_git;
};

// git's blob id of a regular file, read as it streams.
Result<std::string> fileBlobId(const fs::path& file, const std::string& name) {
    const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat info {};
    if (!fd.valid() || ::fstat(fd.get(), &info) != 0)
        return makeError(ErrorCode::System, "cannot read \"" + name + "\": " + std::strerror(errno));
    QCryptographicHash hash(QCryptographicHash::Sha1);
    hash.addData(QByteArray("blob ") + QByteArray::number(static_cast<qlonglong>(info.st_size)) +
                 QByteArray(1, '\0'));
    if (auto read = readChunks(fd.get(), name,
                               [&](const char* bytes, std::size_t size) {
                                   hash.addData(QByteArrayView(bytes, static_cast<qsizetype>(size)));
                               });
        !read)
        return read.error();
    return hash.result().toHex().toStdString();
}

constexpr std::uint32_t kExecutableMode = 0100755;
constexpr std::uint32_t kSymlinkMode = 0120000;

// What the upload held of each path the patch touches, as the patch tells it (its pre-images): the local
// path's own entry where its blob id and type are the pre-image's, an entry nothing local matches where
// they are not, and none for a file the patch creates. A section without an index line changes only the
// mode, which leaves the content as it is here: only the mode is compared. conflictReason then decides as
// with a manifest.
Result<WorkspaceManifest> manifestFromPreimages(const std::vector<Touched>& touched, const fs::path& workspace) {
    std::vector<ManifestEntry> entries;
    for (const auto& each : touched) {
        if (each.file.change == PatchFile::Change::Added)
            continue;
        std::optional<std::string> blob;
        for (const auto section : each.sections)
            if (!blob)
                blob = git::preimageBlob(section);
        ManifestEntry entry;
        entry.path = each.file.path;
        entry.type = each.file.oldMode == kSymlinkMode ? ManifestEntry::Type::Symlink : ManifestEntry::Type::File;
        entry.executable = each.file.oldMode == kExecutableMode;
        auto local = readLocalState(workspace, each.file.path);
        if (!local)
            return local.error();
        if (!blob && entry.type == ManifestEntry::Type::File && local->type == LocalState::Type::File) {
            entry.sha256 = local->sha256;
        } else if (blob && entry.type == ManifestEntry::Type::File && local->type == LocalState::Type::File) {
            auto id = fileBlobId(workspace / each.file.path, each.file.path);
            if (!id)
                return id.error();
            if (*id == *blob)
                entry.sha256 = local->sha256;
        } else if (blob && entry.type == ManifestEntry::Type::Symlink && local->type == LocalState::Type::Symlink &&
                   gitBlobId(local->target) == *blob) {
            entry.target = local->target;
        }
        entries.push_back(std::move(entry));
    }
    return WorkspaceManifest(std::move(entries));
}

struct Planned {
    PatchPlan plan;
    std::vector<const Touched*> apply;
};

Result<Planned> plan(const std::vector<Touched>& touched, const fs::path& workspace,
                     const WorkspaceManifest& manifest, const Applier& applier) {
    Planned planned;
    std::set<std::string> deleted; // a file the patch deletes may stand where it creates a directory
    for (const auto& each : touched)
        if (each.file.change == PatchFile::Change::Deleted)
            deleted.insert(each.file.path);
    for (const auto& each : touched) {
        auto local = readLocalState(workspace, each.file.path);
        if (!local)
            return local.error();
        if (local->type == LocalState::Type::UnderFile && deleted.contains(local->blockedBy))
            local->type = LocalState::Type::Missing;
        if (auto reason = conflictReason(manifest.find(each.file.path), *local))
            planned.plan.conflicts.push_back({each.file.path, std::move(*reason)});
        else
            planned.apply.push_back(&each);
    }
    if (!planned.apply.empty()) {
        auto checked = applier.apply(planned.apply, true);
        if (!checked)
            return checked.error();
        if (checked->status != 0) {
            // Which files git refuses, each on its own; the others are checked together again below.
            std::vector<const Touched*> accepted;
            for (const Touched* each : planned.apply) {
                auto alone = applier.apply({each}, true);
                if (!alone)
                    return alone.error();
                if (alone->status == 0)
                    accepted.push_back(each);
                else
                    planned.plan.conflicts.push_back(
                        {each->file.path, "git apply cannot apply it here: " + firstComplaint(alone->err)});
            }
            planned.apply = std::move(accepted);
            if (!planned.apply.empty()) {
                auto again = applier.apply(planned.apply, true);
                if (!again)
                    return again.error();
                if (again->status != 0)
                    return makeError(ErrorCode::System,
                                     "git apply accepts each file of the patch alone but not "
                                     "together: " +
                                         firstComplaint(again->err) + "; nothing was applied");
            }
        }
    }
    for (const Touched* each : planned.apply)
        planned.plan.apply.push_back(each->file);
    std::sort(planned.plan.conflicts.begin(), planned.plan.conflicts.end(),
              [](const PatchConflict& a, const PatchConflict& b) { return a.path < b.path; });
    return planned;
}

struct Prepared {
    std::vector<PatchSection> sections;
    std::vector<Touched> touched;
    fs::path workspace;
};

Result<Prepared> prepare(std::string_view patch, const fs::path& workspace) {
    Prepared prepared;
    std::error_code error;
    prepared.workspace = fs::canonical(workspace, error);
    if (error || !fs::is_directory(prepared.workspace, error))
        return makeError(ErrorCode::NotFound,
                         "the workspace \"" + workspace.string() + "\" is not a directory that can be read");
    auto sections = git::splitPatch(patch);
    if (!sections)
        return sections.error();
    auto files = git::patchFiles(patch);
    if (!files)
        return files.error();
    prepared.sections = std::move(*sections);
    prepared.touched = groupByPath(prepared.sections, *files);
    return prepared;
}

} // namespace

std::string gitBlobId(std::string_view content) {
    QCryptographicHash hash(QCryptographicHash::Sha1);
    hash.addData(QByteArray("blob ") + QByteArray::number(static_cast<qulonglong>(content.size())) +
                 QByteArray(1, '\0'));
    hash.addData(QByteArrayView(content.data(), static_cast<qsizetype>(content.size())));
    return hash.result().toHex().toStdString();
}

namespace {

// The patch read once; against the upload's manifest, or without one against the patch's own pre-images;
// planned, and applied when apply is set.
Result<PatchPlan> planOrApply(std::string_view patch, const fs::path& workspace, const WorkspaceManifest* uploaded,
                              const ApplyOptions& options, bool apply) {
    auto prepared = prepare(patch, workspace);
    if (!prepared)
        return prepared.error();
    std::optional<WorkspaceManifest> fromPreimages;
    if (!uploaded) {
        auto derived = manifestFromPreimages(prepared->touched, prepared->workspace);
        if (!derived)
            return derived.error();
        fromPreimages = std::move(*derived);
    }
    const WorkspaceManifest& manifest = uploaded ? *uploaded : *fromPreimages;
    auto git = GitScratch::create(options.git);
    if (!git)
        return git.error();
    const Applier applier(prepared->workspace, *git);
    auto planned = plan(prepared->touched, prepared->workspace, manifest, applier);
    if (!planned)
        return planned.error();
    if (!apply || planned->apply.empty())
        return std::move(planned->plan);
    auto applied = applier.apply(planned->apply, false);
    if (!applied)
        return applied.error();
    if (applied->status != 0)
        return makeError(ErrorCode::System,
                         "git apply failed after its check passed: " + firstComplaint(applied->err) +
                             "; look at the workspace before applying again");
    return std::move(planned->plan);
}

} // namespace

Result<PatchPlan> planPatch(std::string_view patch, const fs::path& workspace, const ApplyOptions& options) {
    return planOrApply(patch, workspace, nullptr, options, false);
}

Result<PatchPlan> applyPatch(std::string_view patch, const fs::path& workspace, const ApplyOptions& options) {
    return planOrApply(patch, workspace, nullptr, options, true);
}

Result<PatchPlan> planPatch(std::string_view patch, const fs::path& workspace,
                            const WorkspaceManifest& manifest, const ApplyOptions& options) {
    return planOrApply(patch, workspace, &manifest, options, false);
}

Result<PatchPlan> applyPatch(std::string_view patch, const fs::path& workspace,
                             const WorkspaceManifest& manifest, const ApplyOptions& options) {
    return planOrApply(patch, workspace, &manifest, options, true);
}

} // namespace warren::remote
