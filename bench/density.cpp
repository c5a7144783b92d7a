// How many agents one warrend holds on this machine at once (issue 36's density): for each N, N tasks are
// submitted together to one warrend (--max-tasks 1024), each a real agent in its own bubblewrap sandbox whose
// model is slow as a real one is: the control plane's scripted model with pace_ms (each turn arrives over
// PACE ms, its text streamed), for TURNS turns: write a file, run a command, read the file again and again,
// finish; long enough that the first task still runs when the last is submitted. WATCHERS clients read the
// tasks' event streams (raw SSE sockets, on tasks spread evenly, each from its task's creation).
//
// Reported per N: tasks succeeded; the wall time from the first submission to the last end, and the most
// tasks whose sandbox ran at one time (warrend's bwrap children); warrend's peak resident memory and its CPU
// seconds; the sandboxes' and agents' memory at their peak (every process below warrend, shared pages counted
// in each), and per task: a running one's sandbox and agent with its share of warrend's growth; and the
// latency of every event a watcher received after it connected (the agent's or control plane's `ts`, 1 ms
// truncated, to the bytes' arrival) p50 and p99.
//   bench_density [N,N,...] [PACE_MS] [TURNS] [WATCHERS]     defaults 100,300,1000 2000 40 200
//   (WARREN_WARREND, WARREN_AGENT and WARREN_SANDBOX as for the tests)

#include "bench/BenchStats.h"
#include "bench/ProcessFigures.h"
#include "bench/SseClient.h"
#include "bench/WarrendBench.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>
#include <QUrl>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace {

using nlohmann::json;
using warren::bench::percentile;
using warren::bench::SseClient;

constexpr const char* kName = "bench_density";
constexpr int kClientsPerSourceAddress = 32;

[[noreturn]] void fail(const QString& what) {
    warren::bench::benchFailed(kName, what);
}

QByteArray script(int paceMs, int turns) {
    json list = json::array(
        {{{"content", "Writing the notes first."},
          {"tool_calls",
           json::array({{{"name", "write_file"}, {"arguments", {{"path", "notes.txt"}, {"content", "dense\n"}}}}})}},
         {{"content", "Checking them."},
          {"tool_calls", json::array({{{"name", "shell"}, {"arguments", {{"command", "cat notes.txt"}}}}})}}});
    while (static_cast<int>(list.size()) < turns - 1)
        list.push_back({{"content", "Reading them again."},
                        {"tool_calls", json::array({{{"name", "read_file"}, {"arguments", {{"path", "notes.txt"}}}}})}});
    list.push_back({{"tool_calls", json::array({{{"name", "finish"}, {"arguments", {{"summary", "done"}}}}})}});
    return QByteArray::fromStdString(json{{"turns", list}, {"pace_ms", paceMs}}.dump());
}

struct Figures {
    int tasks = 0, succeeded = 0, peakRunning = 0;
    double seconds = 0, serverCpu = 0;
    long serverPeakKb = 0, serverBeforeKb = 0, sandboxesPeakKb = 0;
    std::vector<double> latencyMs;
    int watchersFailed = 0;
    std::map<std::string, int> failures; // "status: error" of the tasks that did not succeed
};

// Every task's status, by GET /v1/tasks; the count of those that ended, and of those that succeeded; why the
// others ended as they did, into failures.
std::pair<int, int> ended(warren::test::WarrendServer& server, const QString& key, const std::set<QString>& ids,
                          std::map<std::string, int>& failures) {
    const json list = server.request("GET", "/v1/tasks", key).json();
    int done = 0, succeeded = 0;
    failures.clear();
    for (const auto& task : list.value("tasks", json::array())) {
        if (!ids.contains(QString::fromStdString(task.value("id", ""))))
            continue;
        const std::string status = task.value("status", "");
        if (status != "queued" && status != "running")
            ++done;
        if (status == "succeeded")
            ++succeeded;
        else if (status != "queued" && status != "running")
            ++failures[status + ": " + task.value("error", "").substr(0, 160)];
    }
    return {done, succeeded};
}

Figures run(warren::bench::WarrendBench& bench, int n, int paceMs, int turns, int watchers) {
    auto& server = *bench.server;
    const qint64 pid = server.processId();
    Figures figures;
    figures.tasks = n;
    warren::bench::resetPeakMemory(pid);
    figures.serverBeforeKb = warren::bench::statusKb(pid, "VmRSS");
    const double cpuStart = warren::bench::cpuSecondsOf(pid);
    const auto start = warren::bench::Clock::now();

    // Watcher w follows task w * n / watchers, from as soon as that task exists (the submissions take a while).
    std::vector<std::unique_ptr<SseClient>> clients;
    const quint16 port = static_cast<quint16>(QUrl(server.url()).port());
    int open = watchers;
    const auto watch = [&](const QString& task) {
        const int w = static_cast<int>(clients.size());
        const auto connected = SseClient::WallClock::now();
        auto onEvent = [&figures, connected](const QByteArray& data, SseClient::WallClock::time_point received) {
            const json event = json::parse(data.toStdString(), nullptr, false);
            const std::int64_t written = warren::bench::epochMs(event.is_object() ? event.value("ts", "") : "");
            const auto ms = [](SseClient::WallClock::time_point at) {
                return std::chrono::duration<double, std::milli>(at.time_since_epoch()).count();
            };
            if (written >= 0 && static_cast<double>(written) >= ms(connected)) // live, not the backlog
                figures.latencyMs.push_back(ms(received) - static_cast<double>(written));
        };
        clients.push_back(std::make_unique<SseClient>(onEvent, [&open] { --open; }));
        const QHostAddress source(quint32{0x7f000002} + static_cast<quint32>(w / kClientsPerSourceAddress));
        clients.back()->start(source, port, ("/v1/tasks/" + task + "/events/stream").toUtf8(), bench.key.toUtf8());
    };

    std::vector<QString> tasks;
    const QByteArray body = bench.taskBody(script(paceMs, turns));
    for (int i = 0; i < n; ++i) {
        const auto created = server.request("POST", "/v1/tasks", bench.key, body);
        if (created.status != 201)
            fail("POST /v1/tasks (task " + QString::number(i) + "): " + QString::number(created.status) + " " +
                 QString::fromUtf8(created.body));
        tasks.push_back(QString::fromStdString(created.json().value("id", "")));
        while (static_cast<int>(clients.size()) < watchers &&
               static_cast<long>(clients.size()) * n / watchers <= i) // this task's watchers, several when n < watchers
            watch(tasks.back());
    }
    const std::set<QString> ids(tasks.begin(), tasks.end());

    // Every second: how many sandboxes run and what they hold; whether every task has ended.
    QEventLoop loop;
    QTimer sample;
    sample.setInterval(1000);
    QObject::connect(&sample, &QTimer::timeout, [&] {
        const auto processes = warren::bench::processesBelow(pid);
        figures.sandboxesPeakKb = std::max(figures.sandboxesPeakKb, processes.rssKb);
        figures.peakRunning = std::max(figures.peakRunning, processes.sandboxes);
        const auto [done, succeeded] = ended(server, bench.key, ids, figures.failures);
        figures.succeeded = succeeded;
        if (done == n && open == 0)
            loop.quit();
    });
    sample.start();
    QTimer::singleShot(std::max(600000, n * 2000), &loop, [&loop] { loop.quit(); });
    loop.exec();

    figures.seconds = warren::bench::msSince(start) / 1000;
    figures.serverCpu = warren::bench::cpuSecondsOf(pid) - cpuStart;
    figures.serverPeakKb = warren::bench::statusKb(pid, "VmHWM");
    for (const auto& client : clients)
        if (!client->complete())
            ++figures.watchersFailed;
    return figures;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    std::vector<int> sizes{100, 300, 1000};
    if (argc > 1) {
        sizes.clear();
        for (const QByteArray& n : QByteArray(argv[1]).split(','))
            sizes.push_back(n.toInt());
    }
    const int paceMs = argc > 2 ? std::atoi(argv[2]) : 2000;
    const int turns = std::max(3, argc > 3 ? std::atoi(argv[3]) : 40);
    const int watchers = argc > 4 ? std::atoi(argv[4]) : 200;
    auto bench = warren::bench::startWarrendBench(
        kName, {{"README.md", "# dense\n"}},
        {"--max-tasks", "1024", "--max-connections-per-client", "0", "--idle-sleep-sec", "0"});

    std::printf("each task: %d model turns of %d ms (write_file, shell, read_file..., finish), its own bwrap "
                "sandbox; %d watchers\n",
                turns, paceMs, watchers);
    std::printf("%6s %9s %8s %9s %10s %8s %12s %10s %9s %9s %8s\n", "N", "succeeded", "wall s", "peak run",
                "srv HWM MiB", "srv CPU", "sandbox MiB", "MiB/task", "p50 ms", "p99 ms", "streams");
    for (const int n : sizes) {
        const Figures f = run(bench, n, paceMs, turns, watchers);
        // A running task's sandbox and agent, and its share of what warrend grew by.
        const double perTaskMiB =
            (static_cast<double>(f.sandboxesPeakKb) / std::max(1, f.peakRunning) +
             static_cast<double>(f.serverPeakKb - f.serverBeforeKb) / n) /
            1024.0;
        std::printf("%6d %5d/%-4d %8.1f %9d %10.1f %8.1f %12.1f %10.2f %9.1f %9.1f %4d/%-4d\n", n, f.succeeded,
                    f.tasks, f.seconds, f.peakRunning, static_cast<double>(f.serverPeakKb) / 1024.0, f.serverCpu,
                    static_cast<double>(f.sandboxesPeakKb) / 1024.0, perTaskMiB, percentile(f.latencyMs, 0.5),
                    percentile(f.latencyMs, 0.99), watchers - f.watchersFailed, watchers);
        for (const auto& [why, count] : f.failures)
            std::printf("        %d x %s\n", count, why.c_str());
        std::fflush(stdout);
    }
    return 0;
}
