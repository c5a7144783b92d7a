#pragma once
// Turns a memory_search query from the agent (untrusted text) into what a database is given, so that no
// query is ever parsed as full-text syntax or as a LIKE pattern. One word rule for every store
// (agent_core's MemoryRanking rules): words are runs of ASCII letters and digits and of non-ASCII bytes.

#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

// The query's words, in order.
std::vector<std::string_view> memoryWords(std::string_view query);

// SQLite FTS5: each word as a quoted FTS5 string, joined with OR (an entry needs one of the words; bm25
// ranks entries with more of them first): `hello, "world"!` -> `"hello" OR "world"`. Empty when the query
// has no word, in which case nothing matches.
std::string ftsMatchQuery(std::string_view query);

// PostgreSQL to_tsquery: each word as a quoted lexeme, joined with |: `hello, world` -> `'hello' | 'world'`.
// Empty when the query has no word.
std::string tsQueryText(std::string_view query);

// A LIKE pattern matching query as a substring, with %, _ and the escape character \ escaped; use with
// ESCAPE '\'.
std::string likeSubstringPattern(std::string_view query);

// ASCII letters lowered, every other byte kept: the case folding of the substring search.
std::string asciiLower(std::string_view text);

} // namespace warren::control
