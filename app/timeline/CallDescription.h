#pragma once
// What a tool call does, as a developer would write it: "$ make test", "edit src/a.c", "search TODO in src".
// One description for every face; a face that needs one line cuts it itself.

#include <nlohmann/json.hpp>
#include <string>

namespace warren::timeline {

// The card title of a call of tool with these arguments; a tool it does not know shows its arguments as
// compact JSON. A multi-line shell command shows its first line and " …".
std::string describeCall(const std::string& tool, const nlohmann::json& arguments);

// A call's string argument; empty when it is absent or not a string.
std::string stringArgument(const nlohmann::json& arguments, const char* name);

} // namespace warren::timeline
