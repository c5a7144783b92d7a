#pragma once
// memory_search's rules, shared by the local backends (the control plane's store answers with its own
// full-text index).
//   ranked = false: the whole query, case-insensitively, as a substring of the key or the value; hits in
//                   namespace/key order. An empty query matches every entry.
//   ranked = true:  BM25 over the words of key + value (k1 = 1.2, b = 0.75); an entry needs at least one
//                   query word; best first, equal scores in namespace/key order. A query without words
//                   matches nothing.
// Words are runs of ASCII letters and digits and of non-ASCII bytes (so "Grüße" is one word), lowercased
// in ASCII only.

#include "agent_core/memory/MemoryBackend.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

std::vector<std::string> memoryWords(std::string_view text);

std::vector<MemoryEntry> rankMemory(std::vector<MemoryEntry> entries, std::string_view query,
                                    std::size_t limit, bool ranked);

} // namespace warren::agent
