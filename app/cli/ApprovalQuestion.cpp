#include "app/cli/ApprovalQuestion.h"

#include "app/cli/LiveView.h"
#include "app/timeline/ApprovalPreview.h"
#include "app/timeline/CallDescription.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace warren::control {

namespace {

// text's lines, each indented, at most kQuestionBodyLines of them.
std::string indentedLines(const std::string& text) {
    std::istringstream lines(sanitizeForTerminal(text));
    std::string out;
    std::size_t shown = 0;
    std::size_t left = 0;
    for (std::string line; std::getline(lines, line);) {
        if (shown == kQuestionBodyLines) {
            ++left;
            continue;
        }
        out += "    " + line + "\n";
        ++shown;
    }
    if (left > 0)
        out += "    \xE2\x80\xA6 " + std::to_string(left) + " more line" + (left == 1 ? "" : "s") + "\n";
    return out;
}

// One line of the agent's text: its line breaks as spaces, nothing the terminal would act on.
std::string flat(const std::string& text) {
    std::string out = sanitizeForTerminal(text);
    for (char& c : out)
        if (c == '\n' || c == '\t')
            c = ' ';
    return out;
}

} // namespace

std::string approvalQuestion(const std::string& tool, const std::string& arguments, const std::string& reason,
                             const std::optional<std::string>& prefix) {
    const nlohmann::json parsed = nlohmann::json::parse(arguments, nullptr, false);
    const timeline::ApprovalPreview preview = timeline::approvalPreview(tool, parsed, {});
    std::string question =
        "\n? " + flat(tool) + " wants to run: " + flat(timeline::describeCall(tool, parsed).title) + "\n";
    if (!preview.where.empty())
        question += "  " + flat(preview.where) + "\n";
    if (!preview.body.empty())
        question += indentedLines(preview.body);
    if (!reason.empty())
        question += "  why: " + flat(reason) + "\n";
    return question + "  approve? [y]es / [n]o / [a]lways for this task" +
           (prefix ? " / [c]ommands starting with \"" + flat(*prefix) + "\", from now on" : std::string()) +
           ": ";
}

} // namespace warren::control
