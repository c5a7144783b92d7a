#include "app/snapshots/ConversationUndo.h"

#include "common/FileText.h"

#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::snapshots {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// "refs/warren/undo/0000000003" -> SNAPSHOTS/undo/0000000003
fs::path base(const fs::path& snapshotsDir, const std::string& undoRef) {
    return snapshotsDir / "undo" / fs::path(undoRef).filename();
}

fs::path recordPath(const fs::path& snapshotsDir, const std::string& undoRef) {
    return base(snapshotsDir, undoRef).string() + ".json";
}

fs::path checkpointPath(const fs::path& snapshotsDir, const std::string& undoRef) {
    return base(snapshotsDir, undoRef).string() + ".checkpoint.json";
}

// Copied aside, given to dest's directory's owner (the agent replaces it), renamed into place.
Status copyAtomically(const fs::path& from, const fs::path& to) {
    std::error_code error;
    const fs::path temporary = to.string() + ".tmp";
    fs::copy_file(from, temporary, fs::copy_options::overwrite_existing, error);
    struct stat dir {};
    if (!error && ::stat(to.parent_path().c_str(), &dir) == 0 &&
        ::chown(temporary.c_str(), dir.st_uid, dir.st_gid) != 0)
        error = std::error_code(errno, std::generic_category());
    if (!error)
        fs::rename(temporary, to, error);
    if (error)
        return makeError(ErrorCode::System,
                         "cannot copy " + from.string() + " to " + to.string() + ": " + error.message());
    return Ok{};
}

} // namespace

Status keepForUndo(const fs::path& snapshotsDir, const std::string& undoRef, const KeptConversation& kept,
                   const fs::path& checkpoint) {
    std::error_code error;
    fs::create_directories(snapshotsDir / "undo", error);
    if (error)
        return makeError(ErrorCode::System,
                         "cannot create " + (snapshotsDir / "undo").string() + ": " + error.message());
    const bool hadCheckpoint = kept.conversation && fs::exists(checkpoint, error);
    if (hadCheckpoint)
        if (auto copied = copyAtomically(checkpoint, checkpointPath(snapshotsDir, undoRef)); !copied)
            return copied;
    const json record = {{"files", kept.files},
                         {"conversation", kept.conversation},
                         {"had_checkpoint", hadCheckpoint},
                         {"task", kept.taskState}};
    const fs::path path = recordPath(snapshotsDir, undoRef);
    const fs::path temporary = path.string() + ".tmp";
    if (auto written = writeFileText(temporary, record.dump() + "\n"); !written)
        return written.error();
    fs::rename(temporary, path, error);
    if (error)
        return makeError(ErrorCode::System, "cannot write " + path.string() + ": " + error.message());
    return Ok{};
}

Result<std::optional<KeptConversation>> keptForUndo(const fs::path& snapshotsDir,
                                                    const std::string& undoRef) {
    const fs::path path = recordPath(snapshotsDir, undoRef);
    std::error_code error;
    if (!fs::exists(path, error))
        return std::optional<KeptConversation>{};
    const auto text = readFileText(path);
    const json record = text ? json::parse(*text, nullptr, false) : json();
    if (!record.is_object() || !record.value("files", json()).is_boolean() ||
        !record.value("conversation", json()).is_boolean())
        return makeError(ErrorCode::System, path.string() +
                                                " is not what a rewind keeps for its undo; remove "
                                                "it to undo the files alone");
    KeptConversation kept;
    kept.files = record["files"].get<bool>();
    kept.conversation = record["conversation"].get<bool>();
    kept.hadCheckpoint = record.value("had_checkpoint", false);
    kept.taskState = record.value("task", json::object());
    return std::optional<KeptConversation>{std::move(kept)};
}

Status restoreKeptCheckpoint(const fs::path& snapshotsDir, const std::string& undoRef,
                             const KeptConversation& kept, const fs::path& checkpoint) {
    const fs::path copy = checkpointPath(snapshotsDir, undoRef);
    std::error_code error;
    if (!kept.hadCheckpoint) {
        fs::remove(checkpoint, error);
        if (error)
            return makeError(ErrorCode::System,
                             "cannot remove " + checkpoint.string() + ": " + error.message());
        return Ok{};
    }
    if (!fs::exists(copy, error))
        return makeError(ErrorCode::NotFound, "the checkpoint kept for this undo, " + copy.string() +
                                                  ", is missing: the conversation cannot be put back");
    return copyAtomically(copy, checkpoint);
}

} // namespace warren::snapshots
