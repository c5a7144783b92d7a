#pragma once
// What the model reads of one tool call's output: at most a budget of estimated tokens (TokenEstimate's
// rate), the head (how it started) and the tail (how it ended, usually the error) kept, cut at line ends
// where one is near, and the cut marked with how much was left out and how to ask for less. The whole
// output stays in the events (tool_output); this is only the model's copy. Pure.

#include <cstdint>
#include <string>
#include <string_view>

namespace warren::agent {

struct FittedOutput {
    std::string text;
    bool cut = false;
    std::uint64_t cutLines = 0;  // whole or partial lines left out
    std::uint64_t cutTokens = 0; // estimated
};

// text itself when it fits budgetTokens; otherwise about half the budget of head and half of tail around
// "\n[... N lines (about T tokens) cut. HINT ...]\n". Never splits a UTF-8 character.
FittedOutput fitToBudget(std::string_view text, std::uint64_t budgetTokens, std::string_view hint);

// How to ask a tool for less, for the cut's marker: "pipe it through head, tail or grep ..." for shell,
// "read a range with offset and limit" for read_file, ...
std::string narrowingHint(std::string_view tool);

} // namespace warren::agent
