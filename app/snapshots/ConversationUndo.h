#pragma once
// What a rewind of the conversation replaced, kept beside the rewind's undo snapshot so that `--undo` puts
// the conversation back as well as the files: the agent's checkpoint as it was (or that there was none), the
// task's state then (opaque to this file: the control plane's status columns), and whether that rewind
// touched the files at all (a rewind of the conversation alone records an undo snapshot only to be undone
// in turn; its undo leaves the files as they are).
//
// Layout: SNAPSHOTS/undo/NNNNNNNNNN.json (the undo snapshot's number) and, when the task had a checkpoint,
// SNAPSHOTS/undo/NNNNNNNNNN.checkpoint.json beside it. A rewind of the files alone keeps no record: its undo
// is of the files alone, as before.

#include "common/Result.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::snapshots {

struct KeptConversation {
    bool files = true;          // whether that rewind changed the files (its undo does then)
    bool conversation = false;  // whether it changed the conversation
    bool hadCheckpoint = false; // false: the task had none (its undo removes the checkpoint)
    nlohmann::json taskState;   // the task's state before it, for the control plane to restore
};

// Keeps what a rewind is about to replace under its undo snapshot's ref (refs/warren/undo/N): the
// checkpoint (copied atomically) when conversation, then the record.
Status keepForUndo(const std::filesystem::path& snapshotsDir, const std::string& undoRef,
                   const KeptConversation& kept, const std::filesystem::path& checkpoint);
// The record kept for undoRef; nullopt when that rewind kept none (one of the files alone).
Result<std::optional<KeptConversation>> keptForUndo(const std::filesystem::path& snapshotsDir,
                                                    const std::string& undoRef);
// Puts the kept checkpoint back in place of checkpoint (owned like its directory), or removes checkpoint
// when the task had none.
Status restoreKeptCheckpoint(const std::filesystem::path& snapshotsDir, const std::string& undoRef,
                             const KeptConversation& kept, const std::filesystem::path& checkpoint);

} // namespace warren::snapshots
