// Sandbox start-up cost, measured side by side in one run: /bin/true alone, a minimal bwrap, and
// warren-sandbox with the full default profile (seccomp, protected paths, limits, cgroup). Prints medians
// and the ratio to minimal bwrap, then the resident memory of the wrapper tree (warren-sandbox and bwrap,
// not the command) while a command runs.
//   bench_sandbox_start WARREN_SANDBOX [ROUNDS]

#include "bench/BenchStats.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

using warren::bench::percentile;
using warren::bench::Clock;

pid_t spawn(const std::vector<std::string>& args, posix_spawn_file_actions_t* actions = nullptr) {
    std::vector<char*> argv;
    for (const auto& arg : args)
        argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    if (posix_spawnp(&pid, argv[0], actions, nullptr, argv.data(), environ) != 0) {
        std::fprintf(stderr, "cannot run %s\n", argv[0]);
        std::exit(1);
    }
    return pid;
}

double runOnceMs(const std::vector<std::string>& args) {
    const auto start = Clock::now();
    int status = 0;
    waitpid(spawn(args), &status, 0);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "benchmark command failed (status %d): %s ...\n", status, args[0].c_str());
        std::exit(1);
    }
    return ms;
}

std::vector<pid_t> childrenOf(pid_t pid) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    std::vector<pid_t> children;
    for (pid_t child; file >> child;)
        children.push_back(child);
    return children;
}

struct Memory {
    long rssKiB = 0; // resident, shared library pages counted in full
    long pssKiB = 0; // proportional: shared pages divided among the processes that map them
};

Memory memoryOf(pid_t pid) {
    std::ifstream rollup("/proc/" + std::to_string(pid) + "/smaps_rollup");
    Memory memory;
    for (std::string line; std::getline(rollup, line);) {
        if (line.rfind("Rss:", 0) == 0)
            memory.rssKiB = std::atol(line.c_str() + 4);
        else if (line.rfind("Pss:", 0) == 0)
            memory.pssKiB = std::atol(line.c_str() + 4);
    }
    return memory;
}

std::string comm(pid_t pid) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(file, name);
    return name;
}

// Runs warren-sandbox with a command that reports readiness on stdout and then waits for stdin to close,
// and sums the memory of every process of the tree except that command.
Memory wrapperTreeMemory(const std::string& warrenSandbox, const std::string& workspace) {
    int toChild[2], fromChild[2];
    if (pipe(toChild) != 0 || pipe(fromChild) != 0)
        std::exit(1);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, toChild[0], 0);
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1);
    posix_spawn_file_actions_addclose(&actions, toChild[1]);
    posix_spawn_file_actions_addclose(&actions, fromChild[0]);
    const pid_t pid = spawn({warrenSandbox, "--workspace", workspace, "--", "/bin/sh", "-c", "echo ready; read line"},
                            &actions);
    close(toChild[0]);
    close(fromChild[1]);
    char buffer[16];
    if (read(fromChild[0], buffer, sizeof buffer) <= 0)
        std::exit(1);
    Memory total;
    std::vector<pid_t> pending{pid};
    while (!pending.empty()) {
        const pid_t current = pending.back();
        pending.pop_back();
        if (comm(current) == "sh")
            continue; // the command, not the wrapper
        const Memory memory = memoryOf(current);
        total.rssKiB += memory.rssKiB;
        total.pssKiB += memory.pssKiB;
        for (pid_t child : childrenOf(current))
            pending.push_back(child);
    }
    close(toChild[1]);
    int status;
    waitpid(pid, &status, 0);
    close(fromChild[0]);
    return total;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s WARREN_SANDBOX [ROUNDS]\n", argv[0]);
        return 2;
    }
    const std::string warrenSandbox = argv[1];
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 100;
    char workspaceTemplate[] = "/tmp/warren-bench-XXXXXX";
    const std::string workspace = mkdtemp(workspaceTemplate);

    const std::map<std::string, std::vector<std::string>> variants = {
        {"1 /bin/true", {"/bin/true"}},
        {"2 minimal bwrap",
         {"bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
          "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "--unshare-all", "--", "/bin/true"}},
        {"3 warren-sandbox", {warrenSandbox, "--workspace", workspace, "--", "/bin/true"}},
        // The same profile without the memory and pids limits: no cgroup to create, join and remove.
        {"4 w-s, no cgroup", {warrenSandbox, "--workspace", workspace, "--memory-mb", "0", "--pids", "0", "--",
                              "/bin/true"}},
    };
    std::map<std::string, std::vector<double>> samples;
    for (const auto& [name, args] : variants)
        runOnceMs(args); // warm the page cache
    for (int round = 0; round < rounds; ++round)
        for (const auto& [name, args] : variants) // interleaved, so drift hits every variant alike
            samples[name].push_back(runOnceMs(args));

    const double bwrapMedian = percentile(samples["2 minimal bwrap"], 0.5);
    std::printf("# sandbox start, %d interleaved rounds\n", rounds);
    std::printf("%-20s %10s %10s %12s\n", "variant", "median_ms", "p90_ms", "vs_bwrap");
    for (const auto& [name, values] : samples) {
        const double median = percentile(values, 0.5);
        std::printf("%-20s %10.2f %10.2f %11.2fx\n", name.substr(2).c_str(), median, percentile(values, 0.9),
                    median / bwrapMedian);
    }
    const Memory tree = wrapperTreeMemory(warrenSandbox, workspace);
    std::printf("wrapper tree (warren-sandbox + bwrap processes, command excluded): RSS %.2f MiB, PSS %.2f MiB\n",
                static_cast<double>(tree.rssKiB) / 1024.0, static_cast<double>(tree.pssKiB) / 1024.0);
    const double ratio = percentile(samples["3 warren-sandbox"], 0.5) / bwrapMedian;
    std::printf("{\"bench\":\"sandbox_start\",\"rounds\":%d,\"true_ms\":%.3f,\"bwrap_ms\":%.3f,"
                "\"warren_sandbox_ms\":%.3f,\"ratio_vs_bwrap\":%.3f,\"no_cgroup_ms\":%.3f,"
                "\"ratio_no_cgroup_vs_bwrap\":%.3f,\"wrapper_rss_kib\":%ld,\"wrapper_pss_kib\":%ld}\n",
                rounds, percentile(samples["1 /bin/true"], 0.5), bwrapMedian,
                percentile(samples["3 warren-sandbox"], 0.5), ratio, percentile(samples["4 w-s, no cgroup"], 0.5),
                percentile(samples["4 w-s, no cgroup"], 0.5) / bwrapMedian, tree.rssKiB, tree.pssKiB);
    rmdir(workspace.c_str());
    return 0;
}
