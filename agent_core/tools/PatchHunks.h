#pragma once
// An update's hunks applied to a file's text (pure). Each hunk is looked for after the previous one, at
// its first match: after its "@@" anchor line when it has one, at the end of the file when it is marked
// "*** End of File". A hunk's lines are matched exactly first; when that fails, as Codex does, ignoring
// trailing blanks, then blanks on both sides, then typographic punctuation (curly quotes, dashes,
// non-breaking spaces) read as its ASCII twin; models copy text with such small slips. Context lines are
// kept as the file has them, so a fuzzy match changes only the lines marked "-" and "+". The file's lines
// keep their own terminators: a file with CRLF lines gets CRLF on the lines added, and a file without a
// final newline stays without one.

#include "agent_core/tools/PatchFormat.h"

#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

// How a hunk matched, for the model to hear when it was not exact.
enum class HunkMatch { Exact, IgnoringTrailingBlanks, IgnoringBlanks, IgnoringPunctuation };

struct PatchedText {
    std::string text;
    std::vector<HunkMatch> matches; // one per hunk, in order
};

// shown: the file as messages name it. A refusal says which hunk (its patch line) did not match and what
// it looked for, so the model can read the file again and correct the hunk.
Result<PatchedText> applyHunks(std::string_view original, const std::vector<PatchHunk>& hunks,
                               const std::string& shown);

} // namespace warren::agent
