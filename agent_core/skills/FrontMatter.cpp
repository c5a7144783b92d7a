#include "agent_core/skills/FrontMatter.h"

#include "agent_core/tools/ToolText.h"

#include <algorithm>

namespace warren::agent {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
constexpr std::size_t kShownBytes = 60; // of a line quoted back in a message

Error invalid(std::size_t line, const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, "line " + std::to_string(line) + ": " + message);
}

bool isSpace(char c) {
    return c == ' ' || c == '\t';
}

bool isBlank(std::string_view line) {
    return std::all_of(line.begin(), line.end(), isSpace);
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    return text;
}

std::size_t leadingSpaces(std::string_view line) {
    std::size_t count = 0;
    while (count < line.size() && line[count] == ' ')
        ++count;
    return count;
}

bool isDelimiter(std::string_view line) {
    return line.starts_with("---") && isBlank(line.substr(3));
}

bool isKeyCharacter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

// "key:" or "key: ..." as a nested mapping's line would start.
bool looksLikeKey(std::string_view text) {
    const auto colon = text.find(':');
    return colon != std::string_view::npos && colon > 0 &&
           std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(colon), isKeyCharacter) &&
           (colon + 1 == text.size() || isSpace(text[colon + 1]));
}

std::string quotedKey(const std::string& key) {
    return "\"" + key + "\"";
}

// The lines of text, split at LF.
std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

// Where a comment starts in a plain value's line: a '#' at its start or after a space.
std::size_t commentStart(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '#' && (i == 0 || isSpace(text[i - 1])))
            return i;
    return std::string_view::npos;
}

// The index one past the last line that is not blank.
std::size_t contentEnd(const std::vector<std::string>& lines) {
    std::size_t end = lines.size();
    while (end > 0 && isBlank(lines[end - 1]))
        --end;
    return end;
}

void appendUtf8(std::string& out, char32_t code) {
    if (code < 0x80) {
        out += char(code);
    } else if (code < 0x800) {
        out += char(0xC0 | (code >> 6));
        out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += char(0xE0 | (code >> 12));
        out += char(0x80 | ((code >> 6) & 0x3F));
        out += char(0x80 | (code & 0x3F));
    } else {
        out += char(0xF0 | (code >> 18));
        out += char(0x80 | ((code >> 12) & 0x3F));
        out += char(0x80 | ((code >> 6) & 0x3F));
        out += char(0x80 | (code & 0x3F));
    }
}

std::optional<char32_t> hexValue(std::string_view digits) {
    char32_t value = 0;
    for (const char c : digits) {
        const int digit = (c >= '0' && c <= '9')   ? c - '0'
                          : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                          : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                   : -1;
        if (digit < 0)
            return std::nullopt;
        value = value * 16 + char32_t(digit);
    }
    return value;
}

} // namespace

Result<FrontMatter> FrontMatter::read(std::string_view text) {
    if (text.starts_with(kByteOrderMark))
        text.remove_prefix(kByteOrderMark.size());
    std::string normal; // CRLF read as LF
    normal.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
        if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n'))
            normal += text[i];
    const auto lines = splitLines(normal);
    if (!isDelimiter(lines.front()))
        return makeError(
            ErrorCode::InvalidArgument,
            "no front matter: the file must start with a line \"---\", then name: and description:");
    std::size_t close = 1;
    while (close < lines.size() && !isDelimiter(lines[close]))
        ++close;
    if (close == lines.size())
        return makeError(ErrorCode::InvalidArgument,
                         "the front matter is not closed: no line \"---\" after the one on line 1");

    FrontMatter matter;
    for (std::size_t i = 1; i < close; ++i) {
        const std::size_t number = i + 1;
        const std::string_view line = lines[i];
        if (isBlank(line)) {
            if (!matter.m_entries.empty())
                matter.m_entries.back().more.emplace_back(line);
            continue;
        }
        std::size_t indent = 0;
        while (isSpace(line[indent])) {
            if (line[indent] == '\t')
                return invalid(number, "a tab in the indentation (YAML indents with spaces only)");
            ++indent;
        }
        if (indent > 0) {
            if (matter.m_entries.empty())
                return invalid(number, "an indented line before the first key");
            matter.m_entries.back().more.emplace_back(line);
            continue;
        }
        if (line.front() == '#')
            continue;
        const std::size_t colon = line.find(':');
        const std::string_view key = line.substr(0, colon);
        if (colon == std::string_view::npos || key.empty() ||
            !std::all_of(key.begin(), key.end(), isKeyCharacter) ||
            (colon + 1 < line.size() && !isSpace(line[colon + 1])))
            return invalid(number, "expected \"key: value\", got \"" + shortenLine(line, kShownBytes) + "\"");
        for (const auto& entry : matter.m_entries)
            if (entry.key == key)
                return invalid(number, quotedKey(entry.key) + " is there twice (first on line " +
                                           std::to_string(entry.line) + ")");
        matter.m_entries.push_back(
            {std::string(key), number, std::string(trimmed(line.substr(colon + 1))), {}});
    }

    const std::size_t bodyStart = std::size_t(lines[close].data() - normal.data()) + lines[close].size() + 1;
    std::string_view body = bodyStart < normal.size() ? std::string_view(normal).substr(bodyStart) : "";
    for (auto newline = body.find('\n');
         newline != std::string_view::npos && isBlank(body.substr(0, newline)); newline = body.find('\n'))
        body.remove_prefix(newline + 1);
    matter.m_body = std::string(body);
    return matter;
}

std::vector<std::string> FrontMatter::keys() const {
    std::vector<std::string> keys;
    for (const auto& entry : m_entries)
        keys.push_back(entry.key);
    return keys;
}

Result<std::optional<std::string>> FrontMatter::text(std::string_view key) const {
    const auto entry = std::find_if(m_entries.begin(), m_entries.end(),
                                    [&](const Entry& candidate) { return candidate.key == key; });
    if (entry == m_entries.end())
        return std::optional<std::string>();
    const std::string name = quotedKey(entry->key);
    const std::string_view value = entry->value;
    auto asOptional = [](Result<std::string> text) -> Result<std::optional<std::string>> {
        if (!text)
            return text.error();
        return std::optional<std::string>(std::move(text).value());
    };
    if (value.empty() || value.front() == '#')
        return asOptional(plain(*entry));
    const char first = value.front();
    const bool alone = value.size() == 1 || isSpace(value[1]);
    if (first == '"' || first == '\'')
        return asOptional(quoted(*entry));
    if (first == '|' || first == '>')
        return asOptional(block(*entry));
    if (first == '[' || first == '{' || (first == '-' && alone))
        return invalid(entry->line, name + " must be text, not a list or a mapping");
    if (first == '&' || first == '*' || first == '!')
        return invalid(entry->line, name + ": anchors, aliases and tags are not read; write the text itself");
    if (std::string_view("@`]},%").find(first) != std::string_view::npos ||
        ((first == '?' || first == ':') && alone))
        return invalid(entry->line,
                       name + ": a plain value cannot start with '" + std::string(1, first) + "'; quote it");
    return asOptional(plain(*entry));
}

Result<std::string> FrontMatter::plain(const Entry& entry) const {
    const std::string name = quotedKey(entry.key);
    // The value's lines with their numbers: the key's own (when it holds text), then the indented ones.
    std::vector<std::pair<std::size_t, std::string_view>> lines;
    if (!entry.value.empty() && entry.value.front() != '#')
        lines.emplace_back(entry.line, entry.value);
    const std::size_t end = contentEnd(entry.more);
    for (std::size_t i = 0; i < end; ++i)
        lines.emplace_back(entry.line + 1 + i, trimmed(entry.more[i]));
    if (entry.value.empty() || entry.value.front() == '#') {
        const auto first =
            std::find_if(lines.begin(), lines.end(), [](const auto& line) { return !line.second.empty(); });
        if (first == lines.end())
            return std::string();
        const std::string_view text = first->second;
        if (text == "-" || text.starts_with("- ") || text.front() == '[' || text.front() == '{' ||
            looksLikeKey(text))
            return invalid(first->first, name + " must be text, not a list or a mapping");
    }
    std::string out;
    std::size_t blankLines = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        auto [number, text] = lines[i];
        if (text.empty()) {
            ++blankLines;
            continue;
        }
        if (const auto comment = commentStart(text); comment != std::string_view::npos) {
            const bool last = std::all_of(lines.begin() + static_cast<std::ptrdiff_t>(i) + 1, lines.end(),
                                          [](const auto& line) { return line.second.empty(); });
            if (!last)
                return invalid(number, name + ": a comment inside a value that goes on is not read");
            text = trimmed(text.substr(0, comment));
            if (text.empty())
                break;
        }
        // YAML's folding: a line break is a space, each blank line a line break.
        if (!out.empty())
            out += blankLines > 0 ? std::string(blankLines, '\n') : " ";
        out += text;
        blankLines = 0;
    }
    return out;
}

Result<std::string> FrontMatter::quoted(const Entry& entry) const {
    const std::string name = quotedKey(entry.key);
    const std::string_view value = entry.value;
    const char quote = value.front();
    std::string out;
    std::size_t i = 1;
    bool closed = false;
    while (i < value.size() && !closed) {
        const char c = value[i];
        if (c == quote && quote == '\'' && i + 1 < value.size() && value[i + 1] == '\'') {
            out += '\'';
            i += 2;
        } else if (c == quote) {
            closed = true;
            ++i;
        } else if (c == '\\' && quote == '"' && i + 1 < value.size()) {
            const char escape = value[i + 1];
            i += 2;
            const std::size_t digits = escape == 'x' ? 2 : escape == 'u' ? 4 : escape == 'U' ? 8 : 0;
            if (digits) {
                const auto code =
                    i + digits <= value.size() ? hexValue(value.substr(i, digits)) : std::nullopt;
                if (!code || *code > 0x10FFFF || (*code >= 0xD800 && *code <= 0xDFFF))
                    return invalid(entry.line, name + ": \\" + std::string(1, escape) +
                                                   " is not followed by " + std::to_string(digits) +
                                                   " hex digits of a character");
                appendUtf8(out, *code);
                i += digits;
                continue;
            }
            const std::string_view from = "\\\"/ \tntr0";
            const std::string_view to = std::string_view("\\\"/ \t\n\t\r\0", 9);
            const auto at = from.find(escape);
            if (at == std::string_view::npos)
                return invalid(entry.line,
                               name + ": the escape \\" + std::string(1, escape) + " is not read");
            out += to[at];
        } else if (c == '\\' && quote == '"') {
            break; // an escaped line break: the value goes on
        } else {
            out += c;
            ++i;
        }
    }
    if (!closed)
        return invalid(entry.line, name +
                                       ": a quoted value must end on its line (a longer one can be a block, "
                                       "| or >)");
    const std::string_view rest = value.substr(i);
    if (!isBlank(rest) && (!isSpace(rest.front()) || trimmed(rest).front() != '#'))
        return invalid(entry.line, name + ": text after the closing quote");
    if (contentEnd(entry.more) > 0)
        return invalid(entry.line + 1, name + ": an indented line after a quoted value");
    return out;
}

Result<std::string> FrontMatter::block(const Entry& entry) const {
    const std::string name = quotedKey(entry.key);
    const std::string_view header = entry.value;
    const bool folded = header.front() == '>';
    std::size_t i = 1;
    const char chomping = i < header.size() && (header[i] == '-' || header[i] == '+') ? header[i++] : ' ';
    if ((i < header.size() && header[i] >= '0' && header[i] <= '9') ||
        (header.size() > 1 && header[1] >= '0' && header[1] <= '9'))
        return invalid(entry.line, name + ": a block with an indentation indicator (such as |2) is not read; "
                                          "write it without");
    const std::string_view rest = header.substr(i);
    if (!isBlank(rest) && (!isSpace(rest.front()) || trimmed(rest).front() != '#'))
        return invalid(entry.line, name + ": expected nothing or a comment after '" +
                                       std::string(header.substr(0, i)) + "', got \"" +
                                       shortenLine(rest, kShownBytes) + "\"");
    const std::size_t end = contentEnd(entry.more);
    if (end == 0)
        return std::string();
    std::size_t indent = 0;
    for (std::size_t k = 0; k < end && indent == 0; ++k)
        if (!isBlank(entry.more[k]))
            indent = leadingSpaces(entry.more[k]);
    std::vector<std::string_view> content;
    for (std::size_t k = 0; k < end; ++k) {
        const std::string_view line = entry.more[k];
        if (isBlank(line)) {
            content.emplace_back();
            continue;
        }
        if (leadingSpaces(line) < indent)
            return invalid(entry.line + 1 + k, name + ": a line less indented than the block's first");
        content.push_back(line.substr(indent));
        if (folded && content.back().front() == ' ')
            return invalid(entry.line + 1 + k,
                           name + ": a folded block (>) with more-indented lines is not read; "
                                  "use a literal one (|) or plain text");
    }
    std::string out;
    std::size_t blankLines = 0;
    bool started = false;
    for (const auto line : content) {
        if (line.empty()) {
            ++blankLines;
            continue;
        }
        if (!started)
            out += std::string(blankLines, '\n');
        else if (folded)
            out += blankLines > 0 ? std::string(blankLines, '\n') : " ";
        else
            out += std::string(blankLines + 1, '\n');
        out += line;
        blankLines = 0;
        started = true;
    }
    if (chomping == '-')
        return out;
    if (chomping == '+')
        return out + "\n" + std::string(entry.more.size() - end, '\n');
    return out + "\n";
}

} // namespace warren::agent
