#pragma once
// The prefix of a shell command that "Always allow commands like this" offers, and the test for the shell
// operators no such prefix may cover. Pure, no Qt: the approval rules, the terminal prompt and every
// timeline (desktop, remote) ask the same functions.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace warren::control {

// "Always allow commands like this one": the command's program and, when the next word is a subcommand
// (lowercase letters, digits, '_', ':', '-'), that word too: "git status" for `git status -s`, "ls" for
// `ls -la`, "python3" for `python3 run.py`. None when an allow rule could never match the command (it
// chains, substitutes or redirects) or when its first words are not plain (quotes, variables, globs,
// an assignment), so the prefix is always exactly what the user reads.
std::optional<std::string> commandPrefix(std::string_view command);
// The same for a tool call: the shell's command's prefix; none for other tools or a call without a command.
std::optional<std::string> callCommandPrefix(std::string_view tool, const nlohmann::json& arguments);

// Characters with which one shell command becomes several, runs another inside itself, or writes a file:
// a command holding any of them is never allowed by a rule written for one harmless command.
bool hasShellOperators(std::string_view command);

} // namespace warren::control
