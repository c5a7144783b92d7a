#pragma once
// What the terminal asks when a call waits for the user (`warren run`, `warren watch` with approvals): the
// call as the window's approval card shows it (timeline/ApprovalPreview: the whole command and where it runs,
// or the change as a diff), its reason, and the answers. The call's arguments and reason are the agent's:
// every line is cleaned for the terminal (sanitizeForTerminal) and the body is cut at kQuestionBodyLines
// lines. Pure.

#include <optional>
#include <string>

namespace warren::control {

inline constexpr std::size_t kQuestionBodyLines = 60;

// arguments: the call's arguments as JSON text (a stored approval's); prefix: the command prefix the user may
// allow from now on ([c]), when the call is a plain shell command.
std::string approvalQuestion(const std::string& tool, const std::string& arguments, const std::string& reason,
                             const std::optional<std::string>& prefix);

} // namespace warren::control
