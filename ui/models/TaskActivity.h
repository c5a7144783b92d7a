#pragma once
// The running totals of one task that the side panel shows, in Qt's terms: a copy of the fold's
// timeline::TaskCounters (memory and CPU samples, model calls, tool calls, the files it changed).

#include "TaskCounters.h"

#include <QString>
#include <cstdint>
#include <map>
#include <vector>

namespace warren::ui {

struct TaskActivity {
    struct FileChange {
        QString change; // "created", "modified", "deleted"
        int added = 0;
        int removed = 0;
        friend bool operator==(const FileChange&, const FileChange&) = default;
    };

    std::vector<double> memoryBytes; // resource_sample rss_bytes, in order
    std::vector<double> cpuPercent;  // CPU time over wall time between two samples
    std::uint64_t modelCalls = 0;
    std::uint64_t toolCalls = 0;
    std::uint64_t steps = 0;
    std::uint64_t tokensIn = 0;
    std::uint64_t tokensOut = 0;
    std::map<QString, FileChange> files; // by workspace-relative path

    void update(const timeline::TaskCounters& counters);
};

// "2026-11-29T10:52:03.123Z" -> milliseconds since the epoch; -1 when it does not parse.
std::int64_t parseTimestampMs(const std::string& text);

} // namespace warren::ui
