// warren-agent's own cost, measured side by side with what it wraps:
//  - per step: a STEPS-step scripted task whose tool is trivial, with the fsync'd checkpoint after every
//    step, minus the same number of bare spawns of the tool's process (shell) or minus nothing (read_file,
//    which runs in the agent); median over ROUNDS;
//  - start to first event: spawn to the first byte of stdout, next to spawn-to-exit of /bin/true;
//  - peak resident memory over a 200-step task (the agent's own, from its resource report).
//   bench_agent_loop WARREN_AGENT [STEPS] [ROUNDS]

#include "bench/BenchStats.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

using warren::bench::msSince;
using warren::bench::Clock;
namespace fs = std::filesystem;

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Spawns args with stdout to a pipe (returned) or /dev/null.
pid_t spawn(const std::vector<std::string>& args, int* stdoutRead) {
    std::vector<char*> argv;
    for (const auto& arg : args)
        argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    int fds[2] = {-1, -1};
    if (stdoutRead) {
        if (pipe(fds) != 0)
            std::exit(1);
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&actions, fds[0]);
        posix_spawn_file_actions_addclose(&actions, fds[1]);
    } else {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
        std::fprintf(stderr, "cannot run %s\n", argv[0]);
        std::exit(1);
    }
    posix_spawn_file_actions_destroy(&actions);
    if (stdoutRead) {
        close(fds[1]);
        *stdoutRead = fds[0];
    }
    return pid;
}

void waitOk(pid_t pid, const std::string& what) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "%s failed (status %d)\n", what.c_str(), status);
        std::exit(1);
    }
}

void writeScript(const fs::path& path, const nlohmann::json& call, int steps) {
    nlohmann::json turns = nlohmann::json::array();
    for (int i = 0; i < steps; ++i)
        turns.push_back({{"tool_calls", {call}}});
    turns.push_back({{"tool_calls", {{{"name", "finish"}, {"arguments", {{"summary", "done"}}}}}}});
    std::ofstream(path) << nlohmann::json{{"turns", turns}}.dump();
}

struct Dirs {
    fs::path root;
    explicit Dirs(const fs::path& base, const std::string& name) : root(base / name) {
        fs::remove_all(root);
        for (const char* dir : {"workspace", "state", "output"})
            fs::create_directories(root / dir);
        std::ofstream(root / "workspace" / "small.txt") << "one line\n";
    }
    std::vector<std::string> run(const std::string& agent, const fs::path& script, bool state,
                                 const std::vector<std::string>& extra = {}) const {
        std::vector<std::string> args = {agent, "run", "--script", script, "--workspace", root / "workspace",
                                         "--output", root / "output", "--set", "execution_cache=false",
                                         "--set", "memory_backend=in-memory",
                                         "--set", "max_steps=100000"};
        if (state) {
            args.push_back("--state");
            args.push_back(root / "state");
        }
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back("benchmark");
        return args;
    }
};

double runMs(const std::vector<std::string>& args) {
    const auto start = Clock::now();
    waitOk(spawn(args, nullptr), args[0]);
    return msSince(start);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s WARREN_AGENT [STEPS] [ROUNDS]\n", argv[0]);
        return 2;
    }
    const std::string agent = argv[1];
    const int steps = argc > 2 ? std::atoi(argv[2]) : 1000;
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
    const fs::path base = fs::temp_directory_path() / ("warren-bench-agent-" + std::to_string(getpid()));
    fs::create_directories(base);

    const auto readScript = base / "read.json";
    const auto shellScript = base / "shell.json";
    writeScript(readScript, {{"name", "read_file"}, {"arguments", {{"path", "small.txt"}}}}, steps);
    writeScript(shellScript, {{"name", "shell"}, {"arguments", {{"command", "true"}}}}, steps);

    // Interleaved rounds, each variant on fresh directories.
    std::vector<double> readState, readNoState, shell, bareShell;
    for (int round = 0; round < rounds; ++round) {
        readState.push_back(runMs(Dirs(base, "a").run(agent, readScript, true)) / steps);
        readNoState.push_back(runMs(Dirs(base, "b").run(agent, readScript, false)) / steps);
        shell.push_back(runMs(Dirs(base, "c").run(agent, shellScript, true)) / steps);
        const auto start = Clock::now();
        for (int i = 0; i < steps; ++i)
            waitOk(spawn({"/bin/sh", "-c", "true"}, nullptr), "sh -c true");
        bareShell.push_back(msSince(start) / steps);
    }

    // Spawn to the first event on stdout.
    const auto oneStep = base / "one.json";
    writeScript(oneStep, {{"name", "read_file"}, {"arguments", {{"path", "small.txt"}}}}, 0);
    std::vector<double> firstEvent, trueExit;
    const Dirs startDirs(base, "d");
    for (int i = 0; i < 50; ++i) {
        int out = -1;
        const auto start = Clock::now();
        const pid_t pid = spawn(startDirs.run(agent, oneStep, false), &out);
        pollfd fd{out, POLLIN, 0};
        poll(&fd, 1, -1);
        firstEvent.push_back(msSince(start));
        char buffer[65536];
        while (read(out, buffer, sizeof buffer) > 0) {
        }
        close(out);
        waitOk(pid, "warren-agent");
        trueExit.push_back(runMs({"/bin/true"}));
    }

    // Peak RSS over 200 steps alternating an in-process tool and a process.
    nlohmann::json turns = nlohmann::json::array();
    for (int i = 0; i < 100; ++i) {
        turns.push_back({{"tool_calls", {{{"name", "read_file"}, {"arguments", {{"path", "small.txt"}}}}}}});
        turns.push_back({{"tool_calls", {{{"name", "shell"}, {"arguments", {{"command", "echo step"}}}}}}});
    }
    turns.push_back({{"tool_calls", {{{"name", "finish"}, {"arguments", {{"summary", "done"}}}}}}});
    const auto rssScript = base / "rss.json";
    std::ofstream(rssScript) << nlohmann::json{{"turns", turns}}.dump();
    const Dirs rssDirs(base, "e");
    runMs(rssDirs.run(agent, rssScript, true));
    std::ifstream reportFile(rssDirs.root / "output" / "resource_report.json");
    const auto report = nlohmann::json::parse(reportFile);
    const double peakMiB = report["peak_rss_bytes"].get<double>() / (1024.0 * 1024.0);

    const double perStepRead = median(readState);
    const double perStepShell = median(shell) - median(bareShell);
    std::printf("# warren-agent, %d-step tasks, %d interleaved rounds (medians)\n", steps, rounds);
    std::printf("%-44s %8.3f ms\n", "step, read_file, checkpoint fsync'd", perStepRead);
    std::printf("%-44s %8.3f ms\n", "step, read_file, no checkpoint", median(readNoState));
    std::printf("%-44s %8.3f ms\n", "step, shell 'true', checkpoint fsync'd", median(shell));
    std::printf("%-44s %8.3f ms\n", "bare spawn of sh -c true", median(bareShell));
    std::printf("%-44s %8.3f ms\n", "framework overhead per shell step", perStepShell);
    std::printf("%-44s %8.3f ms (/bin/true spawn to exit: %.3f ms)\n", "start to first event", median(firstEvent),
                median(trueExit));
    std::printf("%-44s %8.2f MiB\n", "peak RSS, 200-step task", peakMiB);
    std::printf("{\"bench\":\"agent_loop\",\"steps\":%d,\"rounds\":%d,\"step_read_ms\":%.3f,"
                "\"step_read_nostate_ms\":%.3f,\"step_shell_ms\":%.3f,\"bare_shell_ms\":%.3f,"
                "\"overhead_shell_ms\":%.3f,\"first_event_ms\":%.3f,\"true_ms\":%.3f,\"peak_rss_mib\":%.2f}\n",
                steps, rounds, perStepRead, median(readNoState), median(shell), median(bareShell), perStepShell,
                median(firstEvent), median(trueExit), peakMiB);
    fs::remove_all(base);
    return 0;
}
