#include "TaskActivity.h"

#include <QDateTime>

namespace warren::ui {

std::int64_t parseTimestampMs(const std::string& text) {
    const QDateTime time = QDateTime::fromString(QString::fromStdString(text), Qt::ISODateWithMs);
    return time.isValid() ? time.toMSecsSinceEpoch() : -1;
}

void TaskActivity::update(const timeline::TaskCounters& counters) {
    memoryBytes = counters.memoryBytes;
    cpuPercent = counters.cpuPercent;
    modelCalls = counters.modelCalls;
    toolCalls = counters.toolCalls;
    steps = counters.steps;
    tokensIn = counters.tokensIn;
    tokensOut = counters.tokensOut;
    files.clear();
    for (const auto& [path, file] : counters.files)
        files[QString::fromStdString(path)] = {QString::fromStdString(file.change),
                                               static_cast<int>(file.added), static_cast<int>(file.removed)};
}

} // namespace warren::ui
