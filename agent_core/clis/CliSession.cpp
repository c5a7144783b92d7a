#include "agent_core/clis/CliSession.h"

#include "agent_core/clis/CliCommand.h"
#include "agent_core/state/AtomicFile.h"
#include "common/FileText.h"
#include "common/JsonFields.h"

namespace warren::agent {

using nlohmann::json;
using namespace json_fields;

Result<std::optional<CliSession>> readCliSession(const std::filesystem::path& stateDir) {
    const auto path = stateDir / kCliSessionFile;
    std::error_code error;
    if (!std::filesystem::exists(path, error))
        return std::optional<CliSession>();
    const auto text = readFileText(path);
    if (!text)
        return text.error();
    const std::string where = path.string();
    auto value = parseJson(*text);
    if (!value)
        return makeError(ErrorCode::InvalidArgument, where + ": " + value.error().message);
    Error failure;
    std::string kind;
    CliSession session;
    if (!take(requireObject(*value, where), failure) ||
        !take(checkKeys(*value, {"kind", "id", "step"}, where), failure) ||
        !take(getString(*value, "kind", where), kind, failure) ||
        !take(getString(*value, "id", where), session.id, failure) ||
        !take(getUint(*value, "step", where), session.step, failure))
        return failure;
    const auto parsed = protocol::cliAgentFromName(kind);
    if (!parsed)
        return makeError(ErrorCode::InvalidArgument,
                         where + ": kind \"" + kind + "\" is not a CLI Warren runs");
    if (!isValidSessionId(session.id))
        return makeError(ErrorCode::InvalidArgument,
                         where + ": the session id is not one a CLI gives (letters, digits, '-' and '_')");
    session.kind = *parsed;
    return std::optional<CliSession>(session);
}

Status writeCliSession(const std::filesystem::path& stateDir, const CliSession& session, bool durable) {
    const json value = {
        {"kind", protocol::agentKindName(session.kind)}, {"id", session.id}, {"step", session.step}};
    if (auto written = writeFileAtomically(stateDir / kCliSessionFile, value.dump() + "\n", durable);
        !written)
        return written.error();
    return Ok{};
}

bool cliSessionSaved(protocol::AgentKind kind, const std::filesystem::path& home, const std::string& id) {
    const auto root = home / (kind == protocol::AgentKind::ClaudeCode ? ".claude/projects" : ".codex/sessions");
    std::error_code error;
    // Links are not followed: the home is written by the CLI, which runs the model's commands.
    for (std::filesystem::recursive_directory_iterator it(root, error), end; !error && it != end;
         it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.ends_with(".jsonl") && name.find(id) != std::string::npos && it->is_regular_file(error))
            return true;
    }
    return false;
}

} // namespace warren::agent
