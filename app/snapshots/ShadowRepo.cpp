#include "app/snapshots/ShadowRepo.h"

#include "app/git/GitProcess.h"
#include "app/snapshots/WorkspaceWalk.h"
#include "common/FileText.h"
#include "common/UniqueFd.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::snapshots {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kMarker = "warren-shadow"; // written last when the repository is made
constexpr const char* kJournal = "rewind.json";

// Switches for every run: nothing of the user's git setup applies, nothing runs but git itself.
const std::vector<std::string>& switches() {
    static const std::vector<std::string> list = {"-c", "core.hooksPath=/dev/null",
                                                  "-c", "commit.gpgsign=false",
                                                  "-c", "core.fsmonitor=false",
                                                  "-c", "core.autocrlf=false",
                                                  "-c", "core.safecrlf=false",
                                                  "-c", "core.symlinks=true",
                                                  "-c", "core.filemode=true",
                                                  "-c", "core.ignorecase=false",
                                                  "-c", "core.quotepath=false",
                                                  "-c", "core.untrackedCache=false",
                                                  "-c", "core.splitIndex=false",
                                                  "-c", "index.sparse=false",
                                                  "-c", "gc.auto=0",
                                                  "-c", "maintenance.auto=false",
                                                  "-c", "submodule.recurse=false",
                                                  "-c", "advice.addEmbeddedRepo=false",
                                                  "-c", "diff.noprefix=false",
                                                  "-c", "color.ui=false"};
    return list;
}

Status writeWhole(const fs::path& path, const std::string& bytes) {
    const fs::path temporary = path.string() + ".tmp";
    if (auto written = writeFileText(temporary, bytes); !written)
        return written.error();
    std::error_code error;
    fs::rename(temporary, path, error);
    if (error)
        return makeError(ErrorCode::System, "cannot replace " + path.string() + ": " + error.message());
    return Ok{};
}

// A file that is missing or unreadable reads as empty: a repository being made has none of them yet.
std::string readWhole(const fs::path& path) {
    auto text = readFileText(path);
    return text ? std::move(*text) : std::string();
}

std::int64_t nowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

std::string joinNul(const std::vector<std::string>& paths) {
    std::string out;
    for (const auto& path : paths)
        out += path + '\0';
    return out;
}

// The user's repository at the workspace's top, when its objects can be borrowed: a .git directory of
// the SHA-1 format this shadow uses.
std::optional<fs::path> borrowableRepository(const fs::path& workspace) {
    const fs::path dotGit = workspace / ".git";
    struct stat st {};
    if (::lstat(dotGit.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !fs::is_directory(dotGit / "objects"))
        return std::nullopt;
    std::string config = readWhole(dotGit / "config");
    std::transform(config.begin(), config.end(), config.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (config.find("objectformat") != std::string::npos && config.find("sha256") != std::string::npos)
        return std::nullopt;
    return dotGit;
}

} // namespace

std::string stepRef(std::uint64_t step) {
    char number[21];
    std::snprintf(number, sizeof number, "%010llu", static_cast<unsigned long long>(step));
    return std::string("refs/warren/steps/") + number;
}

// flock on DIR/lock for one change of the repository; git's lock files found under it are a killed run's.
struct ShadowRepo::Lock {
    UniqueFd fd;
    static Result<Lock> take(const fs::path& dir) {
        const fs::path path = dir / "lock";
        UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
        if (!fd.valid())
            return makeError(ErrorCode::System, "cannot open " + path.string() + ": " + std::strerror(errno));
        while (::flock(fd.get(), LOCK_EX) != 0)
            if (errno != EINTR)
                return makeError(ErrorCode::System,
                                 "cannot lock " + path.string() + ": " + std::strerror(errno));
        return Lock{std::move(fd)};
    }
};

fs::path ShadowRepo::checkpointCopy(const fs::path& dir, std::uint64_t step) {
    return dir / "checkpoints" / (std::to_string(step) + ".json");
}

bool ShadowRepo::exists(const fs::path& dir) {
    return fs::exists(dir / kMarker);
}

Result<ShadowRepo> ShadowRepo::open(const fs::path& dir, const fs::path& workspace, Options options) {
    std::error_code error;
    const fs::path canonical = fs::canonical(workspace, error);
    if (error || !fs::is_directory(canonical))
        return makeError(ErrorCode::NotFound, "the workspace " + workspace.string() + " is not a directory");
    ShadowRepo repo(dir, canonical, std::move(options));
    if (exists(dir)) {
        if (auto kept = repo.keepHeldPaths(); !kept)
            return kept.error();
        return repo;
    }
    // Made aside and renamed into place: a repository killed half-made is never taken for one.
    fs::create_directories(dir.parent_path(), error);
    const fs::path building = dir.string() + ".new";
    fs::remove_all(building, error);
    auto init =
        git::runGit({repo.m_options.git, "init", "--bare", "--quiet", "--template=", building.string()},
                       building.parent_path());
    if (!init)
        return init.error();
    if (init->status != 0)
        return makeError(ErrorCode::System, "cannot create the snapshot repository: " + init->err);
    fs::create_directories(building / "info", error);
    if (auto written = writeWhole(building / "info" / "attributes", attributesFileText()); !written)
        return written.error();
    if (auto borrowed = borrowableRepository(canonical)) {
        fs::create_directories(building / "objects" / "info", error);
        if (auto written = writeWhole(building / "objects" / "info" / "alternates",
                                      (*borrowed / "objects").string() + "\n");
            !written)
            return written.error();
        // Read, never written: its stat data spares hashing every unchanged tracked file again.
        fs::copy_file(*borrowed / "index", building / "index", error);
        error.clear();
    }
    if (auto written = writeWhole(building / kMarker, canonical.string() + "\n"); !written)
        return written.error();
    fs::rename(building, dir, error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + dir.string() + ": " + error.message());
    if (auto kept = repo.keepHeldPaths(); !kept)
        return kept.error();
    return repo;
}

Status ShadowRepo::keepHeldPaths() {
    const fs::path file = m_dir / "held";
    auto& held = m_options.rules.heldPaths;
    if (held.empty()) {
        std::istringstream lines(readWhole(file));
        for (std::string line; std::getline(lines, line);)
            if (!line.empty())
                held.push_back(line);
        return Ok{};
    }
    std::string text;
    for (const auto& path : held)
        text += path + "\n";
    return text == readWhole(file) ? Status(Ok{}) : writeWhole(file, text);
}

Result<std::string> ShadowRepo::git(const std::vector<std::string>& args, const std::string& index,
                                    const std::string& input) const {
    std::vector<std::string> argv = {m_options.git};
    argv.insert(argv.end(), switches().begin(), switches().end());
    argv.insert(argv.end(), {"-C", m_workspace.string(), "--git-dir=" + m_dir.string(),
                             "--work-tree=" + m_workspace.string()});
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = {"GIT_INDEX_FILE=" + (m_dir / (index.empty() ? "index" : index)).string(),
                                    "GIT_AUTHOR_NAME=Warren", "GIT_AUTHOR_EMAIL=warren@localhost",
                                    "GIT_COMMITTER_NAME=Warren", "GIT_COMMITTER_EMAIL=warren@localhost"};
    fs::path stdinFile;
    if (!input.empty()) {
        stdinFile = m_dir / ("input-" + std::to_string(::getpid()));
        if (auto written = writeWhole(stdinFile, input); !written)
            return written.error();
    }
    auto run = git::runGit(std::move(argv), m_dir, env, stdinFile);
    if (!stdinFile.empty()) {
        std::error_code ignored;
        fs::remove(stdinFile, ignored);
    }
    if (!run)
        return run.error();
    if (run->status != 0)
        return makeError(ErrorCode::System, "git " + (args.empty() ? "" : args[0]) +
                                                " failed in the snapshot " + "repository " + m_dir.string() +
                                                ": " + run->err);
    return std::move(run->out);
}

void ShadowRepo::removeStaleLocks() const {
    std::error_code ignored;
    for (const char* name : {"index.lock", "rewind.index.lock", "fork.index.lock", "packed-refs.lock",
                             "HEAD.lock", "config.lock"})
        fs::remove(m_dir / name, ignored);
    for (auto it = fs::recursive_directory_iterator(m_dir / "refs", ignored);
         it != fs::recursive_directory_iterator(); it.increment(ignored))
        if (it->path().extension() == ".lock")
            fs::remove(it->path(), ignored);
}

Result<Snapshot> ShadowRepo::snapshot(SnapshotMeta::Kind kind, std::uint64_t step) {
    auto lock = Lock::take(m_dir);
    if (!lock)
        return lock.error();
    removeStaleLocks();
    if (kind == SnapshotMeta::Kind::Present)
        return record(kind, step, "refs/warren/present");
    return record(kind, step, kind == SnapshotMeta::Kind::Undo ? std::string() : stepRef(step));
}

Result<Snapshot> ShadowRepo::record(SnapshotMeta::Kind kind, std::uint64_t step,
                                    const std::string& givenRef) {
    const SnapshotRules& rules = m_options.rules;
    if (auto written = writeWhole(m_dir / "info" / "exclude", excludeFileText(rules, {}, {})); !written)
        return written.error();
    // What git ignores is not walked, and is listed as skipped.
    auto ignoredOut = git({"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"});
    if (!ignoredOut)
        return ignoredOut.error();
    std::set<std::string> ignored;
    std::vector<std::string> skippedDirs;
    for (auto& path : splitNul(*ignoredOut)) {
        if (!path.empty() && path.back() == '/') {
            path.pop_back();
            skippedDirs.push_back(path);
        }
        ignored.insert(path);
    }
    auto walked = walkWorkspace(m_workspace, rules, ignored);
    if (!walked)
        return walked.error();

    // Nested repositories: a file of each recorded first makes git walk it as a directory; one with nothing
    // to record is left out, or git would record it as a commit id.
    std::vector<std::string> unseeded, seeds, nestedRoots;
    for (const auto& nested : walked->nested) {
        nestedRoots.push_back(nested.root);
        if (nested.seed)
            seeds.push_back(*nested.seed);
        else
            unseeded.push_back(nested.root);
    }
    if (auto written =
            writeWhole(m_dir / "info" / "exclude", excludeFileText(rules, walked->largeFiles, unseeded));
        !written)
        return written.error();
    if (!nestedRoots.empty()) {
        if (auto removed = git({"update-index", "-z", "--force-remove", "--stdin"}, {}, joinNul(nestedRoots));
            !removed)
            return removed.error();
        if (!seeds.empty())
            if (auto added = git({"update-index", "-z", "--add", "--stdin"}, {}, joinNul(seeds)); !added)
                return added.error();
    }
    auto added = git({"add", "--all"});
    if (!added) {
        // A seeded index git cannot read (the user's, in a format of its own): start from an empty one.
        std::error_code ignoredError;
        fs::remove(m_dir / "index", ignoredError);
        if (!seeds.empty())
            (void)git({"update-index", "-z", "--add", "--stdin"}, {}, joinNul(seeds));
        added = git({"add", "--all"});
        if (!added)
            return added.error();
    }
    auto tree = git({"write-tree"});
    if (!tree)
        return tree.error();

    SnapshotMeta meta;
    meta.kind = kind;
    meta.step = step;
    meta.takenAtMs = nowMs();
    meta.emptyDirs = walked->emptyDirs;
    std::sort(meta.emptyDirs.begin(), meta.emptyDirs.end());
    meta.skippedLarge = walked->largeFiles;
    meta.skippedDirs = walked->dependencyDirs;
    meta.skippedDirs.insert(meta.skippedDirs.end(), skippedDirs.begin(), skippedDirs.end());
    std::sort(meta.skippedDirs.begin(), meta.skippedDirs.end());
    meta.skippedDirs.erase(std::unique(meta.skippedDirs.begin(), meta.skippedDirs.end()),
                           meta.skippedDirs.end());

    // Without parents: a pruned snapshot's objects are then held by nothing.
    auto commit = git({"commit-tree", trimmed(*tree), "-F", "-"}, {}, toCommitMessage(meta));
    if (!commit)
        return commit.error();
    std::string ref = givenRef;
    if (ref.empty()) {
        auto undo =
            git({"for-each-ref", "--count=1", "--sort=-refname", "--format=%(refname)", "refs/warren/undo/"});
        std::uint64_t next = 1;
        if (undo && !trimmed(*undo).empty())
            next = std::stoull(trimmed(*undo).substr(std::string("refs/warren/undo/").size())) + 1;
        char number[21];
        std::snprintf(number, sizeof number, "%010llu", static_cast<unsigned long long>(next));
        ref = std::string("refs/warren/undo/") + number;
    }
    const std::string id = trimmed(*commit);
    if (auto updated = git({"update-ref", ref, id}); !updated)
        return updated.error();
    return Snapshot{ref, id, std::move(meta)};
}

Result<Snapshot> ShadowRepo::readSnapshot(const std::string& ref) const {
    auto out = git({"log", "-1", "--format=%H%x00%B", ref, "--"});
    if (!out)
        return out.error();
    const auto nul = out->find('\0');
    if (nul == std::string::npos)
        return makeError(ErrorCode::System, "cannot read the snapshot " + ref);
    auto meta = fromCommitMessage(std::string_view(*out).substr(nul + 1));
    if (!meta)
        return meta.error();
    return Snapshot{ref, out->substr(0, nul), std::move(*meta)};
}

Result<std::vector<Snapshot>> ShadowRepo::list() const {
    auto refs = git(
        {"for-each-ref", "--sort=refname", "--format=%(refname)", "refs/warren/steps/", "refs/warren/undo/"});
    if (!refs)
        return refs.error();
    std::vector<Snapshot> snapshots;
    std::istringstream lines(*refs);
    for (std::string ref; std::getline(lines, ref);) {
        auto snapshot = readSnapshot(ref);
        if (!snapshot)
            return snapshot.error();
        snapshots.push_back(std::move(*snapshot));
    }
    return snapshots;
}

Result<Snapshot> ShadowRepo::beforeStep(std::uint64_t step) const {
    if (auto found = readSnapshot(stepRef(step)))
        return found;
    auto all = list();
    if (!all)
        return all.error();
    std::string steps;
    for (const auto& snapshot : *all)
        if (snapshot.meta.kind != SnapshotMeta::Kind::Undo)
            steps += (steps.empty() ? "" : ", ") + std::to_string(snapshot.meta.step);
    return makeError(
        ErrorCode::NotFound,
        "no snapshot before step " + std::to_string(step) +
            (steps.empty() ? "; the task has none" : "; there are snapshots before steps " + steps));
}

Result<std::string> ShadowRepo::diff(const Snapshot& from, const Snapshot& to,
                                     const std::vector<std::string>& paths) const {
    std::vector<std::string> args = {"diff",       "--no-ext-diff", "--no-textconv", "--no-renames",
                                     "--no-color", from.commit,     to.commit,       "--"};
    args.insert(args.end(), paths.begin(), paths.end());
    return git(args);
}

Result<std::vector<TreeChange>> ShadowRepo::changes(const Snapshot& from, const Snapshot& to) const {
    auto out = git({"diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-abbrev", from.commit, to.commit});
    if (!out)
        return out.error();
    return parseRawDiff(*out);
}

Result<RewindPlan> ShadowRepo::plan(const Snapshot& now, const Snapshot& target,
                                    const std::vector<std::string>& onlyPaths) const {
    auto changed = changes(now, target);
    if (!changed)
        return changed.error();
    auto listed = git({"ls-tree", "-r", "-z", "--name-only", target.commit});
    if (!listed)
        return listed.error();
    return planRewind(*changed, splitNul(*listed), now.meta.emptyDirs, target.meta.emptyDirs, onlyPaths);
}

Result<Snapshot> ShadowRepo::present() {
    auto lock = Lock::take(m_dir);
    if (!lock)
        return lock.error();
    removeStaleLocks();
    return record(SnapshotMeta::Kind::Present, 0, "refs/warren/present");
}

Result<RewindPlan> ShadowRepo::previewRewind(const Snapshot& target,
                                             const std::vector<std::string>& onlyPaths) {
    auto lock = Lock::take(m_dir);
    if (!lock)
        return lock.error();
    removeStaleLocks();
    auto now = record(SnapshotMeta::Kind::Present, 0, "refs/warren/present");
    if (!now)
        return now.error();
    return plan(*now, target, onlyPaths);
}

std::optional<std::string> ShadowRepo::interruptedRewind() const {
    const json journal = json::parse(readWhole(m_dir / kJournal), nullptr, false);
    if (!journal.is_object() || !journal.contains("target_ref"))
        return std::nullopt;
    return journal["target_ref"].get<std::string>();
}

Result<RewindResult> ShadowRepo::rewind(const Snapshot& target, const std::vector<std::string>& onlyPaths) {
    auto lock = Lock::take(m_dir);
    if (!lock)
        return lock.error();
    removeStaleLocks();
    // A rewind killed half-way left its journal: its undo snapshot is the workspace as it was before it,
    // which this one keeps as its own.
    std::optional<Snapshot> undo;
    const json journal = json::parse(readWhole(m_dir / kJournal), nullptr, false);
    if (journal.is_object() && journal.contains("undo_ref"))
        if (auto earlier = readSnapshot(journal["undo_ref"].get<std::string>()))
            undo = std::move(*earlier);
    auto now = undo ? record(SnapshotMeta::Kind::Present, 0, "refs/warren/present")
                    : record(SnapshotMeta::Kind::Undo, 0, "");
    if (!now)
        return now.error();
    if (!undo)
        undo = *now;
    auto planned = plan(*now, target, onlyPaths);
    if (!planned)
        return planned.error();
    if (auto written = writeWhole(m_dir / kJournal,
                                  json{{"target_ref", target.ref}, {"undo_ref", undo->ref}}.dump() + "\n");
        !written)
        return written.error();
    if (auto applied = apply(*planned, target); !applied)
        return applied.error();
    std::error_code ignored;
    fs::remove(m_dir / kJournal, ignored);
    return RewindResult{std::move(*planned), std::move(*undo)};
}

Status ShadowRepo::apply(const RewindPlan& plan, const Snapshot& target) {
    std::error_code error;
    for (const auto& path : plan.deletions()) {
        fs::remove(m_workspace / path, error); // a file or a link; never a directory's contents
        if (error && error != std::errc::no_such_file_or_directory && error != std::errc::directory_not_empty)
            return makeError(ErrorCode::System, "cannot remove " + path + ": " + error.message());
    }
    for (const auto& dir : plan.pruneDirs)
        ::rmdir((m_workspace / dir).c_str()); // stays when something skipped is in it
    const auto writes = plan.writes();
    if (!writes.empty()) {
        // From an index of the target's own, so the snapshots' index keeps the workspace's stat data.
        if (auto read = git({"read-tree", target.commit}, "rewind.index"); !read)
            return read.error();
        if (auto checkedOut = git({"checkout-index", "-f", "-z", "--stdin"}, "rewind.index", joinNul(writes));
            !checkedOut)
            return checkedOut.error();
        fs::remove(m_dir / "rewind.index", error);
    }
    for (const auto& dir : plan.createDirs) {
        fs::create_directories(m_workspace / dir, error);
        if (error)
            return makeError(ErrorCode::System,
                             "cannot create the directory " + dir + ": " + error.message());
    }
    // As root, what was written goes to whoever owns the workspace (the uid a sandbox writes as may differ
    // from ours), so the task can change it again.
    struct stat root {};
    if (::geteuid() == 0 && ::stat(m_workspace.c_str(), &root) == 0 && root.st_uid != 0) {
        std::vector<std::string> touched = writes;
        touched.insert(touched.end(), plan.createDirs.begin(), plan.createDirs.end());
        for (const auto& dir : ancestorDirs(touched))
            touched.push_back(dir);
        for (const auto& path : touched) {
            struct stat st {};
            const fs::path full = m_workspace / path;
            if (::lstat(full.c_str(), &st) == 0 && st.st_uid == 0 &&
                ::lchown(full.c_str(), root.st_uid, root.st_gid) != 0)
                return makeError(ErrorCode::System, "rewound " + path + ", but cannot give it to uid " +
                                                        std::to_string(root.st_uid) +
                                                        ", who owns the workspace: " + std::strerror(errno));
        }
    }
    return Ok{};
}

Status ShadowRepo::copyTo(const Snapshot& target, const fs::path& dest) {
    auto lock = Lock::take(m_dir);
    if (!lock)
        return lock.error();
    removeStaleLocks();
    std::error_code error;
    if (!fs::is_directory(dest, error) || !fs::is_empty(dest, error))
        return makeError(ErrorCode::InvalidArgument, dest.string() + " is not an empty directory");
    // The same repository with dest as its work tree, from an index of its own: the snapshots' index keeps
    // the workspace's stat data.
    const ShadowRepo there(m_dir, dest, m_options);
    if (auto read = there.git({"read-tree", target.commit}, "fork.index"); !read)
        return read.error();
    if (auto checkedOut = there.git({"checkout-index", "-a", "-f"}, "fork.index"); !checkedOut)
        return checkedOut.error();
    fs::remove(m_dir / "fork.index", error);
    for (const auto& dir : target.meta.emptyDirs) {
        fs::create_directories(dest / dir, error);
        if (error)
            return makeError(ErrorCode::System,
                             "cannot create the directory " + dir + ": " + error.message());
    }
    return Ok{};
}

Status ShadowRepo::adopt(const ShadowRepo& from, std::uint64_t upToStep) {
    auto theirs = from.list();
    if (!theirs)
        return theirs.error();
    std::vector<std::string> args = {"fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
                                     from.dir().string()};
    for (const auto& snapshot : *theirs)
        if (snapshot.meta.kind == SnapshotMeta::Kind::Step && snapshot.meta.step <= upToStep)
            args.push_back(snapshot.ref + ":" + snapshot.ref);
    if (args.size() == 5)
        return Ok{};
    auto lock = Lock::take(m_dir);
    if (!lock)
        return lock.error();
    removeStaleLocks();
    if (auto fetched = git(args); !fetched)
        return fetched.error();
    return Ok{};
}

Status ShadowRepo::prune() {
    auto lock = Lock::take(m_dir);
    if (!lock)
        return lock.error();
    removeStaleLocks();
    auto refs = git({"for-each-ref", "--sort=refname", "--format=%(refname)", "refs/warren/steps/"});
    if (!refs)
        return refs.error();
    std::vector<std::string> steps;
    std::istringstream lines(*refs);
    for (std::string ref; std::getline(lines, ref);)
        steps.push_back(ref);
    if (steps.size() <= m_options.keepSteps + 1)
        return Ok{};
    std::string deletions;
    for (std::size_t i = 1; i + m_options.keepSteps < steps.size(); ++i)
        deletions += "delete " + steps[i] + '\0' + '\0';
    if (auto deleted = git({"update-ref", "--stdin", "-z"}, {}, deletions); !deleted)
        return deleted.error();
    // Snapshots have no parents and reflogs are off: what only the dropped ones held is unreachable now.
    if (auto pruned = git({"prune", "--expire=now"}); !pruned)
        return pruned.error();
    return Ok{};
}

} // namespace warren::snapshots
