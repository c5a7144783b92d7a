// Agent -> window, side by side in one run: how late a task's events reach a face through the control plane
// in this process (LocalControlPlane, as the window holds it locally) and through a RemoteControlPlane to a
// warrend on loopback (the agent on the server, the events through PostgreSQL, HTTP and the event stream).
// One task per round prints a line every 20 ms for 4 s (python3, paced from its start); rounds alternate the
// two planes so drift hits both alike, and the first round of each is a warm-up. Latency: the moment
// eventStored reaches this process minus the event's `ts`, which the agent stamps as it writes the event
// (same machine, same clock; ms resolution, truncated). Only tool_output events count: the steady stream.
// Also the time from submit (with the remote one, the workspace's pack and upload) to the first event.
//   bench_remote_events [ROUNDS]      (WARREN_WARREND and WARREN_AGENT as for the tests)

#include "app/control/WaitFor.h"
#include "agent_core/protocol/Timestamp.h"
#include "app/control/LocalControlPlane.h"
#include "app/remote/RemoteControlPlane.h"
#include "bench/BenchStats.h"
#include "bench/WarrendBench.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

using namespace warren;
using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;

constexpr const char* kName = "bench_remote_events";

const QByteArray kScript = R"({"turns": [
  {"tool_calls": [{"name": "shell", "arguments": {"command": "python3 -c 'import time\nstart = time.monotonic()\nfor i in range(200):\n    d = start + i * 0.02 - time.monotonic()\n    time.sleep(max(d, 0))\n    print(\"line\", i, flush=True)'"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "printed"}}]}]})";

[[noreturn]] void fail(const QString& what) { warren::bench::benchFailed(kName, what); }

struct Round {
    std::vector<double> latencies; // ms, tool_output only
    double firstEventMs = 0;
};

// Submits the script on plane and collects until the task has finished.
Round runRound(control::ControlPlane& plane, const QString& workspace, const QString& script) {
    Round round;
    std::string task;
    bool first = true;
    QEventLoop loop;
    const auto start = Clock::now();
    QObject::connect(&plane, &control::ControlPlane::eventStored, &loop,
                     [&](const std::string& id, const nlohmann::json& event) {
                         const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count();
                         if (first) {
                             round.firstEventMs = msSince(start);
                             first = false;
                         }
                         if (id != task && !task.empty())
                             return;
                         if (event.value("type", "") != "tool_output")
                             return;
                         const auto ts = protocol::parseTimestamp(event.value("ts", ""));
                         if (ts)
                             round.latencies.push_back(static_cast<double>(now - *ts));
                     });
    QObject::connect(&plane, &control::ControlPlane::taskFinished, &loop, [&](const std::string& id) {
        if (id == task)
            loop.quit();
    });
    control::TaskSpec spec;
    spec.provider = "scripted:" + script.toStdString();
    auto submitted = control::waitFor<control::TaskRecord>(
        [&](auto done) { plane.submit("print", workspace.toStdString(), spec, done); });
    if (!submitted)
        fail(QString::fromStdString(submitted.error().message));
    task = submitted->id;
    QTimer::singleShot(120000, &loop, [&] { fail("the task did not finish in 120 s"); });
    loop.exec();
    QObject::disconnect(&plane, nullptr, &loop, nullptr);
    return round;
}

void report(const char* name, const std::vector<double>& ms, const std::vector<double>& first) {
    std::printf("%-30s p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms  (%zu events)   submit to first event %6.1f ms\n",
                name, percentile(ms, 0.5), percentile(ms, 0.99), percentile(ms, 1.0), ms.size(),
                percentile(first, 0.5));
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
    auto bench = warren::bench::startWarrendBench(kName, {{"README.md", "# bench\n"}});
    warren::bench::writeFiles(bench.scratch->path(), {{"script.json", kScript}});
    const QString script = bench.scratch->path() + "/script.json";

    control::LocalOptions localOptions;
    localOptions.dataDir = (bench.scratch->path() + "/local").toStdString();
    localOptions.useKeychain = false;
    auto local = control::LocalControlPlane::open(localOptions);
    if (!local)
        fail(QString::fromStdString(local.error().message));
    remote::RemoteOptions remoteOptions;
    remoteOptions.url = bench.server->url();
    remoteOptions.key = bench.key.toStdString();
    remoteOptions.dataDir = (bench.scratch->path() + "/remote").toStdString();
    remoteOptions.useKeychain = false;
    auto remote = control::waitFor<std::unique_ptr<remote::RemoteControlPlane>>(
        [&](auto done) { remote::RemoteControlPlane::open(remoteOptions, done); });
    if (!remote)
        fail(QString::fromStdString(remote.error().message));

    std::vector<double> localMs, remoteMs, localFirst, remoteFirst;
    for (int round = 0; round <= rounds; ++round) {
        const Round there = runRound(**remote, bench.workspace, script);
        const Round here = runRound(**local, bench.workspace, script);
        if (round == 0)
            continue; // warm-up
        remoteMs.insert(remoteMs.end(), there.latencies.begin(), there.latencies.end());
        localMs.insert(localMs.end(), here.latencies.begin(), here.latencies.end());
        remoteFirst.push_back(there.firstEventMs);
        localFirst.push_back(here.firstEventMs);
    }
    std::printf("agent -> face: tool_output events of a task printing every 20 ms for 4 s, %d rounds each\n", rounds);
    report("local control plane", localMs, localFirst);
    report("remote (warrend on loopback)", remoteMs, remoteFirst);
    std::printf("ratio remote/local: p50 %.2f  p99 %.2f\n", percentile(remoteMs, 0.5) / std::max(percentile(localMs, 0.5), 1.0),
                percentile(remoteMs, 0.99) / std::max(percentile(localMs, 0.99), 1.0));
    return 0;
}
