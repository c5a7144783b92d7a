// A reply's read-only calls at the same time (ConcurrentCalls, as the loop runs them) against the same calls
// one after another, with the real tools on a workspace of real files:
//  - search: CALLS searches, each over its own directory of 25 text files of 2,000 lines (std::regex over
//    about 3 MB a call: the read-only call whose cost is real);
//  - read_file: CALLS reads of 1 MB files (the default window: the first 2,000 lines);
//  - the searches through the agent loop (an in-process model that answers at once): one reply of CALLS
//    calls against CALLS replies of one call each, which run one after another.
// Interleaved rounds, medians; the ratio is parallel / sequential (below 1: faster).
//   bench_read_ahead [CALLS] [ROUNDS]

#include "agent_core/loop/Agent.h"
#include "agent_core/loop/ConcurrentCalls.h"
#include "agent_core/tools/ReadFileTool.h"
#include "agent_core/tools/SearchTool.h"
#include "bench/BenchStats.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace warren::agent;
using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void makeWorkspace(const fs::path& root, int calls) {
    for (int d = 0; d < calls; ++d) {
        const fs::path dir = root / ("dir" + std::to_string(d));
        fs::create_directories(dir);
        for (int f = 0; f < 25; ++f) {
            std::ofstream out(dir / ("file" + std::to_string(f) + ".txt"));
            for (int line = 0; line < 2000; ++line)
                out << "line " << line << " of file " << f << " in dir " << d
                    << ": some words to search through\n";
        }
        std::ofstream big(root / ("big" + std::to_string(d) + ".txt"));
        for (int line = 0; line < 16000; ++line)
            big << "a line of a large file to read, number " << line << " of 16000, padded out\n";
    }
}

struct Batch {
    std::string name;
    Tool* tool;
    std::vector<json> arguments;
};

double sequentialMs(const Batch& batch, const ToolEnv& env) {
    const auto start = Clock::now();
    for (const auto& arguments : batch.arguments)
        if (!batch.tool->run(arguments, env).ok)
            std::exit(1);
    return msSince(start);
}

double concurrentMs(const Batch& batch, const ToolEnv& env) {
    const auto start = Clock::now();
    std::vector<ConcurrentCalls::Call> calls;
    for (std::size_t i = 0; i < batch.arguments.size(); ++i)
        calls.push_back({"c" + std::to_string(i), batch.tool, batch.arguments[i], env});
    ConcurrentCalls running(std::move(calls));
    for (std::size_t i = 0; i < batch.arguments.size(); ++i)
        if (!running.take("c" + std::to_string(i), env).outcome.ok)
            std::exit(1);
    return msSince(start);
}

class ListedLlm : public Llm {
public:
    std::deque<warren::protocol::LlmChatResult> replies;
    warren::Result<warren::protocol::LlmChatResult> chat(const warren::protocol::LlmChatParams&,
                                                         Clock::time_point, const Cancellation&) override {
        if (replies.empty())
            return warren::makeError(warren::ErrorCode::System, "no reply left");
        auto reply = replies.front();
        replies.pop_front();
        return reply;
    }
};

class NullSink : public EventSink {
public:
    bool write(const warren::protocol::Event&) override { return true; }
};

warren::protocol::LlmChatResult replyOf(std::vector<warren::protocol::ToolCall> calls) {
    warren::protocol::LlmChatResult reply;
    reply.toolCalls = std::move(calls);
    reply.finishReason = "tool_calls";
    return reply;
}

// The task's wall time with the model's replies given: the loop's own work and the tools'.
double agentMs(const fs::path& workspace, std::deque<warren::protocol::LlmChatResult> replies) {
    replies.push_back(replyOf({{"fin", "finish", {{"summary", "done"}}}}));
    auto agent = createAgent({"local-light"},
                             {{"tools", {"search"}}, {"execution_cache", false}, {"log_level", "warn"}});
    if (!agent)
        std::exit(1);
    auto model = std::make_unique<ListedLlm>();
    model->replies = std::move(replies);
    (*agent)->setModel(std::move(model));
    NullSink sink;
    EventLog events(sink);
    Cancellation cancellation;
    const auto start = Clock::now();
    const auto outcome =
        (*agent)->run({workspace, std::nullopt, std::nullopt}, "bench", "search", events, cancellation);
    const double ms = msSince(start);
    if (outcome.reason != ExitReason::Finished)
        std::exit(1);
    return ms;
}

} // namespace

int main(int argc, char** argv) {
    const int callCount = argc > 1 ? std::atoi(argv[1]) : 8;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    const fs::path root = fs::temp_directory_path() / ("warren-bench-read-ahead-" + std::to_string(getpid()));
    makeWorkspace(root, callCount);

    Cancellation cancellation;
    ToolEnv env;
    env.workspace = root;
    env.cancellation = &cancellation;
    SearchTool search;
    ReadFileTool read;
    std::vector<Batch> batches = {{"search", &search, {}}, {"read_file", &read, {}}};
    for (int i = 0; i < callCount; ++i) {
        // Found in a few lines only, so each search reads its whole directory (a search stops at 500
        // matches).
        batches[0].arguments.push_back(
            {{"pattern", "line 1999 of file 2[0-9] "}, {"path", "dir" + std::to_string(i)}});
        batches[1].arguments.push_back({{"path", "big" + std::to_string(i) + ".txt"}});
    }
    for (const auto& batch : batches) // warm the page cache: both variants read from memory
        sequentialMs(batch, env);

    std::printf("# %d read-only calls in one reply, %d interleaved rounds (medians), at most %zu at once, "
                "%u hardware threads\n",
                callCount, rounds, ConcurrentCalls::kMaxAtOnce, std::thread::hardware_concurrency());
    std::printf("%-12s %14s %14s %8s\n", "tool", "sequential ms", "concurrent ms", "ratio");
    std::string jsonLine = "{\"bench\":\"read_ahead\",\"calls\":" + std::to_string(callCount) +
                           ",\"rounds\":" + std::to_string(rounds);
    for (const auto& batch : batches) {
        std::vector<double> sequential, concurrent;
        for (int round = 0; round < rounds; ++round) {
            sequential.push_back(sequentialMs(batch, env));
            concurrent.push_back(concurrentMs(batch, env));
        }
        const double s = percentile(sequential, 0.5);
        const double c = percentile(concurrent, 0.5);
        std::printf("%-12s %14.2f %14.2f %8.2f\n", batch.name.c_str(), s, c, c / s);
        char part[160];
        std::snprintf(part, sizeof part, ",\"%s_sequential_ms\":%.2f,\"%s_concurrent_ms\":%.2f",
                      batch.name.c_str(), s, batch.name.c_str(), c);
        jsonLine += part;
    }
    std::deque<warren::protocol::LlmChatResult> oneReply, oneByOne;
    std::vector<warren::protocol::ToolCall> searches;
    for (std::size_t i = 0; i < batches[0].arguments.size(); ++i) {
        searches.push_back({"s" + std::to_string(i), "search", batches[0].arguments[i]});
        oneByOne.push_back(replyOf({searches.back()}));
    }
    oneReply.push_back(replyOf(searches));
    std::vector<double> sequential, concurrent;
    for (int round = 0; round < rounds; ++round) {
        sequential.push_back(agentMs(root, oneByOne));
        concurrent.push_back(agentMs(root, oneReply));
    }
    const double s = percentile(sequential, 0.5);
    const double c = percentile(concurrent, 0.5);
    std::printf("%-12s %14.2f %14.2f %8.2f   (the agent loop: %d replies of one call / one reply)\n",
                "search, loop", s, c, c / s, callCount);
    char part[160];
    std::snprintf(part, sizeof part, ",\"loop_sequential_ms\":%.2f,\"loop_concurrent_ms\":%.2f", s, c);
    jsonLine += part;
    std::printf("%s}\n", jsonLine.c_str());
    fs::remove_all(root);
    return 0;
}
