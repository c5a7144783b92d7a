#include "agent_core/state/CheckpointStore.h"

#include "agent_core/state/AtomicFile.h"
#include "common/FileText.h"
#include "common/JsonFields.h"

#include <utility>

namespace warren::agent {

CheckpointStore::CheckpointStore(std::filesystem::path stateDir) : m_stateDir(std::move(stateDir)) {}

Result<std::optional<AgentState>> CheckpointStore::load() const {
    const auto file = path();
    removeLeftoverTemps(file);
    auto text = readFileText(file);
    if (!text) {
        if (text.error().code == ErrorCode::NotFound)
            return std::optional<AgentState>();
        return makeError(text.error().code,
                         "checkpoint " + file.string() + " is unreadable: " + text.error().message +
                             "; fix its permissions, or move it away to start the task fresh");
    }
    const auto corrupt = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument,
                         "checkpoint " + file.string() + " is corrupt: " + why +
                             "; move it away to start the task fresh (it was left in place)");
    };
    auto document = json_fields::parseJson(text.value());
    if (!document)
        return corrupt("not JSON: " + document.error().message);
    auto state = agentStateFromJson(document.value());
    if (!state)
        return corrupt(state.error().message);
    return std::optional<AgentState>(std::move(state).value());
}

std::string CheckpointStore::serialize(const AgentState& state) {
    // Invalid UTF-8 (a tool's raw output) is replaced rather than thrown on, as every protocol writer does.
    auto dump = [](const nlohmann::json& value) {
        return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    std::size_t same = 0;
    while (same < m_messageJson.size() && same < state.messages.size() &&
           m_messageJson[same].first == state.messages[same])
        ++same;
    m_messageJson.resize(same);
    for (std::size_t i = same; i < state.messages.size(); ++i)
        m_messageJson.emplace_back(state.messages[i], dump(protocol::toJson(state.messages[i])));

    std::string text = dump(toJsonWithoutMessages(state));
    text.pop_back(); // the closing brace: the messages go last
    text += ",\"messages\":[";
    for (std::size_t i = 0; i < m_messageJson.size(); ++i) {
        if (i)
            text += ',';
        text += m_messageJson[i].second;
    }
    text += "]}\n";
    return text;
}

Result<std::uint64_t> CheckpointStore::save(const AgentState& state, bool durable) {
    const std::string text = serialize(state);
    auto written = writeFileAtomically(path(), text, durable);
    if (!written)
        return makeError(written.error().code, "checkpoint not saved: " + written.error().message +
                                                   "; the previous checkpoint " + path().string() +
                                                   " is intact, and the task can resume from it once the "
                                                   "state directory is writable again");
    return written;
}

} // namespace warren::agent
