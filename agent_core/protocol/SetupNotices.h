#pragma once
// What the agent says of its run's setup in log events (EventLog::notice; AGENT.md, "Skills" and "MCP
// servers"), worded once for both ends: the agent writes these lines, and the faces (TimelineFold, LiveView)
// read them back to say in their own words which skills were offered, how that set changed, and which MCP
// server a notice or a failure is about. A line these readers do not know is shown as the agent wrote it.
// Pure.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::protocol {

// A skill's name, as a SKILL.md must give it (agent_core/skills/SkillFile) and these notices list it:
// 1 to kMaxSkillNameBytes lowercase letters, digits and hyphens (so ", " is never inside one).
inline constexpr std::size_t kMaxSkillNameBytes = 64;
bool isValidSkillName(std::string_view name);

// "skills offered: a, b" when a run starts with skills; "skills changed: added x; changed y; removed z"
// when they change between steps.
struct SkillsNotice {
    bool changed = false;                             // false: the skills offered at the start
    std::vector<std::string> offered;                 // !changed
    std::vector<std::string> added, updated, removed; // changed
    friend bool operator==(const SkillsNotice&, const SkillsNotice&) = default;
};
std::string skillsNoticeMessage(const SkillsNotice& notice);
std::optional<SkillsNotice> readSkillsNotice(std::string_view message);

// How the agent names an MCP server in what it says of it: MCP server "NAME".
std::string mcpServerLabel(std::string_view server);
// The server a line names at its start, and what it says after the label (": ..." and " ..." without their
// lead): `MCP server "fs" could not be started: ...` is {"fs", "could not be started: ..."}.
struct McpServerNotice {
    std::string server;
    std::string said;
    friend bool operator==(const McpServerNotice&, const McpServerNotice&) = default;
};
std::optional<McpServerNotice> readMcpServerNotice(std::string_view message);

} // namespace warren::protocol
