#pragma once
// The parts of resources/prompts start with a comment for the people editing them (what the part is, how
// it is filled in, its version); the model never sees it.

#include <string>
#include <string_view>

namespace warren::agent {

// text without its leading <!-- ... --> comment and the blank lines after it.
std::string_view withoutHeader(std::string_view text);

// The number after "version " in the leading comment ("2"), or "unversioned".
std::string versionOf(std::string_view text);

} // namespace warren::agent
