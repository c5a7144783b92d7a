#include "agent_core/tools/UnifiedDiff.h"

#include "common/Utf8.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace warren::agent {

namespace {

using Index = std::ptrdiff_t;

// Lines with their terminators; only the last may have none.
std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t newline = text.find('\n', start);
        const std::size_t next = newline == std::string_view::npos ? text.size() : newline + 1;
        lines.push_back(text.substr(start, next - start));
        start = next;
    }
    return lines;
}

// Myers' greedy search for the shortest edit script from a to b, keeping each round's furthest reaching
// points (V of round d at trace[d*d .. d*d+2d]) to walk the path back. Marks the lines the script removes
// from a and adds from b; false when the script costs more than limits.maxEditCost or the search more than
// limits.maxWork steps, and the marks are then not to be used.
bool markEdits(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b, std::span<char> removed,
               std::span<char> added, const DiffLimits& limits) {
    const Index n = std::ssize(a);
    const Index m = std::ssize(b);
    const Index maxCost = std::min<Index>(n + m, static_cast<Index>(limits.maxEditCost));
    std::vector<Index> trace;
    auto at = [&trace](Index d, Index k) -> Index& {
        return trace[static_cast<std::size_t>(d * d + d + k)];
    };
    // Round d reached (x, x - k) on diagonal k from round d-1 by a step down (an added line) from diagonal
    // k+1, or right (a removed line) from k-1, whichever got further.
    auto stepsDown = [&at](Index d, Index k) {
        return k == -d || (k != d && at(d - 1, k - 1) < at(d - 1, k + 1));
    };
    std::size_t work = 0;
    for (Index d = 0; d <= maxCost; ++d) {
        trace.resize(static_cast<std::size_t>((d + 1) * (d + 1)));
        for (Index k = -d; k <= d; k += 2) {
            Index x = d == 0 ? 0 : stepsDown(d, k) ? at(d - 1, k + 1) : at(d - 1, k - 1) + 1;
            Index y = x - k;
            while (x < n && y < m && a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)]) {
                ++x;
                ++y;
                ++work;
            }
            at(d, k) = x;
            if (x < n || y < m)
                continue;
            if (x != n || y != m)
                return false; // off the grid: cannot happen on a shortest path, refused rather than trusted
            for (Index round = d; round > 0; --round) {
                const Index diagonal = x - y;
                const bool down = stepsDown(round, diagonal);
                const Index fromDiagonal = down ? diagonal + 1 : diagonal - 1;
                const Index fromX = at(round - 1, fromDiagonal);
                const Index fromY = fromX - fromDiagonal;
                if (down) {
                    if (fromY < 0 || fromY >= m)
                        return false;
                    added[static_cast<std::size_t>(fromY)] = 1;
                } else {
                    if (fromX < 0 || fromX >= n)
                        return false;
                    removed[static_cast<std::size_t>(fromX)] = 1;
                }
                x = fromX;
                y = fromY;
            }
            return true;
        }
        work += static_cast<std::size_t>(d) + 1;
        if (work > limits.maxWork)
            return false;
    }
    return false;
}

// A run of removed old lines [oldStart, oldEnd) replaced by new lines [newStart, newEnd); either may be
// empty.
struct Block {
    std::size_t oldStart = 0;
    std::size_t oldEnd = 0;
    std::size_t newStart = 0;
    std::size_t newEnd = 0;
};

std::vector<Block> blocksOf(const std::vector<char>& removed, const std::vector<char>& added) {
    std::vector<Block> blocks;
    const std::size_t n = removed.size();
    const std::size_t m = added.size();
    for (std::size_t i = 0, j = 0; i < n || j < m;) {
        if ((i < n && removed[i]) || (j < m && added[j])) {
            Block block{i, i, j, j};
            while (i < n && removed[i])
                ++i;
            while (j < m && added[j])
                ++j;
            block.oldEnd = i;
            block.newEnd = j;
            blocks.push_back(block);
        } else {
            ++i; // a line both sides keep
            ++j;
        }
    }
    return blocks;
}

// "start,count" of a hunk header; a count of 1 is left out and an empty range names the line before it,
// as diff -u writes them.
std::string range(std::size_t from, std::size_t count) {
    if (count == 0)
        return std::to_string(from) + ",0";
    if (count == 1)
        return std::to_string(from + 1);
    return std::to_string(from + 1) + "," + std::to_string(count);
}

void appendLine(std::string& out, char mark, std::string_view line) {
    out += mark;
    out += line;
    if (line.empty() || line.back() != '\n')
        out += "\n\\ No newline at end of file\n";
}

} // namespace

LineDiff diffLines(std::optional<std::string_view> before, std::optional<std::string_view> after,
                   const std::string& path, std::size_t context, DiffLimits limits) {
    const std::vector<std::string_view> oldLines = splitLines(before.value_or(std::string_view()));
    const std::vector<std::string_view> newLines = splitLines(after.value_or(std::string_view()));

    // Lines compared as small numbers: each distinct line gets one.
    std::unordered_map<std::string_view, std::uint32_t> ids;
    auto idsOf = [&ids](const std::vector<std::string_view>& lines) {
        std::vector<std::uint32_t> out;
        out.reserve(lines.size());
        for (const std::string_view line : lines)
            out.push_back(ids.try_emplace(line, static_cast<std::uint32_t>(ids.size())).first->second);
        return out;
    };
    const std::vector<std::uint32_t> a = idsOf(oldLines);
    const std::vector<std::uint32_t> b = idsOf(newLines);

    // The common head and tail are most of a typical edit, and cost the search nothing.
    std::size_t head = 0;
    while (head < a.size() && head < b.size() && a[head] == b[head])
        ++head;
    std::size_t tail = 0;
    while (tail < a.size() - head && tail < b.size() - head &&
           a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
        ++tail;

    std::vector<char> removed(a.size(), 0);
    std::vector<char> added(b.size(), 0);
    const std::span<char> removedMiddle(removed.data() + head, a.size() - head - tail);
    const std::span<char> addedMiddle(added.data() + head, b.size() - head - tail);
    const bool searched =
        !removedMiddle.empty() && !addedMiddle.empty() &&
        markEdits(std::span(a).subspan(head, removedMiddle.size()),
                  std::span(b).subspan(head, addedMiddle.size()), removedMiddle, addedMiddle, limits);
    if (!searched) {
        // One side's middle is empty (nothing to search), or the search gave up: replace the middle whole.
        std::fill(removedMiddle.begin(), removedMiddle.end(), 1);
        std::fill(addedMiddle.begin(), addedMiddle.end(), 1);
    }

    LineDiff diff;
    diff.removed = static_cast<std::size_t>(std::count(removed.begin(), removed.end(), 1));
    diff.added = static_cast<std::size_t>(std::count(added.begin(), added.end(), 1));
    const std::vector<Block> blocks = blocksOf(removed, added);
    if (blocks.empty())
        return diff;

    std::string& out = diff.text;
    out += before ? "--- a/" + path + "\n" : std::string("--- /dev/null\n");
    out += after ? "+++ b/" + path + "\n" : std::string("+++ /dev/null\n");
    for (std::size_t first = 0; first < blocks.size();) {
        // Blocks whose contexts would touch or overlap share a hunk.
        std::size_t last = first;
        while (last + 1 < blocks.size() && blocks[last + 1].oldStart - blocks[last].oldEnd <= 2 * context)
            ++last;
        // The lines around a hunk are lines both sides keep, so as many precede (follow) it on each side.
        const std::size_t lead = std::min(context, blocks[first].oldStart);
        const std::size_t trail = std::min(context, oldLines.size() - blocks[last].oldEnd);
        const std::size_t oldFrom = blocks[first].oldStart - lead;
        const std::size_t newFrom = blocks[first].newStart - lead;
        const std::size_t oldTo = blocks[last].oldEnd + trail;
        const std::size_t newTo = blocks[last].newEnd + trail;
        out += "@@ -" + range(oldFrom, oldTo - oldFrom) + " +" + range(newFrom, newTo - newFrom) + " @@\n";
        for (std::size_t line = oldFrom; line < blocks[first].oldStart; ++line)
            appendLine(out, ' ', oldLines[line]);
        for (std::size_t at = first; at <= last; ++at) {
            const Block& block = blocks[at];
            for (std::size_t line = block.oldStart; line < block.oldEnd; ++line)
                appendLine(out, '-', oldLines[line]);
            for (std::size_t line = block.newStart; line < block.newEnd; ++line)
                appendLine(out, '+', newLines[line]);
            const std::size_t keptTo = at < last ? blocks[at + 1].oldStart : oldTo;
            for (std::size_t line = block.oldEnd; line < keptTo; ++line)
                appendLine(out, ' ', oldLines[line]);
        }
        first = last + 1;
    }
    return diff;
}

std::string unifiedDiff(std::optional<std::string_view> before, std::optional<std::string_view> after,
                        const std::string& path, std::size_t context) {
    return diffLines(before, after, path, context).text;
}

CappedDiff capDiff(std::string_view diff, std::size_t maxBytes, std::size_t maxLines) {
    std::size_t end = 0;
    for (std::size_t lines = 0; end < diff.size() && lines < maxLines; ++lines) {
        const std::size_t newline = diff.find('\n', end);
        const std::size_t next = newline == std::string_view::npos ? diff.size() : newline + 1;
        if (next > maxBytes)
            break;
        end = next;
    }
    return {std::string(diff.substr(0, end)), end < diff.size()};
}

bool isBinaryContent(std::string_view content) {
    return content.find('\0') != std::string_view::npos || firstInvalidUtf8(content).has_value();
}

FileDiff diffFileChange(std::optional<std::string_view> before, std::optional<std::string_view> after,
                        const std::string& path) {
    FileDiff result;
    if ((before && isBinaryContent(*before)) || (after && isBinaryContent(*after))) {
        result.binary = true;
        return result;
    }
    LineDiff diff = diffLines(before, after, path);
    CappedDiff capped = capDiff(diff.text);
    result.text = std::move(capped.text);
    result.truncated = capped.truncated;
    result.added = diff.added;
    result.removed = diff.removed;
    return result;
}

} // namespace warren::agent
