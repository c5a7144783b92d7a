#include "app/proxy/ApprovalRules.h"

#include "agent_core/tools/FileWriteTools.h"
#include "agent_core/tools/PatchFormat.h"
#include "common/JsonFields.h"
#include "common/ShellWords.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <string_view>

// resources/approvals/default.json, embedded by proxy/CMakeLists.txt.
namespace warren::resources {
extern const std::string_view approvalRulesDefaultJson;
} // namespace warren::resources

namespace warren::control {

using nlohmann::json;

namespace {

constexpr std::string_view kShell = "shell";
constexpr std::string_view kWorkspace = "/workspace";
// std::regex matches by recursion, one frame per character: a longer command could exhaust the stack, so
// it is refused unchecked (fail closed) rather than matched. A script file run by a short command serves.
constexpr std::size_t kMaxCheckedCommandBytes = 16 * 1024;

constexpr std::string_view kApplyPatch = "apply_patch";

using agent::isFileWriteTool;

Error invalid(std::string message) {
    return makeError(ErrorCode::InvalidArgument, "approval rules: " + std::move(message));
}

std::optional<ApprovalVerdict> verdictFromText(std::string_view text) {
    if (text == "allow")
        return ApprovalVerdict::Allow;
    if (text == "deny")
        return ApprovalVerdict::Deny;
    if (text == "ask")
        return ApprovalVerdict::Ask;
    return std::nullopt;
}

const std::string* stringArgument(const json& arguments, const char* name) {
    if (!arguments.is_object())
        return nullptr;
    const auto it = arguments.find(name);
    return it != arguments.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
}

// The command's words as the shell reads them (quotes and backslashes removed), joined by one space, so
// a rule about `-delete` also sees `"-delete"` and `-de''lete`. Nothing when a quote is left open.
std::optional<std::string> joinedShellWords(std::string_view command) {
    const auto words = shellWords(command);
    if (!words)
        return std::nullopt;
    std::string joined;
    for (const auto& word : *words)
        joined += (joined.empty() ? "" : " ") + word;
    return joined;
}

// ECMAScript regex over the whole text. A pattern that does not compile (rules built in code; parsed rules
// are checked) matches when the rule restricts and never when it allows.
bool regexMatches(const std::string& pattern, const std::string& text, ApprovalVerdict verdict) {
    try {
        return std::regex_match(text, std::regex(pattern, std::regex::ECMAScript));
    } catch (const std::regex_error&) {
        return verdict != ApprovalVerdict::Allow;
    }
}

struct WorkspacePathForm {
    std::string resolved;  // relative to the workspace, "." and ".." applied; absolute when outside it
    std::string written;   // the same with ".." left as written (through a symlink, "a/.." need not be ".")
    bool absolute = false; // names a place outside /workspace
    bool dotDot = false;   // had a ".." segment
};

WorkspacePathForm resolveWorkspacePath(std::string_view path) {
    WorkspacePathForm form;
    if (path.substr(0, kWorkspace.size()) == kWorkspace &&
        (path.size() == kWorkspace.size() || path[kWorkspace.size()] == '/'))
        path.remove_prefix(kWorkspace.size());
    else if (!path.empty() && path.front() == '/')
        form.absolute = true;
    std::vector<std::string_view> segments;
    while (!path.empty()) {
        const std::size_t slash = path.find('/');
        const std::string_view segment = path.substr(0, slash);
        path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
        if (segment.empty() || segment == ".")
            continue;
        form.written += (form.written.empty() && !form.absolute ? "" : "/") + std::string(segment);
        if (segment == "..") {
            form.dotDot = true;
            if (!segments.empty() && segments.back() != "..") {
                segments.pop_back();
                continue;
            }
            if (form.absolute)
                continue; // "/.." is "/"
        }
        segments.push_back(segment);
    }
    for (const auto segment : segments)
        form.resolved += (form.resolved.empty() && !form.absolute ? "" : "/") + std::string(segment);
    if (form.resolved.empty())
        form.resolved = form.absolute ? "/" : ".";
    return form;
}

bool commandMatches(const ApprovalRule& rule, const std::string& command) {
    const auto words = joinedShellWords(command);
    if (rule.verdict == ApprovalVerdict::Allow)
        return !hasShellOperators(command) && words && regexMatches(rule.command, *words, rule.verdict);
    return regexMatches(rule.command, command, rule.verdict) ||
           (words && regexMatches(rule.command, *words, rule.verdict));
}

bool pathMatches(const ApprovalRule& rule, const std::string& path) {
    const WorkspacePathForm form = resolveWorkspacePath(path);
    if (rule.verdict == ApprovalVerdict::Allow)
        return !form.absolute && !form.dotDot && matchPathGlob(rule.path, form.resolved);
    return matchPathGlob(rule.path, form.resolved) || matchPathGlob(rule.path, form.written);
}

// Whether the arguments leave nothing an allow rule cannot see: a shell command without operators, a
// write inside the workspace without "..".
bool allowApplies(std::string_view tool, const json& arguments) {
    if (tool == kShell) {
        const std::string* command = stringArgument(arguments, "command");
        return command && !hasShellOperators(*command) && joinedShellWords(*command).has_value();
    }
    if (isFileWriteTool(tool)) {
        const std::string* path = stringArgument(arguments, "path");
        if (!path)
            return false;
        const WorkspacePathForm form = resolveWorkspacePath(*path);
        return !form.absolute && !form.dotDot;
    }
    return true;
}

// Every path an apply_patch call writes, moves or deletes; nothing when the patch cannot be read (the tool
// refuses it too).
std::vector<std::string> patchPaths(const json& arguments) {
    std::vector<std::string> paths;
    const std::string* input = stringArgument(arguments, "input");
    if (!input)
        return paths;
    const auto patch = agent::parsePatch(*input);
    if (!patch)
        return paths;
    for (const auto& op : patch->ops) {
        paths.push_back(op.path);
        if (!op.moveTo.empty())
            paths.push_back(op.moveTo);
    }
    return paths;
}

// The first rule that decides a call with this command or path (null when the call has none).
ApprovalDecision firstMatch(const std::vector<ApprovalRule>& rules, const std::string& tool,
                            const std::string* command, const std::string* path, bool allowApplies) {
    for (const ApprovalRule& rule : rules) {
        if (rule.tool != "*" && rule.tool != tool)
            continue;
        if (!rule.command.empty() && (!command || !commandMatches(rule, *command)))
            continue;
        if (!rule.path.empty() && (!path || !pathMatches(rule, *path)))
            continue;
        if (rule.verdict == ApprovalVerdict::Allow && !allowApplies)
            continue;
        return {rule.verdict, rule.reason};
    }
    return {ApprovalVerdict::Ask, ""};
}

// A patch touches several paths: each is decided as a write_file of it would be, and the patch gets the
// strictest verdict (a deny of any path denies it; it is allowed only when every path is).
ApprovalDecision decidePatch(const std::vector<ApprovalRule>& rules, const json& arguments) {
    const std::string tool(kApplyPatch);
    const auto paths = patchPaths(arguments);
    if (paths.empty())
        return firstMatch(rules, tool, nullptr, nullptr, false);
    std::optional<ApprovalDecision> ask;
    std::optional<ApprovalDecision> allow;
    for (const std::string& path : paths) {
        const WorkspacePathForm form = resolveWorkspacePath(path);
        auto decision = firstMatch(rules, tool, nullptr, &path, !form.absolute && !form.dotDot);
        if (decision.verdict == ApprovalVerdict::Deny)
            return decision;
        auto& slot = decision.verdict == ApprovalVerdict::Ask ? ask : allow;
        if (!slot)
            slot = std::move(decision);
    }
    return ask ? *ask : *allow;
}

Result<ApprovalRule> ruleFromJson(const json& item, std::size_t index) {
    const std::string where = "rule " + std::to_string(index + 1) + ": ";
    const std::string path = "approval rules: rule " + std::to_string(index + 1);
    if (!item.is_object())
        return invalid(where + "expected an object with verdict, tool and reason");
    if (auto known = json_fields::checkKeys(item, {"verdict", "tool", "command", "path", "reason"}, path,
                                            json_fields::ListKnown::Yes);
        !known)
        return known.error();
    ApprovalRule rule;
    const auto verdictText = json_fields::getString(item, "verdict", path);
    const auto verdict = verdictText ? verdictFromText(*verdictText) : std::nullopt;
    if (!verdict)
        return invalid(where + "\"verdict\" must be \"allow\", \"deny\" or \"ask\"");
    rule.verdict = *verdict;
    auto tool = json_fields::getString(item, "tool", path);
    if (!tool || tool->empty())
        return invalid(where + "\"tool\" must name a tool, or be \"*\"");
    rule.tool = std::move(tool).value();
    auto reason = json_fields::getString(item, "reason", path);
    if (!reason || reason->empty())
        return invalid(where + "\"reason\" must say why the rule exists");
    rule.reason = std::move(reason).value();
    auto command = json_fields::getOptionalString(item, "command", path);
    auto pathGlob = json_fields::getOptionalString(item, "path", path);
    if (!command)
        return command.error();
    if (!pathGlob)
        return pathGlob.error();
    rule.command = command->value_or("");
    rule.path = pathGlob->value_or("");
    if (!rule.command.empty() && rule.tool != kShell && rule.tool != "*")
        return invalid(where + "\"command\" applies to the shell tool only, not to \"" + rule.tool + "\"");
    if (!rule.path.empty() && !isFileWriteTool(rule.tool) && rule.tool != "*")
        return invalid(where + "\"path\" applies to write_file, edit_file and apply_patch only, not to \"" +
                       rule.tool + "\"");
    if (!rule.command.empty()) {
        try {
            std::regex(rule.command, std::regex::ECMAScript);
        } catch (const std::regex_error& error) {
            return invalid(where + "\"command\" is not a valid ECMAScript regex (" + error.what() + ")");
        }
    }
    return rule;
}

} // namespace

bool matchPathGlob(std::string_view glob, std::string_view path) {
    // matches[j]: the glob read so far matches path[0, j). One row per glob element, so the cost is
    // glob x path whatever the number of stars (no backtracking blow-up).
    std::vector<char> matches(path.size() + 1, 0);
    matches[0] = 1;
    for (std::size_t g = 0; g < glob.size(); ++g) {
        std::vector<char> next(path.size() + 1, 0);
        if (glob[g] == '*' && g + 1 < glob.size() && glob[g + 1] == '*') {
            const bool directories = g + 2 < glob.size() && glob[g + 2] == '/';
            g += directories ? 2 : 1;
            // "**" spans anything; "**/" spans nothing or whole directories ("a/", "a/b/"), so "**/x" is also
            // "x". reached: the glob matched some shorter prefix of the path.
            bool reached = false;
            for (std::size_t j = 0; j <= path.size(); ++j) {
                if (directories)
                    next[j] = matches[j] || (reached && path[j - 1] == '/');
                else
                    next[j] = reached || matches[j];
                reached = reached || matches[j];
            }
        } else if (glob[g] == '*') {
            bool reached = false;
            for (std::size_t j = 0; j <= path.size(); ++j) {
                if (j > 0 && path[j - 1] == '/')
                    reached = false;
                reached = reached || matches[j];
                next[j] = reached;
            }
        } else {
            for (std::size_t j = 1; j <= path.size(); ++j)
                next[j] = matches[j - 1] && (glob[g] == '?' ? path[j - 1] != '/' : path[j - 1] == glob[g]);
        }
        matches.swap(next);
    }
    return matches[path.size()];
}

Result<std::vector<ApprovalRule>> parseApprovalRules(const json& document) {
    const auto rules = json_fields::getValue(document, "rules", "");
    if (!rules || !rules->is_array())
        return invalid("expected {\"rules\": [...]}");
    std::vector<ApprovalRule> parsed;
    for (std::size_t i = 0; i < rules->size(); ++i) {
        auto rule = ruleFromJson((*rules)[i], i);
        if (!rule)
            return rule.error();
        parsed.push_back(std::move(rule).value());
    }
    return parsed;
}

const json& defaultApprovalRulesJson() {
    // A broken embedded file leaves no rules (everything asks); tst_approval_rules parses it.
    static const json document = [] {
        json parsed = json::parse(resources::approvalRulesDefaultJson, nullptr, false);
        return parsed.is_discarded() ? json{{"rules", json::array()}} : parsed;
    }();
    return document;
}

ApprovalRule commandPrefixRule(const std::string& prefix) {
    std::string escaped;
    for (const char c : prefix) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            escaped += '\\';
        escaped += c;
    }
    return {ApprovalVerdict::Allow, std::string(kShell), escaped + "( .*)?", "",
            "you allowed commands starting with \"" + prefix + "\""};
}

ApprovalDecision decideApproval(const std::vector<ApprovalRule>& rules, const std::string& tool,
                                const json& arguments) {
    if (tool == kApplyPatch)
        return decidePatch(rules, arguments);
    const std::string* command = tool == kShell ? stringArgument(arguments, "command") : nullptr;
    const std::string* path = isFileWriteTool(tool) ? stringArgument(arguments, "path") : nullptr;
    if (command && command->size() > kMaxCheckedCommandBytes)
        return {ApprovalVerdict::Deny,
                "the command is longer than " + std::to_string(kMaxCheckedCommandBytes) +
                    " bytes, too long to check against the approval rules; put it in a "
                    "script file and run that"};
    return firstMatch(rules, tool, command, path, allowApplies(tool, arguments));
}

} // namespace warren::control
