#pragma once
// Test-side helpers for warren-agent: run it (runProgram), read the events it printed, write scripts.
// The binary comes from $WARREN_AGENT and the demo from $WARREN_RESOURCES, set by CTest.

#include "agent_core/protocol/Event.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace warren::test {

QString agentBinary();     // $WARREN_AGENT
QString resourcesDir();    // $WARREN_RESOURCES (the repository's resources/)

// The events of one run, in order.
struct EventStream {
    std::vector<protocol::Event> events;
    QString error; // empty when every line was a valid event and seq increased strictly

    QStringList types() const;
    std::vector<protocol::Event> ofType(std::string_view type) const;
    // The tools of the tool_call events, in order.
    QStringList toolCalls() const;
    // The last event's data, or null when there are none.
    nlohmann::json finished() const;
    // All tool_output text of the call with this id.
    std::string outputOf(const std::string& callId) const;
    // The tool_result of the call with this id.
    std::optional<protocol::Event> resultOf(const std::string& callId) const;
};

// Bare events (warren-agent run) or event notifications (warren-agent serve), one per line; other
// JSON-RPC lines are skipped when notificationsOnly is set.
EventStream parseEvents(const QByteArray& out, bool notifications = false);

// {"turns": [turns...]} to path.
bool writeScript(const QString& path, const std::vector<nlohmann::json>& turns);
// A turn with one tool call.
nlohmann::json turn(const std::string& tool, nlohmann::json arguments, const std::string& content = {});

// Copies the directory tree from to the (existing) directory to.
bool copyTree(const QString& from, const QString& to);

} // namespace warren::test
