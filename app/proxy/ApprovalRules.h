#pragma once
// Which risky tool calls run without asking. Rules are data (resources/approvals/default.json, user
// settings on top): by tool, by shell command pattern (ECMAScript regex over the whole command), and for
// write_file/edit_file/apply_patch by path glob inside the workspace. First matching rule wins; no match means
// Ask. A patch is decided path by path (every file it adds, updates, deletes or moves to) and gets the
// strictest verdict: one denied path denies it, and it is allowed only when every path is.
// The policy mode (ApprovalMode.h) decides what Ask becomes: auto -> Allow, deny -> Deny, ask -> the user.

#include "app/timeline/CommandPrefix.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

enum class ApprovalVerdict { Allow, Deny, Ask };

struct ApprovalRule {
    ApprovalVerdict verdict = ApprovalVerdict::Ask;
    std::string tool;         // exact tool name, or "*"
    std::string command;      // shell only: regex the whole command must match; empty: any
    std::string path;         // write_file/edit_file/apply_patch only: glob the path must match; empty: any
    std::string reason;       // why the rule exists, shown with the decision
    friend bool operator==(const ApprovalRule&, const ApprovalRule&) = default;
};

struct ApprovalDecision {
    ApprovalVerdict verdict = ApprovalVerdict::Ask;
    std::string rule; // the matching rule's reason, or empty
};

// Glob over a path relative to the workspace: `*` any characters but '/', `?` one such character, `**` any
// characters, and `**/` nothing or whole directories (so "**/.envrc" is also ".envrc").
bool matchPathGlob(std::string_view glob, std::string_view path);

// {"rules": [{"verdict": "allow"|"deny"|"ask", "tool": ..., "command"?: ..., "path"?: ..., "reason": ...}]}
Result<std::vector<ApprovalRule>> parseApprovalRules(const nlohmann::json& document);
const nlohmann::json& defaultApprovalRulesJson(); // resources/approvals/default.json, embedded

// An allow rule never matches a shell command that chains, substitutes or redirects (; & | ` $( ${ > < newline):
// such a command is decided by the deny rules, then Ask. Shell regexes see the command as written and as the
// shell splits it into words (quotes and backslashes removed, one space between words): deny and ask rules
// match either, allow rules the words only, so quoting cannot hide an option from a rule.
// Paths are taken relative to /workspace with "." and ".." applied: deny and ask rules match that or the path
// as written; allow rules never match a path with a ".." segment or one outside the workspace. A rule with
// "command" applies to shell calls only, one with "path" to write_file/edit_file/apply_patch calls only (also
// for "*").
// A command over 16 KiB is denied unchecked.
ApprovalDecision decideApproval(const std::vector<ApprovalRule>& rules, const std::string& tool,
                                const nlohmann::json& arguments);

// The allow rule for such a prefix: shell commands whose words are the prefix's, then anything. It is
// added after the other rules, so their deny and ask verdicts still come first.
ApprovalRule commandPrefixRule(const std::string& prefix);

} // namespace warren::control
