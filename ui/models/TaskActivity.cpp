#include "TaskActivity.h"

#include <QDateTime>

namespace warren::ui {

using nlohmann::json;

namespace {

std::uint64_t unsignedField(const json& object, const char* name) {
    const auto it = object.find(name);
    if (it == object.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0)
        return 0;
    return it->get<std::uint64_t>();
}

} // namespace

std::int64_t parseTimestampMs(const std::string& text) {
    const QDateTime time = QDateTime::fromString(QString::fromStdString(text), Qt::ISODateWithMs);
    return time.isValid() ? time.toMSecsSinceEpoch() : -1;
}

void TaskActivity::add(const json& event) {
    if (!event.is_object())
        return;
    const std::string type = event.value("type", "");
    static const json kNoData = json::object();
    const auto found = event.find("data");
    const json& data = found != event.end() && found->is_object() ? *found : kNoData;
    steps = std::max(steps, unsignedField(event, "step"));
    if (type == "model_response") {
        ++modelCalls;
        if (const auto usage = event.find("token_usage"); usage != event.end() && usage->is_object()) {
            tokensIn += unsignedField(*usage, "input");
            tokensOut += unsignedField(*usage, "output");
        }
    } else if (type == "tool_call") {
        ++toolCalls;
    } else if (type == "file_changed") {
        const QString path = QString::fromStdString(data.value("path", ""));
        if (path.isEmpty())
            return;
        FileChange& file = files[path];
        file.change = QString::fromStdString(data.value("change", "modified"));
        file.added += static_cast<int>(unsignedField(data, "added"));
        file.removed += static_cast<int>(unsignedField(data, "removed"));
    } else if (type == "resource_sample") {
        memoryBytes.push_back(static_cast<double>(unsignedField(data, "rss_bytes")));
        const auto cpuMs = static_cast<std::int64_t>(unsignedField(data, "cpu_ms"));
        const std::int64_t at = parseTimestampMs(event.value("ts", ""));
        // A new run of the agent starts its CPU clock again: no sample across the restart.
        if (m_lastCpuMs >= 0 && at > m_lastSampleMs && cpuMs >= m_lastCpuMs)
            cpuPercent.push_back(100.0 * static_cast<double>(cpuMs - m_lastCpuMs) /
                                 static_cast<double>(at - m_lastSampleMs));
        m_lastCpuMs = cpuMs;
        m_lastSampleMs = at;
    }
}

} // namespace warren::ui
