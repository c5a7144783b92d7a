#include "agent_core/tools/PatchHunks.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>

namespace warren::agent {

namespace {

constexpr std::size_t kQuotedLineBytes = 80;

struct FileLines {
    std::vector<std::string> lines; // without terminators
    bool crlf = false;              // the first line ends with "\r\n": lines written get it too
    bool finalNewline = true;       // the text ends with a terminator (an empty file counts as ending with one)
};

FileLines splitFile(std::string_view text) {
    FileLines file;
    file.finalNewline = text.empty() || text.ends_with('\n');
    const auto firstEnd = text.find('\n');
    file.crlf = firstEnd != std::string_view::npos && firstEnd > 0 && text[firstEnd - 1] == '\r';
    while (!text.empty()) {
        const auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (end != std::string_view::npos && line.ends_with('\r'))
            line.remove_suffix(1);
        file.lines.emplace_back(line);
        if (end == std::string_view::npos)
            break;
        text.remove_prefix(end + 1);
    }
    return file;
}

std::string joinFile(const FileLines& file) {
    std::string text;
    const std::string_view terminator = file.crlf ? "\r\n" : "\n";
    for (std::size_t i = 0; i < file.lines.size(); ++i) {
        text.append(file.lines[i]);
        if (i + 1 < file.lines.size() || file.finalNewline)
            text.append(terminator);
    }
    return text;
}

std::string_view trimEnd(std::string_view text) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

std::string_view trimBoth(std::string_view text) {
    text = trimEnd(text);
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    return text;
}

// Typographic punctuation read as the ASCII a model writes for it (or the other way round).
std::string plainPunctuation(std::string_view text) {
    struct Twin {
        std::string_view fancy;
        char plain;
    };
    static constexpr std::array<Twin, 16> twins = {{
        {"\u2010", '-'}, {"\u2011", '-'}, {"\u2012", '-'}, {"\u2013", '-'}, {"\u2014", '-'}, {"\u2015", '-'},
        {"\u2212", '-'}, {"\u2018", '\''}, {"\u2019", '\''}, {"\u201A", '\''}, {"\u201B", '\''},
        {"\u201C", '"'}, {"\u201D", '"'}, {"\u201E", '"'}, {"\u201F", '"'}, {"\u00A0", ' '},
    }};
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        bool replaced = false;
        for (const auto& twin : twins) {
            if (text.substr(i).starts_with(twin.fancy)) {
                out.push_back(twin.plain);
                i += twin.fancy.size();
                replaced = true;
                break;
            }
        }
        if (!replaced)
            out.push_back(text[i++]);
    }
    return std::string(trimBoth(out));
}

bool linesEqual(std::string_view a, std::string_view b, HunkMatch how) {
    switch (how) {
    case HunkMatch::Exact:
        return a == b;
    case HunkMatch::IgnoringTrailingBlanks:
        return trimEnd(a) == trimEnd(b);
    case HunkMatch::IgnoringBlanks:
        return trimBoth(a) == trimBoth(b);
    case HunkMatch::IgnoringPunctuation:
        return plainPunctuation(a) == plainPunctuation(b);
    }
    return false;
}

struct Found {
    std::size_t at;
    HunkMatch how;
};

// Where pattern occurs in lines at or after start, trying each way of matching in turn, strictest first;
// with atEnd, only where it ends the file.
std::optional<Found> seek(const std::vector<std::string>& lines, const std::vector<std::string>& pattern,
                          std::size_t start, bool atEnd) {
    if (pattern.size() > lines.size())
        return std::nullopt;
    const std::size_t last = lines.size() - pattern.size();
    const std::size_t first = atEnd ? last : start;
    if (first > last)
        return std::nullopt;
    for (const HunkMatch how : {HunkMatch::Exact, HunkMatch::IgnoringTrailingBlanks, HunkMatch::IgnoringBlanks,
                                HunkMatch::IgnoringPunctuation}) {
        for (std::size_t at = first; at <= last; ++at) {
            bool same = true;
            for (std::size_t i = 0; same && i < pattern.size(); ++i)
                same = linesEqual(lines[at + i], pattern[i], how);
            if (same)
                return Found{at, how};
        }
    }
    return std::nullopt;
}

std::string quoted(std::string_view line) {
    if (line.size() > kQuotedLineBytes)
        return "\"" + std::string(line.substr(0, kQuotedLineBytes)) + "...\"";
    return "\"" + std::string(line) + "\"";
}

std::string hunkName(const PatchHunk& hunk) {
    return "the hunk at patch line " + std::to_string(hunk.line);
}

Error notFound(const PatchHunk& hunk, const std::string& shown, std::size_t after, const std::string& what) {
    std::string where = after == 0 ? std::string() : " after line " + std::to_string(after);
    return makeError(ErrorCode::InvalidArgument,
                     hunkName(hunk) + " does not match " + shown + ": " + what + " was not found" + where +
                         ". Read the file again and copy its lines exactly into the hunk's \" \" and \"-\" "
                         "lines");
}

} // namespace

Result<PatchedText> applyHunks(std::string_view original, const std::vector<PatchHunk>& hunks,
                               const std::string& shown) {
    FileLines file = splitFile(original);
    struct Replacement {
        std::size_t at;
        std::size_t count;
        std::vector<std::string> lines;
    };
    std::vector<Replacement> replacements;
    PatchedText patched;
    std::size_t next = 0; // the first line a hunk may match: hunks apply in order, without overlapping
    for (const PatchHunk& hunk : hunks) {
        HunkMatch how = HunkMatch::Exact;
        if (!hunk.anchor.empty()) {
            const auto anchor = seek(file.lines, {hunk.anchor}, next, false);
            if (!anchor)
                return notFound(hunk, shown, next, "its \"@@\" line " + quoted(hunk.anchor));
            // The hunk's lines follow the anchor, or start with it (models often repeat it as context).
            next = anchor->at;
            how = anchor->how;
        }
        if (hunk.oldLines.empty()) {
            // Only added lines: after the anchor when there is one, else at the end of the file.
            const std::size_t at = hunk.anchor.empty() ? file.lines.size() : next + 1;
            replacements.push_back({at, 0, hunk.newLines});
            next = at;
            patched.matches.push_back(how);
            continue;
        }
        std::vector<std::string> oldLines = hunk.oldLines;
        std::string kinds = hunk.kinds;
        auto found = seek(file.lines, oldLines, next, hunk.endOfFile);
        if (!found && oldLines.back().empty() && kinds.back() == ' ') {
            // A trailing empty context line often stands for the file's final newline, not a blank line.
            oldLines.pop_back();
            kinds.pop_back();
            if (!oldLines.empty())
                found = seek(file.lines, oldLines, next, hunk.endOfFile);
        }
        if (!found)
            return notFound(hunk, shown, next,
                            std::string(hunk.endOfFile ? "at the end of the file, " : "") + "its " +
                                std::to_string(hunk.oldLines.size()) + " context and removed lines, starting " +
                                quoted(hunk.oldLines.front()) + ",");
        // Context lines stay as the file has them (a fuzzy match must not rewrite their whitespace); removed
        // lines go, added lines come from the patch.
        std::vector<std::string> lines;
        std::size_t fileLine = found->at;
        std::size_t newLine = 0;
        for (const char kind : kinds) {
            if (kind == ' ') {
                lines.push_back(file.lines[fileLine++]);
                ++newLine;
            } else if (kind == '-') {
                ++fileLine;
            } else {
                lines.push_back(hunk.newLines[newLine++]);
            }
        }
        patched.matches.push_back(std::max(how, found->how));
        next = found->at + oldLines.size();
        replacements.push_back({found->at, oldLines.size(), std::move(lines)});
    }
    // Back to front, so each replacement's position still holds.
    for (auto it = replacements.rbegin(); it != replacements.rend(); ++it) {
        const auto begin = file.lines.begin() + static_cast<std::ptrdiff_t>(it->at);
        file.lines.erase(begin, begin + static_cast<std::ptrdiff_t>(it->count));
        file.lines.insert(file.lines.begin() + static_cast<std::ptrdiff_t>(it->at), it->lines.begin(),
                          it->lines.end());
    }
    if (file.lines.empty())
        file.finalNewline = true; // an emptied file is empty, not a lone newline: joinFile writes nothing
    patched.text = joinFile(file);
    return patched;
}

} // namespace warren::agent
