#pragma once
// The front matter of a SKILL.md (the Agent Skills format Claude Code and Codex read): YAML between a first
// line "---" and the next line "---", the body after it. Read without a YAML library by a small strict
// reader of what skills write there: top-level `key: value` lines whose value is plain, single- or
// double-quoted on its line, plain and going on over indented lines, or a simple literal (|) or folded (>)
// block. What it cannot read for sure is refused with the line and why rather than guessed: a key twice (a
// reviewer and the model could each be shown another value), a tab as indentation, a line that is not
// `key: value`, a quoted value going on past its line, a block with an indentation indicator or, folded,
// with more-indented lines, and a value that is a list, a mapping, an anchor, an alias or a tag. The values
// of the keys nobody asks for (license, allowed-tools, metadata...) are not read, so any YAML is fine there.
// One leniency, as other clients of the format have: a plain value may hold ": " ("Use when: ..."), which
// strict YAML refuses. A byte-order mark at the start is dropped and CRLF line ends read as LF. Pure.

#include "common/Result.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

class FrontMatter {
public:
    // Errors: no front matter, one that is not closed, a line that is not `key: value`, a key twice, a tab
    // as indentation; each names the line (1 is the file's first).
    static Result<FrontMatter> read(std::string_view text);

    // The top-level keys, in the order written.
    std::vector<std::string> keys() const;

    // The key's value as text (YAML's folding and chomping applied; "" for a key without a value), nullopt
    // when the key is not there, or an error naming the line when the value is not text this reader reads.
    Result<std::optional<std::string>> text(std::string_view key) const;

    // What follows the closing "---", blank lines at its start left out.
    const std::string& body() const { return m_body; }

private:
    struct Entry {
        std::string key;
        std::size_t line = 0;          // of the key, 1-based
        std::string value;             // after "key:", spaces around it trimmed
        std::vector<std::string> more; // the indented and blank lines after it, as written
    };

    Result<std::string> plain(const Entry& entry) const;
    Result<std::string> quoted(const Entry& entry) const;
    Result<std::string> block(const Entry& entry) const;

    std::vector<Entry> m_entries;
    std::string m_body;
};

} // namespace warren::agent
