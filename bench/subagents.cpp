// Sub-agents against one agent, side by side, with a model that takes LATENCY ms per reply:
//  - parallel: the task's agent starts three sub-agents (spawn_agent), each writes WRITES files then
//    finishes, and the task's agent waits for them (wait_agents) and finishes;
//  - sequential: one agent writes the same 3 x WRITES files itself, then finishes.
// This program is the control plane: it runs `warren-agent serve` and answers every llm.chat (of any
// agent) LATENCY ms after it came, several at once. Printed: wall time of each (median over ROUNDS), their
// ratio, and the agent's peak resident memory in each (its resource report).
//   bench_subagents WARREN_AGENT [LATENCY_MS] [WRITES] [ROUNDS]

#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/LineReader.h"
#include "agent_core/protocol/Methods.h"
#include "bench/BenchStats.h"

#include <cstdio>
#include <fcntl.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

using nlohmann::json;
using warren::bench::Clock;
using warren::bench::msSince;
namespace fs = std::filesystem;

constexpr int kAgents = 3;

json toolCall(const std::string& id, const std::string& name, json arguments) {
    return {{"id", id}, {"name", name}, {"arguments", std::move(arguments)}};
}

json reply(std::vector<json> calls) {
    return {{"content", ""}, {"tool_calls", std::move(calls)}, {"token_usage", {{"input", 100}, {"output", 20}}},
            {"finish_reason", "tool_calls"}};
}

// What the model answers: by the agent asking and how many replies its conversation already has.
json answer(bool parallel, int writes, const json& params) {
    const std::string agent = params.value("agent", "");
    int turn = 0;
    for (const auto& message : params["messages"])
        turn += message.value("role", "") == "assistant";
    const std::string id = "c" + std::to_string(turn);
    auto write = [&](const std::string& owner, int index) {
        return reply({toolCall(id, "write_file", {{"path", owner + "-" + std::to_string(index) + ".txt"},
                                                  {"content", "written by " + owner + "\n"}})});
    };
    auto finish = [&] { return reply({toolCall(id, "finish", {{"summary", "done"}})}); };
    if (!agent.empty()) // a sub-agent
        return turn < writes ? write(agent, turn) : finish();
    if (!parallel)
        return turn < kAgents * writes ? write("agent-" + std::to_string(turn / writes + 1), turn % writes) : finish();
    if (turn == 0) {
        std::vector<json> spawns;
        for (int i = 1; i <= kAgents; ++i)
            spawns.push_back(toolCall("s" + std::to_string(i), "spawn_agent",
                                      {{"brief", "Write your " + std::to_string(writes) + " files."}}));
        return reply(spawns);
    }
    return turn == 1 ? reply({toolCall(id, "wait_agents", json::object())}) : finish();
}

struct Outcome {
    double wallMs = 0;
    double peakRssMb = 0;
    int exitCode = -1;
    int modelCalls = 0;
};

Outcome runOnce(const std::string& agentBinary, bool parallel, int latencyMs, int writes) {
    const fs::path root = fs::temp_directory_path() / ("bench-subagents-" + std::to_string(getpid()));
    fs::remove_all(root);
    for (const char* dir : {"workspace", "state", "output"})
        fs::create_directories(root / dir);
    int toAgent[2], fromAgent[2];
    if (pipe(toAgent) != 0 || pipe(fromAgent) != 0)
        return {};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, toAgent[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fromAgent[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0); // its diagnostics
    posix_spawn_file_actions_addclose(&actions, toAgent[1]);
    posix_spawn_file_actions_addclose(&actions, fromAgent[0]);
    const std::vector<std::string> args = {agentBinary, "serve",
                                           "--workspace", (root / "workspace").string(),
                                           "--state", (root / "state").string(),
                                           "--output", (root / "output").string()};
    std::vector<char*> argv;
    for (const auto& arg : args)
        argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    const auto started = Clock::now();
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
        std::fprintf(stderr, "cannot run %s\n", argv[0]);
        return {};
    }
    posix_spawn_file_actions_destroy(&actions);
    close(toAgent[0]);
    close(fromAgent[1]);
    auto send = [&](const json& message) {
        const std::string line = message.dump() + "\n";
        [[maybe_unused]] const auto written = write(toAgent[1], line.data(), line.size());
    };
    const json overrides = parallel ? json{{"max_subagents", kAgents}} : json::object();
    send({{"jsonrpc", "2.0"}, {"id", "start"}, {"method", "task.start"},
          {"params", {{"protocol_version", warren::protocol::kProtocolVersion}, {"task_id", "bench"},
                      {"prompt", "Write the files"}, {"overrides", overrides}}}});

    Outcome outcome;
    std::multimap<Clock::time_point, json> due; // answers, by when the model "replies"
    warren::protocol::LineReader reader;
    char buffer[65536];
    for (bool open = true; open;) {
        int timeoutMs = -1;
        if (!due.empty())
            timeoutMs = std::max(0, static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                        due.begin()->first - Clock::now()).count()));
        pollfd fd{fromAgent[0], POLLIN, 0};
        if (poll(&fd, 1, timeoutMs) > 0) {
            const auto got = read(fromAgent[0], buffer, sizeof buffer);
            if (got <= 0) {
                open = false;
            } else {
                for (auto& line : reader.feed(std::string(buffer, static_cast<std::size_t>(got)))) {
                    if (!line)
                        continue;
                    const json message = json::parse(*line, nullptr, false);
                    if (message.value("method", "") != "llm.chat")
                        continue;
                    ++outcome.modelCalls;
                    due.emplace(Clock::now() + std::chrono::milliseconds(latencyMs),
                                json{{"jsonrpc", "2.0"}, {"id", message["id"]},
                                     {"result", answer(parallel, writes, message["params"])}});
                }
            }
        }
        while (!due.empty() && due.begin()->first <= Clock::now()) {
            send(due.begin()->second);
            due.erase(due.begin());
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    outcome.wallMs = msSince(started);
    outcome.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    close(toAgent[1]);
    close(fromAgent[0]);
    std::ifstream report(root / "output" / "resource_report.json");
    const json figures = json::parse(report, nullptr, false);
    if (figures.is_object())
        outcome.peakRssMb = figures.value("peak_rss_bytes", 0.0) / (1024.0 * 1024.0);
    fs::remove_all(root);
    return outcome;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s WARREN_AGENT [LATENCY_MS] [WRITES] [ROUNDS]\n", argv[0]);
        return 2;
    }
    const std::string agent = argv[1];
    const int latencyMs = argc > 2 ? std::atoi(argv[2]) : 200;
    const int writes = argc > 3 ? std::atoi(argv[3]) : 5;
    const int rounds = argc > 4 ? std::atoi(argv[4]) : 3;
    std::vector<double> parallelMs, sequentialMs, parallelRss, sequentialRss;
    int parallelCalls = 0, sequentialCalls = 0;
    for (int round = 0; round < rounds; ++round) {
        const Outcome together = runOnce(agent, true, latencyMs, writes);
        const Outcome alone = runOnce(agent, false, latencyMs, writes);
        if (together.exitCode != 0 || alone.exitCode != 0) {
            std::fprintf(stderr, "a run failed (exit %d parallel, %d sequential)\n", together.exitCode, alone.exitCode);
            return 1;
        }
        parallelMs.push_back(together.wallMs);
        sequentialMs.push_back(alone.wallMs);
        parallelRss.push_back(together.peakRssMb);
        sequentialRss.push_back(alone.peakRssMb);
        parallelCalls = together.modelCalls;
        sequentialCalls = alone.modelCalls;
    }
    const double parallel = warren::bench::percentile(parallelMs, 0.5);
    const double sequential = warren::bench::percentile(sequentialMs, 0.5);
    std::printf("model latency %d ms, %d sub-agents x %d writes, median of %d rounds\n", latencyMs, kAgents, writes,
                rounds);
    std::printf("%-34s %10s %12s %14s\n", "", "wall ms", "model calls", "peak RSS MiB");
    std::printf("%-34s %10.0f %12d %14.1f\n", "3 sub-agents in parallel", parallel, parallelCalls,
                warren::bench::percentile(parallelRss, 0.5));
    std::printf("%-34s %10.0f %12d %14.1f\n", "one agent, the same work in turn", sequential, sequentialCalls,
                warren::bench::percentile(sequentialRss, 0.5));
    std::printf("wall time ratio parallel/sequential: %.2f\n", parallel / sequential);
    return 0;
}
