// The container backends' start-up cost against bubblewrap's, measured side by side in one run: from
// submitting a one-step scripted task to a LocalControlPlane in this process to the agent's first event
// (task_started) being stored, and to the task's end. Rounds alternate bubblewrap, podman and kube (the Pod
// played by podman kube play, its agent connecting back over its socket) so drift hits all alike; the first
// round of each is a warm-up and not counted. A third series is the engine alone,
// `podman run --rm IMAGE true`, for what the container itself costs, and a fourth the preflight and sweep
// every container launch runs first. A fifth is podman again on a plane that keeps one warm container per
// shape (sandbox/container/WarmPool: rootful podman as root; elsewhere its launches are cold like the
// others), each task claiming the one its predecessor left. Median, p90 and the ratio of the medians. Where
// podman, its image or the static agent is missing it prints "skipped: REASON" and exits 0.
//   bench_container_start WARREN_AGENT [ROUNDS] [IMAGE]
// Podman reads CONTAINERS_CONF as usual (tests/run.sh sets packaging/containers.conf).

#include "app/control/LocalControlPlane.h"
#include "bench/BenchStats.h"
#include "sandbox/Preflight.h"
#include "sandbox/container/ContainerLauncher.h"

#include <QCoreApplication>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using warren::bench::msSince;
using warren::bench::percentile;
using warren::bench::Clock;
namespace fs = std::filesystem;
using nlohmann::json;
using namespace warren::control;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_container_start: FAILED: %s\n", what.c_str());
    std::exit(1);
}

// A shell command's exit status and how long it took (stdout and stderr to /dev/null).
std::pair<int, double> timed(const std::string& command) {
    const auto start = Clock::now();
    const int status = std::system((command + " >/dev/null 2>&1").c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, msSince(start)};
}

// For the shell: image names hold no quote.
std::string quoted(const std::string& word) {
    return "'" + word + "'";
}

struct Timing {
    double firstEventMs = -1;
    double finishedMs = -1;
};

// One task from submit to its first stored event and to its end.
Timing runTask(LocalControlPlane& plane, const std::string& workspace, const TaskSpec& spec) {
    Timing timing;
    std::string id;
    const auto start = Clock::now();
    auto stored = QObject::connect(
        &plane, &ControlPlane::eventStored, &plane, [&](const std::string& taskId, const json& event) {
            if (timing.firstEventMs < 0 && event.value("type", "") == "task_started" &&
                (id.empty() || taskId == id))
                timing.firstEventMs = msSince(start);
        });
    auto finished =
        QObject::connect(&plane, &ControlPlane::taskFinished, &plane, [&](const std::string& taskId) {
            if (taskId == id) {
                timing.finishedMs = msSince(start);
                QCoreApplication::exit(0);
            }
        });
    auto task = plane.submit("finish at once", workspace, spec);
    if (!task)
        fail("cannot submit a task: " + task.error().message);
    id = task->id;
    QTimer limit; // a task that hangs is a result too
    limit.setSingleShot(true);
    QObject::connect(&limit, &QTimer::timeout, [] { QCoreApplication::exit(1); });
    limit.start(std::chrono::minutes(2));
    if (timing.finishedMs < 0 && QCoreApplication::exec() != 0)
        fail(warren::sandbox::backendName(spec.backend) + ": the task did not finish within 2 minutes");
    QObject::disconnect(stored);
    QObject::disconnect(finished);
    auto record = plane.task(id);
    if (!record || !*record || (*record)->status != TaskStatus::Succeeded)
        fail(warren::sandbox::backendName(spec.backend) + ": the task did not succeed" +
             (record && *record ? ": " + (*record)->error : std::string()));
    return timing;
}

void print(const char* name, const std::vector<double>& values) {
    std::printf("  %-40s median %7.1f ms   p90 %7.1f ms\n", name, percentile(values, 0.5),
                percentile(values, 0.9));
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_container_start WARREN_AGENT [ROUNDS] [IMAGE]\n");
        return 2;
    }
    const std::string agent = fs::absolute(argv[1]).string(); // the profile binds it by absolute path
    const int rounds = argc > 2 ? std::max(3, std::atoi(argv[2])) : 10;
    const std::string image = argc > 3 ? argv[3] : "localhost/warren-test:3";
    std::printf("bench_container_start: bubblewrap vs podman vs kube, submit to the agent's first event, %d rounds\n",
                rounds);
    if (timed("command -v podman").first != 0) {
        std::printf("  skipped: no podman\n");
        return 0;
    }
    if (timed("podman image inspect " + quoted(image)).first != 0) {
        std::printf("  skipped: the image %s is not present (packaging/make-test-image.sh builds it)\n",
                    image.c_str());
        return 0;
    }
    if (const char* isStatic = std::getenv("WARREN_AGENT_STATIC"); isStatic && std::string(isStatic) == "0") {
        std::printf("  skipped: the agent is dynamically linked (sanitizer build)\n");
        return 0;
    }

    int qtArgc = 1;
    QCoreApplication app(qtArgc, argv);
    char pattern[] = "/tmp/bench-container-XXXXXX";
    if (!mkdtemp(pattern))
        fail("cannot create a temporary directory");
    const fs::path base = pattern;
    const fs::path workspace = base / "workspace";
    fs::create_directories(workspace);
    ::chmod(workspace.c_str(), 0777); // as root the container runs as uid 1000
    const fs::path script = base / "finish.json";
    std::ofstream(script)
        << json{{"turns", {{{"tool_calls", {{{"name", "finish"}, {"arguments", {{"summary", "done"}}}}}}}}}}
               .dump();

    LocalOptions options;
    options.dataDir = (base / "data").string();
    options.agentBinary = agent;
    options.maxConcurrent = 1;
    options.useKeychain = false;
    auto opened = LocalControlPlane::open(options);
    if (!opened)
        fail("cannot open the control plane: " + opened.error().message);
    // The same, keeping one warm container per shape (rootful podman as root only; else its launches are
    // cold).
    LocalOptions warmOptions = options;
    warmOptions.dataDir = (base / "data-warm").string();
    warmOptions.warmContainers = 1;
    auto warmPlane = LocalControlPlane::open(warmOptions);
    if (!warmPlane)
        fail("cannot open the control plane: " + warmPlane.error().message);

    using warren::sandbox::Backend;
    const Backend backends[] = {Backend::Bwrap, Backend::Podman, Backend::Kube};
    std::map<Backend, std::vector<double>> first, total;
    std::vector<double> engineAlone, preflightAlone, warmFirst, warmTotal;
    for (int round = 0; round <= rounds; ++round) {
        for (const auto backend : backends) {
            TaskSpec spec;
            spec.provider = "scripted:" + script.string();
            spec.backend = backend;
            spec.image = image;
            const Timing timing = runTask(**opened, workspace.string(), spec);
            if (round == 0)
                continue; // warm-up: page cache, the engine's storage
            first[backend].push_back(timing.firstEventMs);
            total[backend].push_back(timing.finishedMs);
        }
        {
            TaskSpec spec;
            spec.provider = "scripted:" + script.string();
            spec.backend = Backend::Podman;
            spec.image = image;
            const Timing timing = runTask(**warmPlane, workspace.string(), spec);
            if (round > 0) {
                warmFirst.push_back(timing.firstEventMs);
                warmTotal.push_back(timing.finishedMs);
            }
        }
        const auto [status, ms] = timed("podman run --rm --network none " + quoted(image) + " true");
        if (status != 0)
            fail("podman run --rm " + image + " true failed");
        if (round > 0)
            engineAlone.push_back(ms);
        // What every container launch does before `podman run`: the preflight (engine info, image) and the
        // sweep of containers left by killed launchers.
        const auto before = Clock::now();
        const auto report =
            warren::sandbox::runContainerPreflight(warren::sandbox::ContainerEngine::Podman, image, {});
        warren::sandbox::sweepOrphanedContainers(warren::sandbox::ContainerEngine::Podman, report.enginePath);
        if (round > 0)
            preflightAlone.push_back(msSince(before));
    }
    opened->reset();
    warmPlane->reset();
    std::error_code ignored;
    fs::remove_all(base, ignored);

    for (const auto backend : backends)
        print((warren::sandbox::backendName(backend) + ": submit to task_started").c_str(), first[backend]);
    print("podman, warm: submit to task_started", warmFirst);
    for (const auto backend : backends)
        print((warren::sandbox::backendName(backend) + ": submit to finished").c_str(), total[backend]);
    print("podman, warm: submit to finished", warmTotal);
    print("podman run --rm IMAGE true (engine alone)", engineAlone);
    print("podman preflight + sweep (per launch)", preflightAlone);
    for (const auto backend : {Backend::Podman, Backend::Kube})
        std::printf("  ratio %s / bwrap (first event, medians): %.1fx\n",
                    warren::sandbox::backendName(backend).c_str(),
                    percentile(first[backend], 0.5) / percentile(first[Backend::Bwrap], 0.5));
    std::printf("  ratio podman warm / cold (first event, medians): %.2f\n",
                percentile(warmFirst, 0.5) / percentile(first[Backend::Podman], 0.5));
    return 0;
}
