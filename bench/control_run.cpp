// The control plane's own cost, measured side by side in one run:
//  1. `warren run` of a one-step scripted task (the model calls finish at once), process start to exit, the
//     sandbox and the agent included, stdout and stderr to /dev/null. Three series, interleaved round by
//     round so drift hits them alike: a fresh --data-dir per run (each run creates warren.db), one shared
//     --data-dir (its very first run, which creates the database, is reported apart from the steady state),
//     and the baselines `bwrap --ro-bind / / true` and `warren-sandbox -- /bin/true`. Median, p90 and the
//     ratio of the medians to plain bwrap.
//  2. TASKS concurrent scripted tasks of STEPS steps each (STEPS - 1 read_file calls of a small file, then
//     finish), each in its own workspace, in ONE LocalControlPlane of this process (maxConcurrent = TASKS):
//     total wall time, each task's submit-to-finished time, events per second, and this process's peak
//     (VmHWM) and final resident memory.
//   bench_control_run WARREN WARREN_AGENT WARREN_SANDBOX [RUNS] [TASKS] [STEPS]

#include "app/control/LocalControlPlane.h"
#include "bench/BenchStats.h"

#include <QCoreApplication>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

using warren::bench::msSince;
using warren::bench::percentile;
using warren::bench::Clock;
namespace fs = std::filesystem;
using nlohmann::json;
using namespace warren::control;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_control_run: FAILED: %s\n", what.c_str());
    std::exit(1);
}

// Runs args to exit with stdin and stdout on /dev/null and stderr into errorFile (shown if it fails);
// returns the milliseconds from spawn to the reaped exit.
double runOnceMs(const std::vector<std::string>& args, const fs::path& errorFile) {
    std::vector<char*> argv;
    for (const auto& arg : args)
        argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errorFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    pid_t pid = -1;
    const auto start = Clock::now();
    if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0)
        fail("cannot run " + args[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    const double ms = msSince(start);
    posix_spawn_file_actions_destroy(&actions);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::ifstream errors(errorFile);
        std::stringstream text;
        text << errors.rdbuf();
        fail(args[0] + " exited with status " + std::to_string(status) + ":\n" + text.str());
    }
    return ms;
}

json finishTurn() {
    return {{"tool_calls", {{{"name", "finish"}, {"arguments", {{"summary", "done"}}}}}}};
}

// steps model turns: steps - 1 read_file calls of small.txt, then finish.
void writeScript(const fs::path& path, int steps) {
    json turns = json::array();
    for (int i = 1; i < steps; ++i)
        turns.push_back({{"tool_calls", {{{"name", "read_file"}, {"arguments", {{"path", "small.txt"}}}}}}});
    turns.push_back(finishTurn());
    std::ofstream(path) << json{{"turns", turns}}.dump();
}

fs::path makeWorkspace(const fs::path& path) {
    fs::create_directories(path);
    std::ofstream(path / "small.txt") << "one line\n";
    return path;
}

long statusKiB(const char* key) {
    std::ifstream status("/proc/self/status");
    const std::string prefix = std::string(key) + ":";
    for (std::string line; std::getline(status, line);)
        if (line.rfind(prefix, 0) == 0)
            return std::atol(line.c_str() + prefix.size());
    return -1;
}

double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct Series {
    double median = 0;
    double p90 = 0;
};

Series summarise(const std::vector<double>& values) {
    return {percentile(values, 0.5), percentile(values, 0.9)};
}

struct RunResults {
    Series fresh, steady, bwrap, sandbox;
    double sharedFirstMs = 0;
};

RunResults measureWarrenRun(const std::string& warren, const std::string& warrenSandbox, const fs::path& base,
                            int runs) {
    const fs::path workspace = makeWorkspace(base / "run-workspace");
    const fs::path script = base / "finish.json";
    writeScript(script, 1);
    const fs::path errors = base / "stderr.txt";
    const auto warrenRun = [&](const fs::path& dataDir) {
        return std::vector<std::string>{warren,        "run",
                                        "--data-dir",  dataDir.string(),
                                        "--workspace", workspace.string(),
                                        "--provider",  "scripted:" + script.string(),
                                        "--no-color",  "finish at once"};
    };
    const std::vector<std::string> bwrap = {"bwrap", "--ro-bind", "/", "/", "true"};
    const std::vector<std::string> sandbox = {warrenSandbox, "--workspace", workspace.string(), "--",
                                              "/bin/true"};

    // Warm the page cache (binaries, libraries) in a data directory that is then thrown away.
    runOnceMs(warrenRun(base / "warm"), errors);
    runOnceMs(bwrap, errors);
    runOnceMs(sandbox, errors);

    RunResults results;
    results.sharedFirstMs = runOnceMs(warrenRun(base / "shared"), errors); // creates warren.db
    std::vector<double> fresh, steady, bare, wrapped;
    for (int round = 0; round < runs; ++round) {
        fresh.push_back(runOnceMs(warrenRun(base / ("fresh-" + std::to_string(round))), errors));
        steady.push_back(runOnceMs(warrenRun(base / "shared"), errors));
        bare.push_back(runOnceMs(bwrap, errors));
        wrapped.push_back(runOnceMs(sandbox, errors));
    }
    results.fresh = summarise(fresh);
    results.steady = summarise(steady);
    results.bwrap = summarise(bare);
    results.sandbox = summarise(wrapped);
    return results;
}

struct ConcurrentResults {
    double totalMs = 0;
    Series taskMs;
    double minTaskMs = 0, maxTaskMs = 0;
    std::size_t succeeded = 0;
    std::uint64_t eventsSignalled = 0;
    std::uint64_t eventsStored = 0; // read back from the store after the run
    std::uint64_t minSteps = 0;
    double cpuSeconds = 0;
    long rssBeforeKiB = 0, peakKiB = 0, rssFinishedKiB = 0, rssClosedKiB = 0;
    std::vector<std::string> problems;
};

ConcurrentResults measureConcurrent(const std::string& agent, const fs::path& base, int tasks, int steps) {
    ConcurrentResults results;
    results.rssBeforeKiB = statusKiB("VmRSS");
    LocalOptions options;
    options.dataDir = (base / "plane").string();
    options.agentBinary = agent;
    options.maxConcurrent = static_cast<std::size_t>(tasks);
    options.useKeychain = false;
    auto opened = LocalControlPlane::open(options);
    if (!opened)
        fail("cannot open the control plane: " + opened.error().message);
    LocalControlPlane& plane = **opened;

    std::vector<std::pair<std::string, fs::path>> inputs; // workspace, script
    for (int i = 0; i < tasks; ++i) {
        const fs::path workspace = makeWorkspace(base / ("task-" + std::to_string(i)));
        const fs::path script = base / ("script-" + std::to_string(i) + ".json");
        writeScript(script, steps);
        inputs.emplace_back(workspace.string(), script);
    }

    std::map<std::string, Clock::time_point> submitted;
    std::map<std::string, double> wallMs;
    QObject::connect(&plane, &ControlPlane::eventStored, &plane,
                     [&](const std::string&, const json&) { ++results.eventsSignalled; });
    QObject::connect(&plane, &ControlPlane::taskFinished, &plane, [&](const std::string& id) {
        if (auto it = submitted.find(id); it != submitted.end() && !wallMs.count(id))
            wallMs[id] = msSince(it->second);
        if (wallMs.size() == submitted.size())
            QCoreApplication::exit(0);
    });
    // A run that hangs is a result too: report it instead of waiting forever.
    QTimer::singleShot(std::chrono::minutes(10), &plane, [&] {
        results.problems.push_back("timed out after 10 minutes with " + std::to_string(wallMs.size()) +
                                   " of " + std::to_string(tasks) + " tasks finished");
        QCoreApplication::exit(1);
    });

    const double cpuBefore = cpuSeconds();
    const auto start = Clock::now();
    for (const auto& [workspace, script] : inputs) {
        TaskSpec spec;
        spec.provider = "scripted:" + script.string();
        spec.overrides = {{"max_steps", steps + 10}};
        const auto submitTime = Clock::now();
        auto task = plane.submit("read small.txt, then finish", workspace, spec);
        if (!task)
            fail("cannot submit a task: " + task.error().message);
        submitted[task->id] = submitTime;
    }
    QCoreApplication::exec();
    results.totalMs = msSince(start);
    results.cpuSeconds = cpuSeconds() - cpuBefore;
    results.peakKiB = statusKiB("VmHWM");
    results.rssFinishedKiB = statusKiB("VmRSS");

    std::vector<double> times;
    results.minSteps = static_cast<std::uint64_t>(-1);
    for (const auto& [id, submitTime] : submitted) {
        if (auto it = wallMs.find(id); it != wallMs.end())
            times.push_back(it->second);
        auto record = plane.task(id);
        if (!record || !*record) {
            results.problems.push_back(id + ": no record");
            continue;
        }
        const TaskRecord& task = **record;
        results.minSteps = std::min(results.minSteps, task.steps);
        if (task.status == TaskStatus::Succeeded)
            ++results.succeeded;
        else
            results.problems.push_back(id + ": " + taskStatusName(task.status) + " (" + task.finishReason +
                                       ") " + task.error);
        if (auto events = plane.events(id); events)
            results.eventsStored += events->size();
        else
            results.problems.push_back(id + ": cannot read its events: " + events.error().message);
    }
    if (times.empty())
        times.push_back(0);
    results.taskMs = summarise(times);
    results.minTaskMs = *std::min_element(times.begin(), times.end());
    results.maxTaskMs = *std::max_element(times.begin(), times.end());
    opened->reset(); // stops the runners and the event writer
    results.rssClosedKiB = statusKiB("VmRSS");
    return results;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s WARREN WARREN_AGENT WARREN_SANDBOX [RUNS] [TASKS] [STEPS]\n",
                     argv[0]);
        return 2;
    }
    const std::string warren = argv[1];
    const std::string agent = argv[2];
    const std::string warrenSandbox = argv[3];
    const int runs = argc > 4 ? std::max(1, std::atoi(argv[4])) : 30;
    const int tasks = argc > 5 ? std::max(1, std::atoi(argv[5])) : 16;
    const int steps = argc > 6 ? std::max(1, std::atoi(argv[6])) : 100;
    // `warren run` finds its agent the way an installed one would not in a build tree; name it.
    setenv("WARREN_AGENT", agent.c_str(), 1);
    const fs::path base = fs::temp_directory_path() / ("warren-bench-control-" + std::to_string(getpid()));
    fs::create_directories(base);

    const RunResults run = measureWarrenRun(warren, warrenSandbox, base, runs);
    const double bwrap = run.bwrap.median;
    std::printf("# warren run, one-step scripted task, process start to exit, %d interleaved rounds\n", runs);
    std::printf("%-40s %10s %10s %10s\n", "variant", "median_ms", "p90_ms", "vs_bwrap");
    const auto line = [&](const char* name, const Series& series) {
        std::printf("%-40s %10.2f %10.2f %9.2fx\n", name, series.median, series.p90, series.median / bwrap);
    };
    line("warren run, fresh --data-dir each run", run.fresh);
    line("warren run, shared --data-dir (steady)", run.steady);
    std::printf("%-40s %10.2f %10s %9.2fx\n", "warren run, shared --data-dir, 1st run", run.sharedFirstMs,
                "-", run.sharedFirstMs / bwrap);
    line("warren-sandbox -- /bin/true", run.sandbox);
    line("bwrap --ro-bind / / true", run.bwrap);
    std::printf("target: warren run median <= 100 ms: %s (steady %.2f ms)\n",
                run.steady.median <= 100.0 ? "met" : "NOT met", run.steady.median);

    QCoreApplication app(argc, argv);
    const ConcurrentResults concurrent = measureConcurrent(agent, base, tasks, steps);
    const bool allOk = concurrent.succeeded == static_cast<std::size_t>(tasks) &&
                       concurrent.problems.empty() && concurrent.eventsStored == concurrent.eventsSignalled;
    const double eventsPerSecond =
        static_cast<double>(concurrent.eventsStored) / (concurrent.totalMs / 1000.0);
    std::printf("# %d concurrent scripted tasks of %d steps in one control plane (maxConcurrent %d)\n", tasks,
                steps, tasks);
    std::printf("%-40s %10.1f ms\n", "total wall time", concurrent.totalMs);
    std::printf("%-40s min %.1f / median %.1f / p90 %.1f / max %.1f ms (max/min %.2f)\n",
                "per task, submit to finished", concurrent.minTaskMs, concurrent.taskMs.median,
                concurrent.taskMs.p90, concurrent.maxTaskMs, concurrent.maxTaskMs / concurrent.minTaskMs);
    std::printf("%-40s %zu of %d (fewest steps in a task: %llu) %s\n", "succeeded", concurrent.succeeded,
                tasks, static_cast<unsigned long long>(concurrent.minSteps), allOk ? "ok" : "FAILED");
    std::printf("%-40s %llu stored, %llu signalled; %.0f events/s\n", "events",
                static_cast<unsigned long long>(concurrent.eventsStored),
                static_cast<unsigned long long>(concurrent.eventsSignalled), eventsPerSecond);
    std::printf("%-40s %.2f s (%.0f%% of one core over the wall time)\n", "control plane CPU, user + system",
                concurrent.cpuSeconds, 100.0 * concurrent.cpuSeconds / (concurrent.totalMs / 1000.0));
    const auto mib = [](long kib) {
        return static_cast<double>(kib) / 1024.0;
    };
    std::printf("%-40s before open %.1f MiB, peak (VmHWM) %.1f MiB, all finished %.1f MiB, closed %.1f MiB\n",
                "control plane RSS", mib(concurrent.rssBeforeKiB), mib(concurrent.peakKiB),
                mib(concurrent.rssFinishedKiB), mib(concurrent.rssClosedKiB));
    for (const auto& problem : concurrent.problems)
        std::printf("FAILED: %s\n", problem.c_str());

    std::printf(
        "{\"bench\":\"control_run\",\"runs\":%d,\"run_fresh_ms\":%.3f,\"run_fresh_p90_ms\":%.3f,"
        "\"run_steady_ms\":%.3f,\"run_steady_p90_ms\":%.3f,\"run_first_ms\":%.3f,\"bwrap_ms\":%.3f,"
        "\"bwrap_p90_ms\":%.3f,\"warren_sandbox_ms\":%.3f,\"ratio_steady_vs_bwrap\":%.3f,"
        "\"ratio_fresh_vs_bwrap\":%.3f,\"tasks\":%d,\"steps\":%d,\"total_ms\":%.1f,\"task_min_ms\":%.1f,"
        "\"task_median_ms\":%.1f,\"task_max_ms\":%.1f,\"succeeded\":%zu,\"all_ok\":%s,\"events\":%llu,"
        "\"events_per_s\":%.0f,\"cpu_s\":%.3f,\"rss_before_kib\":%ld,\"peak_rss_kib\":%ld,"
        "\"rss_finished_kib\":%ld,\"rss_closed_kib\":%ld}\n",
        runs, run.fresh.median, run.fresh.p90, run.steady.median, run.steady.p90, run.sharedFirstMs, bwrap,
        run.bwrap.p90, run.sandbox.median, run.steady.median / bwrap, run.fresh.median / bwrap, tasks, steps,
        concurrent.totalMs, concurrent.minTaskMs, concurrent.taskMs.median, concurrent.maxTaskMs,
        concurrent.succeeded, allOk ? "true" : "false",
        static_cast<unsigned long long>(concurrent.eventsStored), eventsPerSecond, concurrent.cpuSeconds,
        concurrent.rssBeforeKiB, concurrent.peakKiB, concurrent.rssFinishedKiB, concurrent.rssClosedKiB);
    fs::remove_all(base);
    return allOk ? 0 : 1;
}
