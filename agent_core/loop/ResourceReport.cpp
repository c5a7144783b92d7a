#include "agent_core/loop/ResourceReport.h"

#include "agent_core/state/AtomicFile.h"

#include <sys/resource.h>

namespace warren::agent {

nlohmann::json resourceReportJson(const ReportInputs& inputs) {
    const auto& c = inputs.counters;
    nlohmann::json report = {{"wall_ms", c.wallMs},
            {"cpu_ms", c.cpuMs},
            {"peak_rss_bytes", c.peakRssBytes},
            {"steps", c.steps},
            {"model_calls", c.modelCalls},
            {"tokens_in", c.tokensIn},
            {"tokens_out", c.tokensOut},
            {"tokens_reasoning", c.tokensReasoning},
            {"tool_calls", c.toolCalls},
            {"cache_hits", c.cacheHits},
            {"checkpoints", c.checkpoints},
            {"bytes_written", c.bytesWritten},
            {"resumes", c.resumes},
            {"interrupted_calls", c.interruptedCalls},
            {"tools_loaded", inputs.toolsLoaded},
            {"exit_reason", inputs.exitReason}};
    if (inputs.subagentsStarted) {
        const auto& s = inputs.subagentCounters;
        report["subagents"] = {{"started", inputs.subagentsStarted}, {"steps", s.steps},
                               {"model_calls", s.modelCalls},       {"tokens_in", s.tokensIn},
                               {"tokens_out", s.tokensOut},         {"tool_calls", s.toolCalls}};
    }
    return report;
}

Status writeResourceReport(const std::filesystem::path& dir, const nlohmann::json& report) {
    auto written = writeFileAtomically(dir / "resource_report.json", report.dump(2) + "\n", false, 0644);
    if (!written)
        return written.error();
    return Ok{};
}

std::uint64_t cpuMillisSoFar() {
    auto millis = [](const rusage& usage) {
        return static_cast<std::uint64_t>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 +
               static_cast<std::uint64_t>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
    };
    rusage self{}, children{};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    return millis(self) + millis(children);
}

std::uint64_t peakRssBytesSoFar() {
    rusage self{};
    getrusage(RUSAGE_SELF, &self);
    return static_cast<std::uint64_t>(self.ru_maxrss) * 1024;
}

std::uint64_t millisSince(std::chrono::steady_clock::time_point start) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
            .count());
}

} // namespace warren::agent
