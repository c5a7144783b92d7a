#include "app/timeline/TaskCounters.h"

#include <algorithm>

namespace warren::timeline {

using namespace protocol;

void TaskCounters::add(const EventPayload& payload, std::uint64_t step,
                       const std::optional<TokenUsage>& usage, std::int64_t ts, bool fromSubAgent) {
    if (!fromSubAgent)
        steps = std::max(steps, step);
    if (std::holds_alternative<AgentStartedData>(payload)) {
        ++subagents;
    } else if (std::holds_alternative<ModelResponseData>(payload)) {
        ++modelCalls;
        if (usage) {
            tokensIn += usage->input;
            tokensOut += usage->output;
            tokensReasoning += usage->reasoning;
        }
    } else if (const auto* call = std::get_if<ModelCallData>(&payload)) {
        // A CLI agent's call, counted by the control plane's model proxy (count_tokens answers no prompt).
        if (!call->path.ends_with("/count_tokens"))
            ++modelCalls;
        tokensIn += call->inputTokens;
        tokensOut += call->outputTokens;
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
        if (m_lastCpuMs < 0) { // the first sample
            m_firstCpuMs = cpuMs;
            m_firstSampleMs = ts;
        }
        // A new run of the agent starts its CPU clock again: no sample across the restart.
        if (m_lastCpuMs >= 0 && ts > m_lastSampleMs && cpuMs >= m_lastCpuMs)
            cpuPercent.push_back(100.0 * static_cast<double>(cpuMs - m_lastCpuMs) /
                                 static_cast<double>(ts - m_lastSampleMs));
        m_lastCpuMs = cpuMs;
        m_lastSampleMs = ts;
    }
}

void TaskCounters::prepend(const TaskCounters& earlier) {
    std::vector<double> cpu = earlier.cpuPercent;
    // The sample add() would have made from earlier's last and our first, had they been counted in one run.
    if (earlier.m_lastCpuMs >= 0 && m_firstCpuMs >= 0 && m_firstSampleMs > earlier.m_lastSampleMs &&
        m_firstCpuMs >= earlier.m_lastCpuMs)
        cpu.push_back(100.0 * static_cast<double>(m_firstCpuMs - earlier.m_lastCpuMs) /
                      static_cast<double>(m_firstSampleMs - earlier.m_lastSampleMs));
    cpu.insert(cpu.end(), cpuPercent.begin(), cpuPercent.end());
    cpuPercent = std::move(cpu);
    std::vector<double> memory = earlier.memoryBytes;
    memory.insert(memory.end(), memoryBytes.begin(), memoryBytes.end());
    memoryBytes = std::move(memory);
    modelCalls += earlier.modelCalls;
    toolCalls += earlier.toolCalls;
    steps = std::max(steps, earlier.steps);
    subagents += earlier.subagents;
    tokensIn += earlier.tokensIn;
    tokensOut += earlier.tokensOut;
    for (const auto& [path, change] : earlier.files) {
        const auto [it, added] = files.try_emplace(path, change);
        if (!added) { // the later change names what the file is now; the lines add up
            it->second.added += change.added;
            it->second.removed += change.removed;
        }
    }
    if (earlier.m_lastCpuMs >= 0) { // earlier had samples: its first is the first
        m_firstCpuMs = earlier.m_firstCpuMs;
        m_firstSampleMs = earlier.m_firstSampleMs;
    }
    if (m_lastCpuMs < 0) {
        m_lastCpuMs = earlier.m_lastCpuMs;
        m_lastSampleMs = earlier.m_lastSampleMs;
    }
}

} // namespace warren::timeline
