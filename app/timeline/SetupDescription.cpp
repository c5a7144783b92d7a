#include "app/timeline/SetupDescription.h"

#include "agent_core/protocol/SetupNotices.h"

namespace warren::timeline {

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

SetupDescription skills(const protocol::SkillsNotice& notice) {
    SetupDescription described;
    if (!notice.changed) {
        const std::size_t count = notice.offered.size();
        described.title = std::to_string(count) + (count == 1 ? " skill offered: " : " skills offered: ") +
                          joined(notice.offered);
        described.detail = "the agent reads a skill when the task calls for it";
        return described;
    }
    std::string parts;
    for (const auto& [names, what] :
         {std::pair{&notice.added, " added"}, std::pair{&notice.updated, " updated"},
          std::pair{&notice.removed, " removed"}})
        if (!names->empty())
            parts += (parts.empty() ? "" : "; ") + joined(*names) + what;
    described.title = "Skills changed: " + parts;
    described.detail = "the agent sees the change at its next step";
    return described;
}

SetupDescription mcpServer(const protocol::McpServerNotice& notice, bool failure, bool warning) {
    SetupDescription described;
    described.topic = SetupDescription::Topic::McpServer;
    described.warning = failure || warning;
    if (failure) {
        described.title = "MCP server " + notice.server + " is unavailable";
        described.detail =
            (notice.said.empty() ? std::string() : notice.said + "; ") + "the task goes on without its tools";
        return described;
    }
    const bool aside = notice.said.starts_with("(") || notice.said.starts_with("started") ||
                       notice.said.starts_with("changed");
    described.title = "MCP server " + notice.server +
                      (notice.said.empty() ? ""
                       : aside             ? " "
                                           : ": ") +
                      notice.said;
    return described;
}

} // namespace

std::optional<SetupDescription> describeSetup(const protocol::LogData& data) {
    const bool warning = data.level == protocol::LogLevel::Warn || data.level == protocol::LogLevel::Error;
    if (const auto notice = protocol::readSkillsNotice(data.message); notice && !warning)
        return skills(*notice);
    if (const auto notice = protocol::readMcpServerNotice(data.message))
        return mcpServer(*notice, false, warning);
    return std::nullopt;
}

std::optional<SetupDescription> describeSetup(const protocol::ErrorData& data) {
    if (data.fatal)
        return std::nullopt;
    if (const auto notice = protocol::readMcpServerNotice(data.message))
        return mcpServer(*notice, true, true);
    return std::nullopt;
}

} // namespace warren::timeline
