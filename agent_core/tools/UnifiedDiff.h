#pragma once
// The unified diff of a file change, as `diff -u` and `git diff` print it, so the user sees what a tool
// changed. Lines are compared whole, their terminators included ("a\r\n" and "a\n" differ, as they do for
// git), by Myers' O(ND) algorithm after the common head and tail are set aside. The work is bounded: past
// kMaxDiffEditCost edits, or kMaxDiffWork steps, the changed middle becomes one block that removes all of
// the old lines and adds all of the new ones — longer than it needs to be, but still a diff that patch and
// git apply take.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace warren::agent {

// The most edits (lines removed plus lines added) the search looks for, and the most steps it takes.
inline constexpr std::size_t kMaxDiffEditCost = 1000;
inline constexpr std::size_t kMaxDiffWork = 20'000'000;

// What goes into a file_changed event: the diff stays small enough for one event line.
inline constexpr std::size_t kMaxDiffBytes = 64 * 1024;
inline constexpr std::size_t kMaxDiffLines = 2000;

// How far the search may go; tests lower them to reach the fallback with small inputs.
struct DiffLimits {
    std::size_t maxEditCost = kMaxDiffEditCost;
    std::size_t maxWork = kMaxDiffWork;
};

struct LineDiff {
    std::string text;        // the unified diff; empty when no line changed
    std::size_t added = 0;   // lines added
    std::size_t removed = 0; // lines removed
    friend bool operator==(const LineDiff&, const LineDiff&) = default;
};

// The diff from `before` to `after` with `context` unchanged lines around each change; changes closer than
// two contexts share a hunk. nullopt for `before` is a file that did not exist (`--- /dev/null`), for
// `after` one that was deleted (`+++ /dev/null`); otherwise the headers are `--- a/path` and `+++ b/path`.
// A created or deleted empty file has no lines to show, so its diff is empty too.
LineDiff diffLines(std::optional<std::string_view> before, std::optional<std::string_view> after,
                   const std::string& path, std::size_t context = 3, DiffLimits limits = {});

// diffLines' text alone.
std::string unifiedDiff(std::optional<std::string_view> before, std::optional<std::string_view> after,
                        const std::string& path, std::size_t context = 3);

struct CappedDiff {
    std::string text;
    bool truncated = false; // lines at the end were left out
    friend bool operator==(const CappedDiff&, const CappedDiff&) = default;
};

// At most maxBytes and maxLines of `diff`, cut after a whole line.
CappedDiff capDiff(std::string_view diff, std::size_t maxBytes = kMaxDiffBytes,
                   std::size_t maxLines = kMaxDiffLines);

// Content that is not text for a diff: a NUL byte, or bytes that are not valid UTF-8 (the event that
// carries the diff is JSON, which holds only UTF-8).
bool isBinaryContent(std::string_view content);

// A file change as file_changed reports it: the capped diff and its counts, or binary and nothing else.
struct FileDiff {
    std::string text;      // capped unified diff; empty when binary or when no line changed
    std::size_t added = 0; // of the whole diff, also when the text was cut
    std::size_t removed = 0;
    bool truncated = false; // text was cut at kMaxDiffBytes / kMaxDiffLines
    bool binary = false;    // either side is binary: no text and no counts
    friend bool operator==(const FileDiff&, const FileDiff&) = default;
};

FileDiff diffFileChange(std::optional<std::string_view> before, std::optional<std::string_view> after,
                        const std::string& path);

} // namespace warren::agent
