#pragma once
// A command line's words as a POSIX shell reads them: blanks separate words; '...' keeps everything inside;
// "..." keeps everything but the backslash before ", \, $ and `; a backslash outside quotes keeps the next
// character. Nothing is expanded and operators are not told apart: `a;b` is one word. Pure.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren {

// nullopt when a quote is left open or a backslash ends the line.
std::optional<std::vector<std::string>> shellWords(std::string_view line);

} // namespace warren
