// What compaction saves on a long task: the agent run in-process on a scripted task of many tool calls with
// large outputs (read_file of 40 files of 8 KB, then finish), three ways: compaction off (a context window
// no conversation reaches), the mechanical summary, and the model-written handoff summary. For each, the
// estimated tokens sent (agent_core's estimate, four bytes a token: messages and tool specs) in total and
// per model call, side by side with the ratio to compaction off. The handoff requests are model calls too:
// their tokens, sent and answered, are counted in the model-written column. The model is the scripted one;
// a request without tools (the handoff request) is answered by this bench with a fixed note of about 200
// tokens, the size a real model's note would be, so the figures do not depend on a script's position.
//   bench_compaction [CONTEXT_WINDOW_LIMIT]   (default 32000, the setting's default)

#include "agent_core/context/TokenEstimate.h"
#include "agent_core/llm/ScriptedLlm.h"
#include "agent_core/loop/Agent.h"
#include "agent_core/protocol/Script.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace warren;
using namespace warren::agent;
namespace fs = std::filesystem;

constexpr int kFiles = 40;
constexpr std::size_t kFileBytes = 8000;

// A handoff note of about 200 tokens under the four headings.
std::string handoffNote() {
    std::string note = "## Goal\nRead every file under src/ and report what each holds.\n## Done\n";
    for (int i = 1; i <= 12; ++i)
        note += "- read src/file" + std::to_string(i) + ".txt: numbered lines of sample text\n";
    note += "## Pending\n- read the remaining files under src/, then call finish\n"
            "## State of the code and tests\nNothing changed; no tests were run.";
    return note;
}

// The scripted model for the task's steps; a request without tools gets the handoff note. Records what
// each call was sent and answered.
class BenchLlm : public Llm {
public:
    explicit BenchLlm(protocol::Script script) : m_scripted(std::move(script)) {}
    struct Call {
        std::uint64_t sentTokens = 0;
        std::uint64_t answerTokens = 0;
        bool handoff = false;
    };
    std::vector<Call> calls;

    Result<protocol::LlmChatResult> chat(const protocol::LlmChatParams& params,
                                         std::chrono::steady_clock::time_point deadline,
                                         const Cancellation& cancellation) override {
        std::uint64_t toolBytes = 0;
        for (const auto& tool : params.tools)
            toolBytes += protocol::toJson(tool).dump().size();
        Call call{estimateTokens(params.messages) + (toolBytes + kBytesPerToken - 1) / kBytesPerToken, 0,
                  params.tools.empty()};
        protocol::LlmChatResult result;
        if (call.handoff) {
            result.content = handoffNote();
            result.finishReason = "stop";
            call.answerTokens = (result.content.size() + kBytesPerToken - 1) / kBytesPerToken;
        } else {
            auto reply = m_scripted.chat(params, deadline, cancellation);
            if (!reply)
                return reply;
            result = std::move(reply).value();
        }
        calls.push_back(call);
        return result;
    }

private:
    ScriptedLlm m_scripted;
};

class NullSink : public EventSink {
public:
    bool write(const protocol::Event&) override { return true; }
};

std::string taskScript() {
    nlohmann::json turns = nlohmann::json::array();
    for (int i = 1; i <= kFiles; ++i)
        turns.push_back({{"tool_calls",
                          {{{"name", "read_file"},
                            {"arguments", {{"path", "src/file" + std::to_string(i) + ".txt"}}}}}}});
    turns.push_back({{"tool_calls", {{{"name", "finish"}, {"arguments", {{"summary", "read them all"}}}}}}});
    return nlohmann::json{{"turns", turns}}.dump();
}

void writeWorkspace(const fs::path& workspace) {
    fs::create_directories(workspace / "src");
    for (int i = 1; i <= kFiles; ++i) {
        std::ofstream out(workspace / "src" / ("file" + std::to_string(i) + ".txt"));
        std::string text;
        for (int line = 1; text.size() < kFileBytes; ++line)
            text += "file " + std::to_string(i) + " line " + std::to_string(line) +
                    ": the quick brown fox jumps over the lazy dog\n";
        out << text.substr(0, kFileBytes);
    }
}

struct Mode {
    const char* name;
    nlohmann::json overrides;
    std::vector<BenchLlm::Call> calls;
};

bool runTask(Mode& mode) {
    auto script = protocol::parseScript(taskScript(), "bench");
    if (!script) {
        std::fprintf(stderr, "%s\n", script.error().message.c_str());
        return false;
    }
    auto agent = createAgent({}, mode.overrides);
    if (!agent) {
        std::fprintf(stderr, "%s\n", agent.error().message.c_str());
        return false;
    }
    const fs::path workspace = fs::temp_directory_path() / ("bench-compaction-" + std::to_string(::getpid()));
    fs::remove_all(workspace);
    writeWorkspace(workspace);
    auto model = std::make_unique<BenchLlm>(std::move(script).value());
    BenchLlm* recorded = model.get();
    (*agent)->setModel(std::move(model));
    (*agent)->setRunFacts({"bwrap", "none", "openai", "gpt-5"});
    NullSink sink;
    EventLog events(sink);
    Cancellation cancellation;
    const auto outcome = (*agent)->run({workspace, std::nullopt, std::nullopt}, "bench",
                                       "Read every file under src/", events, cancellation);
    fs::remove_all(workspace);
    if (outcome.reason != ExitReason::Finished) {
        std::fprintf(stderr, "%s: the task did not finish: %s\n", mode.name, outcome.summary.c_str());
        return false;
    }
    mode.calls = recorded->calls;
    return true;
}

struct Totals {
    std::uint64_t sent = 0;     // every call's input
    std::uint64_t answered = 0; // the handoff notes' output
    std::uint64_t steps = 0;
    std::uint64_t handoffs = 0;
    std::uint64_t peak = 0; // the largest step call
};

Totals totalsOf(const Mode& mode) {
    Totals totals;
    for (const auto& call : mode.calls) {
        totals.sent += call.sentTokens;
        totals.answered += call.answerTokens;
        if (call.handoff) {
            ++totals.handoffs;
        } else {
            ++totals.steps;
            totals.peak = std::max(totals.peak, call.sentTokens);
        }
    }
    return totals;
}

std::vector<std::uint64_t> stepTokens(const Mode& mode) {
    std::vector<std::uint64_t> out;
    for (const auto& call : mode.calls) {
        if (!call.handoff)
            out.push_back(call.sentTokens);
    }
    return out;
}

unsigned long long ull(std::uint64_t value) {
    return static_cast<unsigned long long>(value);
}

} // namespace

int main(int argc, char** argv) {
    const std::uint64_t limit = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 32000;
    std::vector<Mode> modes = {
        {"off", {{"context_window_limit", 1000000000}}, {}},
        {"mechanical", {{"context_window_limit", limit}, {"compaction_summary", "mechanical"}}, {}},
        {"model", {{"context_window_limit", limit}, {"compaction_summary", "model"}}, {}},
    };
    for (auto& mode : modes) {
        if (!runTask(mode))
            return 1;
    }

    std::printf("# estimated tokens sent per step (4 bytes a token), %d reads of %zu bytes, "
                "context_window_limit %llu\n",
                kFiles, kFileBytes, ull(limit));
    std::printf("%-6s %10s %12s %8s %10s %8s\n", "step", "off", "mechanical", "ratio", "model", "ratio");
    const auto off = stepTokens(modes[0]);
    const auto mechanical = stepTokens(modes[1]);
    const auto model = stepTokens(modes[2]);
    for (std::size_t i = 0; i < off.size() && i < mechanical.size() && i < model.size(); ++i) {
        if ((i + 1) % 5 != 0 && i + 1 != off.size() && i != 0)
            continue;
        std::printf("%-6zu %10llu %12llu %8.2f %10llu %8.2f\n", i + 1, ull(off[i]), ull(mechanical[i]),
                    static_cast<double>(mechanical[i]) / static_cast<double>(off[i]), ull(model[i]),
                    static_cast<double>(model[i]) / static_cast<double>(off[i]));
    }
    const Totals t0 = totalsOf(modes[0]);
    std::printf("%-10s %6s %8s %12s %14s %10s %8s\n", "# mode", "steps", "handoffs", "sent total",
                "handoff notes", "peak step", "ratio");
    std::string json;
    for (const auto& mode : modes) {
        const Totals t = totalsOf(mode);
        const double ratio =
            static_cast<double>(t.sent + t.answered) / static_cast<double>(t0.sent + t0.answered);
        std::printf("%-10s %6llu %8llu %12llu %14llu %10llu %8.2f\n", mode.name, ull(t.steps),
                    ull(t.handoffs), ull(t.sent), ull(t.answered), ull(t.peak), ratio);
        json += (json.empty() ? "" : ",") + std::string("\"") + mode.name +
                "\":{\"steps\":" + std::to_string(t.steps) + ",\"handoffs\":" + std::to_string(t.handoffs) +
                ",\"sent\":" + std::to_string(t.sent) + ",\"answered\":" + std::to_string(t.answered) +
                ",\"peak_step\":" + std::to_string(t.peak) + "}";
    }
    std::printf("{\"bench\":\"compaction\",\"context_window_limit\":%llu,%s}\n", ull(limit), json.c_str());
    return 0;
}
