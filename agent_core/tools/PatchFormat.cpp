#include "agent_core/tools/PatchFormat.h"

#include <algorithm>
#include <optional>

namespace warren::agent {

namespace {

constexpr std::string_view kBegin = "*** Begin Patch";
constexpr std::string_view kEnd = "*** End Patch";
constexpr std::string_view kAdd = "*** Add File: ";
constexpr std::string_view kDelete = "*** Delete File: ";
constexpr std::string_view kUpdate = "*** Update File: ";
constexpr std::string_view kMoveTo = "*** Move to: ";
constexpr std::string_view kEndOfFile = "*** End of File";
constexpr std::size_t kQuotedLineBytes = 80;

std::string_view trimmed(std::string_view text) {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!text.empty() && blank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && blank(text.back()))
        text.remove_suffix(1);
    return text;
}

// The patch's lines without their terminators; a "\r" before "\n" goes too, so a patch written with CRLF
// reads the same.
std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (line.ends_with('\r'))
            line.remove_suffix(1);
        lines.push_back(line);
        if (end == std::string_view::npos)
            break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

struct PatchLines {
    std::vector<std::string_view> lines;
    std::size_t skipped = 0; // lines dropped before the first, so messages number the lines as written
};

// The lines of the patch itself: surrounding blank lines dropped, and a here-document's wrapper when the
// model wrote the patch as the shell command Codex runs (apply_patch <<'EOF' ... EOF).
PatchLines patchLines(std::string_view text) {
    auto lines = splitLines(text);
    std::size_t skipped = 0;
    while (!lines.empty() && trimmed(lines.front()).empty()) {
        lines.erase(lines.begin());
        ++skipped;
    }
    while (!lines.empty() && trimmed(lines.back()).empty())
        lines.pop_back();
    if (lines.size() >= 2) {
        const std::string_view first = trimmed(lines.front());
        const std::string_view last = trimmed(lines.back());
        const bool heredoc = first == "<<EOF" || first == "<<'EOF'" || first == "<<\"EOF\"";
        if (heredoc && last == "EOF") {
            lines.erase(lines.begin());
            lines.pop_back();
            ++skipped;
        }
    }
    return {std::move(lines), skipped};
}

std::string quoted(std::string_view line) {
    if (line.size() > kQuotedLineBytes)
        return "\"" + std::string(line.substr(0, kQuotedLineBytes)) + "...\"";
    return "\"" + std::string(line) + "\"";
}

Error refuse(std::size_t line, const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, "patch line " + std::to_string(line) + ": " + message);
}

// The path after a header, when the line is that header.
std::optional<std::string_view> headerPath(std::string_view line, std::string_view header) {
    const std::string_view marker = trimmed(line);
    if (!marker.starts_with(header.substr(0, header.size() - 1)))
        return std::nullopt;
    return trimmed(marker.substr(header.size() - 1));
}

bool isFileHeader(std::string_view line) {
    return headerPath(line, kAdd) || headerPath(line, kDelete) || headerPath(line, kUpdate) ||
           trimmed(line) == kEnd;
}

const char* expectedHeader() {
    return "expected a file operation (\"*** Add File: PATH\", \"*** Delete File: PATH\" or \"*** Update File: "
           "PATH\") or \"*** End Patch\"";
}

class Reader {
public:
    explicit Reader(PatchLines lines) : m_lines(std::move(lines.lines)), m_skipped(lines.skipped) {}

    Result<Patch> read() {
        if (m_lines.empty())
            return makeError(ErrorCode::InvalidArgument,
                             "the patch is empty; it starts with \"*** Begin Patch\" and ends with \"*** End Patch\"");
        if (trimmed(m_lines.front()) != kBegin)
            return refuse(m_skipped + 1, "the patch must start with \"*** Begin Patch\", got " + quoted(m_lines.front()));
        if (trimmed(m_lines.back()) != kEnd)
            return refuse(m_skipped + m_lines.size(), "the patch must end with \"*** End Patch\", got " +
                                              quoted(m_lines.back()));
        m_at = 1;
        Patch patch;
        while (m_at + 1 < m_lines.size()) {
            auto op = readOp();
            if (!op)
                return op.error();
            patch.ops.push_back(std::move(op).value());
        }
        if (patch.ops.empty())
            return refuse(m_skipped + m_lines.size(), "the patch changes no file; add at least one file operation before "
                                          "\"*** End Patch\"");
        if (auto unique = checkPathsUnique(patch); !unique)
            return unique.error();
        return patch;
    }

private:
    std::size_t lineNumber() const { return m_skipped + m_at + 1; }
    std::string_view current() const { return m_lines[m_at]; }
    // The last line is "*** End Patch": operations end before it.
    bool atEnd() const { return m_at + 1 >= m_lines.size(); }

    Result<PatchOp> readOp() {
        PatchOp op;
        op.line = lineNumber();
        const std::string_view header = current();
        std::optional<std::string_view> path;
        if ((path = headerPath(header, kAdd)))
            op.kind = PatchOpKind::Add;
        else if ((path = headerPath(header, kDelete)))
            op.kind = PatchOpKind::Delete;
        else if ((path = headerPath(header, kUpdate)))
            op.kind = PatchOpKind::Update;
        else if (trimmed(header) == kEnd)
            return refuse(op.line, "\"*** End Patch\" before the end of the patch; it must be the last line");
        else
            return refuse(op.line, std::string(expectedHeader()) + ", got " + quoted(header));
        if (path->empty())
            return refuse(op.line, "the file operation names no path");
        op.path = std::string(*path);
        ++m_at;
        switch (op.kind) {
        case PatchOpKind::Add:
            return readAddedLines(std::move(op));
        case PatchOpKind::Delete:
            if (!atEnd() && !isFileHeader(current()))
                return refuse(lineNumber(), "\"*** Delete File: " + op.path +
                                                "\" takes no lines after it; " + expectedHeader() + ", got " +
                                                quoted(current()));
            return op;
        case PatchOpKind::Update:
            return readUpdate(std::move(op));
        }
        return op;
    }

    Result<PatchOp> readAddedLines(PatchOp op) {
        for (; !atEnd() && !isFileHeader(current()); ++m_at) {
            const std::string_view line = current();
            if (!line.starts_with('+'))
                return refuse(lineNumber(), "every line of a file added by \"*** Add File: " + op.path +
                                                "\" starts with \"+\" (a blank line too), got " + quoted(line));
            op.content.append(line.substr(1)).push_back('\n');
        }
        return op;
    }

    Result<PatchOp> readUpdate(PatchOp op) {
        if (!atEnd()) {
            if (auto target = headerPath(current(), kMoveTo)) {
                if (target->empty())
                    return refuse(lineNumber(), "\"*** Move to:\" names no path");
                op.moveTo = std::string(*target);
                ++m_at;
            }
        }
        while (!atEnd() && !isFileHeader(current())) {
            auto hunk = readHunk(op, op.hunks.empty());
            if (!hunk)
                return hunk.error();
            op.hunks.push_back(std::move(hunk).value());
        }
        if (op.hunks.empty())
            return refuse(op.line, "\"*** Update File: " + op.path +
                                       "\" has no hunk; follow it with \"@@\" and the lines to change (\" \" "
                                       "context, \"-\" removed, \"+\" added)");
        return op;
    }

    Result<PatchHunk> readHunk(const PatchOp& op, bool first) {
        PatchHunk hunk;
        hunk.line = lineNumber();
        const std::string_view opening = trimmed(current());
        if (opening == "@@") {
            ++m_at;
        } else if (opening.starts_with("@@ ")) {
            hunk.anchor = std::string(trimmed(opening.substr(3)));
            ++m_at;
        } else if (!first) {
            return refuse(lineNumber(), "a hunk line starts with \" \" (context), \"-\" (removed) or \"+\" "
                                        "(added), and a new hunk with \"@@\"; got " + quoted(current()));
        }
        bool changes = false;
        for (; !atEnd() && !isFileHeader(current()); ++m_at) {
            const std::string_view line = current();
            if (trimmed(line) == kEndOfFile) {
                hunk.endOfFile = true;
                ++m_at;
                break;
            }
            if (line.starts_with("@@"))
                break;
            if (line.empty()) {
                hunk.oldLines.emplace_back();
                hunk.newLines.emplace_back();
                hunk.kinds.push_back(' ');
                continue;
            }
            const std::string text(line.substr(1));
            hunk.kinds.push_back(line.front());
            switch (line.front()) {
            case ' ':
                hunk.oldLines.push_back(text);
                hunk.newLines.push_back(text);
                break;
            case '-':
                hunk.oldLines.push_back(text);
                changes = true;
                break;
            case '+':
                hunk.newLines.push_back(text);
                changes = true;
                break;
            default:
                return refuse(lineNumber(), "in \"*** Update File: " + op.path +
                                                "\", a hunk line starts with \" \" (context), \"-\" (removed) or "
                                                "\"+\" (added); got " + quoted(line));
            }
        }
        if (hunk.oldLines.empty() && hunk.newLines.empty())
            return refuse(hunk.line, "the hunk of \"*** Update File: " + op.path + "\" has no lines");
        if (!changes)
            return refuse(hunk.line, "the hunk of \"*** Update File: " + op.path +
                                         "\" only has context lines; mark what to remove with \"-\" and what to "
                                         "add with \"+\"");
        return hunk;
    }

    static Status checkPathsUnique(const Patch& patch) {
        std::vector<std::pair<std::string, std::size_t>> seen;
        auto claim = [&](const std::string& path, std::size_t line) -> Status {
            const auto earlier = std::find_if(seen.begin(), seen.end(),
                                              [&](const auto& entry) { return entry.first == path; });
            if (earlier != seen.end())
                return refuse(line, path + " is also changed at patch line " + std::to_string(earlier->second) +
                                        "; put all the changes of one file under one operation");
            seen.emplace_back(path, line);
            return Ok{};
        };
        for (const auto& op : patch.ops) {
            if (auto claimed = claim(op.path, op.line); !claimed)
                return claimed;
            if (!op.moveTo.empty() && op.moveTo != op.path)
                if (auto claimed = claim(op.moveTo, op.line); !claimed)
                    return claimed;
        }
        return Ok{};
    }

    std::vector<std::string_view> m_lines;
    std::size_t m_skipped = 0;
    std::size_t m_at = 0;
};

} // namespace

Result<Patch> parsePatch(std::string_view text) {
    return Reader(patchLines(text)).read();
}

} // namespace warren::agent
