#include "tests/support/AgentRun.h"

#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/JsonRpc.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>

namespace warren::test {

QString agentBinary() { return QProcessEnvironment::systemEnvironment().value("WARREN_AGENT"); }
QString resourcesDir() { return QProcessEnvironment::systemEnvironment().value("WARREN_RESOURCES"); }

QStringList EventStream::types() const {
    QStringList out;
    for (const auto& event : events)
        out << QString::fromStdString(event.type);
    return out;
}

std::vector<protocol::Event> EventStream::ofType(std::string_view type) const {
    std::vector<protocol::Event> out;
    for (const auto& event : events)
        if (event.type == type)
            out.push_back(event);
    return out;
}

QStringList EventStream::toolCalls() const {
    QStringList out;
    for (const auto& event : ofType(protocol::event_type::kToolCall))
        out << QString::fromStdString(event.tool.value_or("?"));
    return out;
}

nlohmann::json EventStream::finished() const { return events.empty() ? nlohmann::json() : events.back().data; }

std::string EventStream::outputOf(const std::string& callId) const {
    std::string text;
    for (const auto& event : ofType(protocol::event_type::kToolOutput))
        if (event.data.value("id", "") == callId)
            text += event.data.value("text", "");
    return text;
}

std::optional<protocol::Event> EventStream::resultOf(const std::string& callId) const {
    for (const auto& event : ofType(protocol::event_type::kToolResult))
        if (event.data.value("id", "") == callId)
            return event;
    return std::nullopt;
}

EventStream parseEvents(const QByteArray& out, bool notifications) {
    EventStream stream;
    std::optional<std::uint64_t> previous;
    int number = 0;
    for (const QByteArray& line : out.split('\n')) {
        ++number;
        if (line.isEmpty())
            continue;
        nlohmann::json value = nlohmann::json::parse(line.toStdString(), nullptr, false);
        if (value.is_discarded()) {
            stream.error = QString("line %1 is not JSON: %2").arg(number).arg(QString::fromUtf8(line.left(200)));
            return stream;
        }
        if (notifications) {
            if (value.value("method", "") != "event")
                continue;
            value = value["params"];
        }
        auto event = protocol::eventFromJson(value);
        if (!event) {
            stream.error = QString("line %1: %2").arg(number).arg(QString::fromStdString(event.error().message));
            return stream;
        }
        // What the agent writes reads back through its type's data struct, as every face reads it.
        if (auto data = protocol::payloadFromJson(event->type, event->data); !data) {
            stream.error =
                QString("line %1: %2").arg(number).arg(QString::fromStdString(data.error().message));
            return stream;
        }
        if (auto follows = protocol::checkSeqFollows(previous, event->seq); !follows) {
            stream.error = QString("line %1: %2").arg(number).arg(QString::fromStdString(follows.error().message));
            return stream;
        }
        previous = event->seq;
        stream.events.push_back(std::move(event).value());
    }
    return stream;
}

bool writeScript(const QString& path, const std::vector<nlohmann::json>& turns) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    const std::string text = nlohmann::json{{"turns", turns}}.dump(2);
    return file.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
}

nlohmann::json turn(const std::string& tool, nlohmann::json arguments, const std::string& content) {
    nlohmann::json value = {{"tool_calls", {{{"name", tool}, {"arguments", std::move(arguments)}}}}};
    if (!content.empty())
        value["content"] = content;
    return value;
}

bool copyTree(const QString& from, const QString& to) {
    QDirIterator it(from, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString source = it.next();
        const QString target = to + "/" + QDir(from).relativeFilePath(source);
        if (it.fileInfo().isDir()) {
            if (!QDir().mkpath(target))
                return false;
        } else if (!QFile::copy(source, target)) {
            return false;
        }
    }
    return true;
}

} // namespace warren::test
