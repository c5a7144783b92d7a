#pragma once
// One warren-agent serve process and the control plane's side of its stdio, for tests that play the control
// plane: send task.start and control messages, answer the agent's requests, collect its events.

#include "agent_core/protocol/LineReader.h"
#include "agent_core/protocol/Methods.h"
#include "tests/support/AgentRun.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::test {

using nlohmann::json;

// One warren-agent serve process and the control plane's side of its stdio.
class ServeSession {
public:
    QTemporaryDir root;
    QProcess agent;
    std::vector<json> events; // event params, in order
    std::vector<json> others; // every non-event message, in order

    QString dir(const char* name) const { return root.path() + "/" + name; }

    bool start() {
        for (const char* name : {"workspace", "state", "output"})
            QDir().mkpath(dir(name));
        agent.start(agentBinary(), {"serve", "--workspace", dir("workspace"), "--state", dir("state"),
                                    "--output", dir("output")});
        return agent.waitForStarted();
    }
    void sendLine(const QByteArray& line) {
        agent.write(line + "\n");
        while (agent.bytesToWrite() > 0 && agent.waitForBytesWritten(-1)) {
        }
    }
    void send(const json& message) { sendLine(QByteArray::fromStdString(message.dump())); }
    // reply: task.start's reply (the user's message to a task whose run ended).
    void startTask(const json& overrides = json::object(), const std::string& taskId = "t-1",
                   const std::optional<std::string>& reply = std::nullopt) {
        json params = {{"protocol_version", protocol::kProtocolVersion},
                       {"task_id", taskId},
                       {"prompt", "Do the thing"},
                       {"overrides", overrides}};
        if (reply)
            params["reply"] = *reply;
        send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "task.start"}, {"params", params}});
    }
    void respond(const json& request, const json& result) {
        send({{"jsonrpc", "2.0"}, {"id", request["id"]}, {"result", result}});
    }

    // The next message that is not an event (events are collected); null when the agent exits first.
    json next() {
        while (m_othersTaken == others.size())
            if (!readMore())
                return nullptr;
        return others[m_othersTaken++];
    }
    // The next request for method, answering nothing else on the way; null when the agent exits first.
    json nextRequest(const std::string& method) {
        for (json message = next(); !message.is_null(); message = next())
            if (message.value("method", "") == method)
                return message;
        return nullptr;
    }
    // Reads until an event of this type arrived; false when the agent exits first.
    bool waitForEvent(std::string_view type) {
        for (std::size_t seen = 0;; ++seen) {
            while (seen == events.size())
                if (!readMore())
                    return false;
            if (events[seen].value("type", "") == type)
                return true;
        }
    }
    // Reads until the agent exits on its own (stdin stays open: closing it means the control plane left).
    int finish() {
        while (!next().is_null()) {
        }
        agent.waitForFinished(-1);
        return agent.exitStatus() == QProcess::NormalExit ? agent.exitCode() : -1;
    }
    // Reads until an event for which matches is true arrived; false when the agent exits first.
    template <typename Match> bool waitFor(Match matches) {
        for (std::size_t seen = 0;; ++seen) {
            while (seen == events.size())
                if (!readMore())
                    return false;
            if (matches(events[seen]))
                return true;
        }
    }
    // SIGKILL, as a crash would; start() runs a new agent on the same directories.
    void kill9() {
        agent.kill();
        agent.waitForFinished(-1);
        agent.readAllStandardOutput();
        m_reader = protocol::LineReader();
    }
    json lastEvent() const { return events.empty() ? json() : events.back(); }
    bool hasEvent(std::string_view type, const std::string& needle = {}) const {
        for (const auto& event : events)
            if (event.value("type", "") == type && event.dump().find(needle) != std::string::npos)
                return true;
        return false;
    }

private:
    // Waits for output and sorts the lines that came into events and others; false once the agent is gone.
    bool readMore() {
        if (agent.state() == QProcess::NotRunning && agent.bytesAvailable() == 0)
            return false;
        agent.waitForReadyRead(1000);
        for (auto& line : m_reader.feed(agent.readAllStandardOutput().toStdString())) {
            if (!line)
                continue;
            json message = json::parse(*line, nullptr, false);
            if (message.value("method", "") == "event")
                events.push_back(message["params"]);
            else
                others.push_back(message);
        }
        return true;
    }
    protocol::LineReader m_reader;
    std::size_t m_othersTaken = 0;
};


} // namespace warren::test
