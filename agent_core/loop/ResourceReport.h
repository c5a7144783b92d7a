#pragma once
// /output/resource_report.json (DESIGN §4): what the task cost, summed over every run of it (a resumed
// task counts its earlier runs too), written once at the end.

#include "agent_core/state/Checkpoint.h"

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::agent {

struct ReportInputs {
    RunCounters counters;               // cumulative, this run included
    std::string exitReason;             // as in task_finished
    std::vector<std::string> toolsLoaded;
    std::uint64_t subagentsStarted = 0; // sub-agents of the task (spawn_agent); their counters summed:
    RunCounters subagentCounters;       // not in `counters`, which are the task's own agent's
};

nlohmann::json resourceReportJson(const ReportInputs& inputs);

// Writes the report atomically (temp file and rename) into dir; the error says what failed.
Status writeResourceReport(const std::filesystem::path& dir, const nlohmann::json& report);

// CPU time of the agent and the tools it waited for, in ms; its peak RSS in bytes (getrusage).
std::uint64_t cpuMillisSoFar();
std::uint64_t peakRssBytesSoFar();
// Wall time since start, in ms (steady clock).
std::uint64_t millisSince(std::chrono::steady_clock::time_point start);

} // namespace warren::agent
