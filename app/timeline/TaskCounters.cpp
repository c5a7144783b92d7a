#include "app/timeline/TaskCounters.h"

#include <algorithm>

namespace warren::timeline {

using namespace protocol;

void TaskCounters::add(const EventPayload& payload, std::uint64_t step,
                       const std::optional<TokenUsage>& usage, std::int64_t ts) {
    steps = std::max(steps, step);
    if (std::holds_alternative<ModelResponseData>(payload)) {
        ++modelCalls;
        if (usage) {
            tokensIn += usage->input;
            tokensOut += usage->output;
            tokensReasoning += usage->reasoning;
        }
    } else if (std::holds_alternative<ToolCallData>(payload)) {
        ++toolCalls;
    } else if (const auto* changed = std::get_if<FileChangedData>(&payload)) {
        if (changed->path.empty())
            return;
        FileChange& file = files[changed->path];
        file.change = std::string(toString(changed->change));
        file.added += changed->added.value_or(0);
        file.removed += changed->removed.value_or(0);
    } else if (const auto* sample = std::get_if<ResourceSampleData>(&payload)) {
        memoryBytes.push_back(static_cast<double>(sample->rssBytes));
        const auto cpuMs = static_cast<std::int64_t>(sample->cpuMs);
        // A new run of the agent starts its CPU clock again: no sample across the restart.
        if (m_lastCpuMs >= 0 && ts > m_lastSampleMs && cpuMs >= m_lastCpuMs)
            cpuPercent.push_back(100.0 * static_cast<double>(cpuMs - m_lastCpuMs) /
                                 static_cast<double>(ts - m_lastSampleMs));
        m_lastCpuMs = cpuMs;
        m_lastSampleMs = ts;
    }
}

} // namespace warren::timeline
