#pragma once
// The patch format OpenAI's models write for apply_patch (Codex's): an envelope of file operations, each
// update made of hunks of context (" "), removed ("-") and added ("+") lines.
//
//   *** Begin Patch
//   *** Add File: PATH          then the new file's lines, each starting with "+"
//   *** Delete File: PATH       nothing follows
//   *** Update File: PATH       then optionally "*** Move to: NEW_PATH", then hunks:
//   @@ [a line to find first]   then " ", "-", "+" lines; "*** End of File" after the last one when the hunk
//                               ends the file
//   *** End Patch
//
// Pure: the text is read into operations, nothing is looked up on disk. Every refusal names the patch line
// and says what was expected, so the model can correct its patch. Leniencies, as Codex's own reader has:
// the text may be wrapped in a shell here-document (<<'EOF' ... EOF), marker lines may carry surrounding
// blanks, the first hunk of an update may leave out its "@@", and an empty line inside a hunk is an empty
// context line (editors and models drop the lone space).

#include "common/Result.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

struct PatchHunk {
    std::string anchor;                 // the text after "@@ ": a line found first, the hunk applies after it
    std::vector<std::string> oldLines;  // context and removed lines, in order: what the file must contain
    std::vector<std::string> newLines;  // context and added lines, in order: what replaces it
    std::string kinds;                  // each line of the hunk in order: ' ' context, '-' removed, '+' added
    bool endOfFile = false;             // "*** End of File": the old lines end the file
    std::size_t line = 0;               // 1-based patch line where the hunk starts, for messages
    friend bool operator==(const PatchHunk&, const PatchHunk&) = default;
};

enum class PatchOpKind { Add, Delete, Update };

struct PatchOp {
    PatchOpKind kind = PatchOpKind::Update;
    std::string path;
    std::string moveTo;             // Update: the new path, empty when the file stays where it is
    std::string content;            // Add: the new file's text, each "+" line ending with "\n"
    std::vector<PatchHunk> hunks;   // Update: at least one
    std::size_t line = 0;           // 1-based patch line of the operation's header
    friend bool operator==(const PatchOp&, const PatchOp&) = default;
};

struct Patch {
    std::vector<PatchOp> ops; // at least one; no path appears twice (as a path or a move's target)
    friend bool operator==(const Patch&, const Patch&) = default;
};

Result<Patch> parsePatch(std::string_view text);

} // namespace warren::agent
