#pragma once
// What a tool call does, described once for every face from its arguments: the window's card title, as a
// developer would write it ("$ make test", "edit src/a.c"), and the terminal's line of what it acts on
// ("make test", "hello.txt (3 bytes)"). A face that needs one line, or safe text, cuts and cleans it itself.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

namespace warren::timeline {

struct CallDescription {
    // The card title. A tool it does not know shows its name and its arguments as compact JSON; a
    // multi-line shell command shows its first line and " …".
    std::string title;
    // What the call acts on, whole: the command, the path (with the size write_file writes), the pattern
    // and the path it searches; the arguments as compact JSON when the tool is another one or the argument
    // that names what it acts on is missing.
    std::string arguments;
};

CallDescription describeCall(const std::string& tool, const nlohmann::json& arguments);

// A call of a coding-agent CLI (Claude Code, Codex; docs/AGENT.md "A CLI agent") that is one of Warren's own
// tools under another name, as that tool (its name and arguments): described once, the same way. nullopt:
// not one of them.
std::optional<std::pair<std::string, nlohmann::json>> asWarrenCall(const std::string& tool,
                                                                   const nlohmann::json& arguments);

// A call's string argument; empty when it is absent or not a string.
std::string stringArgument(const nlohmann::json& arguments, const char* name);

// 1234567 as "1,234,567": how the faces count bytes, lines and tokens.
std::string withThousands(std::uint64_t value);

} // namespace warren::timeline
