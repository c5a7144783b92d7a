#pragma once
// The running totals of one task, folded from its events: memory and CPU samples, steps, model and tool
// calls, tokens, the files it changed. What the side panel shows and what a remote window will show.

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warren::timeline {

struct TaskCounters {
    struct FileChange {
        std::string change; // "created", "modified", "deleted"
        std::uint64_t added = 0;
        std::uint64_t removed = 0;
        friend bool operator==(const FileChange&, const FileChange&) = default;
    };

    std::vector<double> memoryBytes; // resource_sample rss_bytes, in order
    std::vector<double> cpuPercent;  // CPU time over wall time between two samples
    std::uint64_t modelCalls = 0;
    std::uint64_t toolCalls = 0;
    std::uint64_t steps = 0;       // the task's own agent's
    std::uint64_t subagents = 0;   // started (agent_started); their calls and tokens count above
    std::uint64_t tokensIn = 0;
    std::uint64_t tokensOut = 0;
    std::uint64_t tokensReasoning = 0; // of tokensOut: spent reasoning, where the API counts them
    std::map<std::string, FileChange> files; // by workspace-relative path

    // One event: its envelope's step and token usage, its data already read. ts is -1 when unknown.
    // fromSubAgent: the envelope names an agent (its steps are its own, not the task's).
    void add(const protocol::EventPayload& payload, std::uint64_t step,
             const std::optional<protocol::TokenUsage>& usage, std::int64_t ts, bool fromSubAgent = false);
    // Puts the counters of the events just before these in front of them: counted apart (a window counts
    // the task's earlier events page by page, and the ones it shows in its fold), the two add up to the
    // counters of all of them in one run, the CPU sample across the seam included.
    void prepend(const TaskCounters& earlier);

private:
    std::int64_t m_firstCpuMs = -1; // the first sample's, for a CPU figure across a prepend's seam
    std::int64_t m_firstSampleMs = -1;
    std::int64_t m_lastCpuMs = -1;
    std::int64_t m_lastSampleMs = -1;
};

} // namespace warren::timeline
