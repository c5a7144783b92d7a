#pragma once
// Turns a memory_search query from the agent (untrusted text) into what SQLite is given, so that no query
// is ever parsed as FTS5 syntax or as a LIKE pattern. Words follow agent_core's MemoryRanking rules: runs
// of ASCII letters and digits and of non-ASCII bytes.

#include <string>
#include <string_view>

namespace warren::control {

// Each word as a quoted FTS5 string, joined with OR (an entry needs one of the words; bm25 ranks entries
// with more of them first): `hello, "world"!` -> `"hello" OR "world"`. Empty when the query has no word,
// in which case nothing matches.
std::string ftsMatchQuery(std::string_view query);

// A LIKE pattern matching query as a substring, with %, _ and the escape character \ escaped; use with
// ESCAPE '\'.
std::string likeSubstringPattern(std::string_view query);

} // namespace warren::control
