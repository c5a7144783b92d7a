#include "agent_core/tools/ApplyPatchTool.h"

#include "agent_core/tools/PatchFormat.h"
#include "agent_core/tools/PatchHunks.h"
#include "agent_core/tools/ReadFileTool.h"
#include "agent_core/tools/ToolArguments.h"
#include "agent_core/tools/WorkspacePath.h"
#include "agent_core/tools/WriteFileTool.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::agent {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// One file of the patch, planned: everything read and computed, nothing written yet.
struct PlannedFile {
    PatchOpKind kind = PatchOpKind::Update;
    fs::path source;                    // the file as it is (for Add: the file to create)
    std::string sourceShown;
    fs::path target;                    // where the new content goes; == source unless moved
    std::string targetShown;
    std::optional<std::string> before;  // the content replaced or deleted; nullopt for Add
    struct stat status {};              // of source when it exists
    std::optional<std::string> after;   // the new content; nullopt for Delete
    std::vector<HunkMatch> matches;     // Update: how each hunk matched
    std::size_t patchLine = 0;

    bool moved() const { return target != source; }
};

Error systemError(const std::string& what) {
    return makeError(ErrorCode::System, what + ": " + std::strerror(errno));
}

// A file about to be deleted, whole and as bytes (it may be binary), so a failed patch can put it back.
Result<std::string> readForDelete(const fs::path& path, const std::string& shown, struct stat& status) {
    if (::lstat(path.c_str(), &status) != 0)
        return errno == ENOENT || errno == ENOTDIR
                   ? makeError(ErrorCode::NotFound, shown + " does not exist; nothing to delete")
                   : systemError("cannot read " + shown);
    if (!S_ISREG(status.st_mode))
        return makeError(ErrorCode::InvalidArgument,
                         shown + (S_ISDIR(status.st_mode) ? " is a directory" : " is not a regular file") +
                             "; *** Delete File deletes a file");
    if (static_cast<std::uint64_t>(status.st_size) > ApplyPatchTool::kMaxFileBytes)
        return makeError(ErrorCode::InvalidArgument,
                         shown + " is larger than 16 MiB; delete it with a shell command");
    // Read as it is opened: a file swapped since the look above is refused, not followed.
    auto file = readWholeFile(path, shown, ApplyPatchTool::kMaxFileBytes);
    if (!file)
        return file.error();
    status = file->status;
    return std::move(file->content);
}

// A path must not exist yet (a file to add, a move's target).
Status checkAbsent(const fs::path& path, const std::string& shown, const std::string& hint) {
    struct stat status {};
    if (::lstat(path.c_str(), &status) == 0)
        return makeError(ErrorCode::InvalidArgument, shown + " already exists; " + hint);
    if (errno != ENOENT && errno != ENOTDIR)
        return systemError("cannot look at " + shown);
    return Ok{};
}

Result<PlannedFile> plan(const PatchOp& op, const ToolEnv& env) {
    PlannedFile file;
    file.kind = op.kind;
    file.patchLine = op.line;
    auto resolved = resolveInWorkspace(env.workspace, op.path);
    if (!resolved)
        return makeError(resolved.error().code, "patch line " + std::to_string(op.line) + ": " +
                                                    resolved.error().message);
    file.source = file.target = *resolved;
    file.sourceShown = file.targetShown = relativeToWorkspace(env.workspace, *resolved);
    switch (op.kind) {
    case PatchOpKind::Add:
        if (auto absent = checkAbsent(file.source, file.sourceShown,
                                      "change it with *** Update File, or replace it whole with write_file");
            !absent)
            return absent.error();
        file.after = op.content;
        return file;
    case PatchOpKind::Delete: {
        auto content = readForDelete(file.source, file.sourceShown, file.status);
        if (!content)
            return content.error();
        file.before = std::move(content).value();
        return file;
    }
    case PatchOpKind::Update:
        break;
    }
    auto text = readTextFile(file.source, file.sourceShown, ApplyPatchTool::kMaxFileBytes);
    if (!text)
        return makeError(text.error().code,
                         text.error().message +
                             (text.error().code == ErrorCode::NotFound ? " (*** Add File creates a file)" : ""));
    file.status = text->status;
    if (auto replaceable = checkReplaceable(file.source, file.sourceShown, file.status); !replaceable)
        return replaceable.error();
    auto patched = applyHunks(text->content, op.hunks, file.sourceShown);
    if (!patched)
        return patched.error();
    file.before = std::move(text->content);
    file.after = std::move(patched->text);
    file.matches = std::move(patched->matches);
    if (!op.moveTo.empty()) {
        auto target = resolveInWorkspace(env.workspace, op.moveTo);
        if (!target)
            return makeError(target.error().code, "patch line " + std::to_string(op.line) +
                                                      ": *** Move to: " + target.error().message);
        if (*target != file.source) {
            file.target = *target;
            file.targetShown = relativeToWorkspace(env.workspace, *target);
            if (auto absent = checkAbsent(file.target, file.targetShown,
                                          "*** Move to does not replace a file; delete it first");
                !absent)
                return absent.error();
        }
    }
    return file;
}

// The writes of a patch, each with how to undo it, so a failure part way leaves the workspace as it was.
class Commit {
public:
    explicit Commit(const fs::path& workspace) : m_workspace(workspace) {}

    Status apply(const PlannedFile& file) {
        if (file.kind == PatchOpKind::Delete)
            return remove(file.source, file.sourceShown, *file.before, file.status);
        if (file.kind == PatchOpKind::Add || file.moved()) {
            if (auto made = makeParents(file.target, file.targetShown); !made)
                return made;
            const struct stat* mode = file.kind == PatchOpKind::Add ? nullptr : &file.status;
            if (auto written = writeFileAtomically(file.target, file.targetShown, *file.after, mode); !written)
                return written;
            m_undo.push_back({file.target, std::nullopt, {}});
            if (file.kind == PatchOpKind::Add)
                return Ok{};
            return remove(file.source, file.sourceShown, *file.before, file.status);
        }
        if (auto written = writeFileAtomically(file.source, file.sourceShown, *file.after, &file.status); !written)
            return written;
        m_undo.push_back({file.source, file.before, file.status});
        return Ok{};
    }

    // Back to how the workspace was; the files that could not be restored, when some could not.
    std::vector<std::string> undo() {
        std::vector<std::string> failed;
        for (auto it = m_undo.rbegin(); it != m_undo.rend(); ++it) {
            const std::string shown = relativeToWorkspace(m_workspace, it->path);
            const bool ok = it->content
                                ? writeFileAtomically(it->path, shown, *it->content, &it->status).ok()
                                : (::unlink(it->path.c_str()) == 0 || errno == ENOENT);
            if (!ok)
                failed.push_back(shown);
        }
        for (auto it = m_madeDirectories.rbegin(); it != m_madeDirectories.rend(); ++it)
            ::rmdir(it->c_str());
        m_undo.clear();
        m_madeDirectories.clear();
        return failed;
    }

private:
    struct Undo {
        fs::path path;
        std::optional<std::string> content; // nullopt: the file was created, undo removes it
        struct stat status;
    };

    Status remove(const fs::path& path, const std::string& shown, const std::string& content,
                  const struct stat& status) {
        if (::unlink(path.c_str()) != 0)
            return systemError("cannot delete " + shown);
        m_undo.push_back({path, content, status});
        return Ok{};
    }

    // The missing directories above path, made and remembered (outermost first) so undo removes them.
    Status makeParents(const fs::path& path, const std::string& shown) {
        std::vector<fs::path> missing;
        for (fs::path dir = path.parent_path(); dir != m_workspace && dir.has_relative_path();
             dir = dir.parent_path()) {
            struct stat status {};
            if (::lstat(dir.c_str(), &status) == 0)
                break;
            missing.push_back(dir);
        }
        for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
            if (::mkdir(it->c_str(), 0777) != 0)
                return systemError("cannot create the directory for " + shown);
            m_madeDirectories.push_back(*it);
        }
        return Ok{};
    }

    fs::path m_workspace;
    std::vector<Undo> m_undo;
    std::vector<fs::path> m_madeDirectories;
};

const char* matchNote(HunkMatch how) {
    switch (how) {
    case HunkMatch::Exact:
        return nullptr;
    case HunkMatch::IgnoringTrailingBlanks:
        return "ignoring trailing whitespace";
    case HunkMatch::IgnoringBlanks:
        return "ignoring indentation and trailing whitespace";
    case HunkMatch::IgnoringPunctuation:
        return "reading typographic quotes and dashes as ASCII";
    }
    return nullptr;
}

std::string summary(const std::vector<PlannedFile>& files) {
    std::string out = "applied the patch:";
    for (const auto& file : files) {
        switch (file.kind) {
        case PatchOpKind::Add:
            out += "\nA " + file.targetShown;
            break;
        case PatchOpKind::Delete:
            out += "\nD " + file.sourceShown;
            break;
        case PatchOpKind::Update:
            out += "\nM " + file.sourceShown + (file.moved() ? " -> " + file.targetShown : "");
            break;
        }
        for (std::size_t i = 0; i < file.matches.size(); ++i)
            if (const char* note = matchNote(file.matches[i]))
                out += "\n  (its hunk " + std::to_string(i + 1) + " matched only " + note +
                       "; check the result)";
    }
    return out;
}

void report(const PlannedFile& file, const ToolEnv& env) {
    if (!env.onFileChanged)
        return;
    if (file.kind == PatchOpKind::Update && !file.moved()) {
        const FileDiff diff = diffFileChange(*file.before, *file.after, file.sourceShown);
        env.onFileChanged(file.sourceShown, FileChange::Modified, &diff);
        return;
    }
    if (file.before) {
        const FileDiff diff = diffFileChange(*file.before, std::nullopt, file.sourceShown);
        env.onFileChanged(file.sourceShown, FileChange::Deleted, &diff);
    }
    if (file.after) {
        const FileDiff diff = diffFileChange(std::nullopt, *file.after, file.targetShown);
        env.onFileChanged(file.targetShown, FileChange::Created, &diff);
    }
}

} // namespace

protocol::ToolSpec ApplyPatchTool::spec() {
    return {std::string(kName),
            "Add, delete, update or move workspace files with one patch: \"*** Begin Patch\", then per file "
            "\"*** Add File: PATH\" (its lines each starting with +), \"*** Delete File: PATH\" or \"*** Update "
            "File: PATH\" (optionally \"*** Move to: PATH\", then hunks: \"@@ a line near the change\", then "
            "lines starting with space for context, - removed, + added), then \"*** End Patch\". The whole "
            "patch applies or none of it.",
            json{{"type", "object"},
                 {"properties",
                  {{"input",
                    {{"type", "string"}, {"description", "The whole patch, from *** Begin Patch to *** End Patch"}}}}},
                 {"required", {"input"}},
                 {"additionalProperties", false}}};
}

ToolOutcome ApplyPatchTool::run(const json& arguments, const ToolEnv& env) {
    const std::string tool(kName);
    auto reader = ToolArguments::read(kName, arguments, {"input"});
    if (!reader)
        return failure(reader.error().message);
    auto input = reader->string("input");
    if (!input)
        return failure(input.error().message);
    auto patch = parsePatch(*input);
    if (!patch)
        return failure(tool + ": " + patch.error().message + "; no file was changed");

    std::vector<PlannedFile> files;
    for (const PatchOp& op : patch->ops) {
        auto planned = plan(op, env);
        if (!planned)
            return failure(tool + ": " + planned.error().message + "; no file was changed");
        files.push_back(std::move(planned).value());
    }

    Commit commit(env.workspace);
    for (const PlannedFile& file : files) {
        if (auto applied = commit.apply(file); !applied) {
            const auto failed = commit.undo();
            std::string restored = "the files written before it were restored; no file was changed";
            if (!failed.empty()) {
                restored = "these could not be restored and may be part-written:";
                for (const auto& shown : failed)
                    restored += " " + shown;
            }
            return failure(tool + ": " + applied.error().message + "; " + restored);
        }
    }

    ToolOutcome outcome;
    for (const PlannedFile& file : files) {
        report(file, env);
        if (file.after)
            outcome.bytesWritten += file.after->size();
    }
    outcome.output = summary(files);
    return outcome;
}

} // namespace warren::agent
