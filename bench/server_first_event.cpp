// A task submitted to warrend against the same task run locally, side by side in one run: from the
// request to the agent's first event (task_started) reaching the client. warrend: POST /v1/tasks of a
// one-step scripted task on an upload made once, then its event stream read from the start, on a
// PostgreSQL of the benchmark's own (the tests' PostgresServer) and loopback HTTP. Local: `warren run
// --json` of the same script and workspace, process start to its first task_started line. Rounds
// alternate the two so drift hits both alike; the first round of each is a warm-up. Median, p90 and the
// ratio of the medians (warrend / local).
//   bench_server_first_event WARREN [ROUNDS]     (WARREN_WARREND and WARREN_AGENT as for the tests)

#include "bench/BenchStats.h"
#include "bench/WarrendBench.h"

#include <QCoreApplication>
#include <QProcess>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;

const QByteArray kScript =
    R"({"turns": [{"tool_calls": [{"name": "finish", "arguments": {"summary": "done"}}]}]})";

[[noreturn]] void fail(const QString& what) {
    warren::bench::benchFailed("bench_server_first_event", what);
}

// `warren run --json` until its first task_started line, then to its end.
double localFirstEvent(const QString& warren, const QString& workspace, const QString& script,
                       const QString& data) {
    QProcess run;
    const auto start = Clock::now();
    run.start(warren, {"run", "--json", "--workspace", workspace, "--provider", "scripted:" + script,
                       "--data-dir", data, "go"});
    QByteArray out;
    double first = -1;
    while (first < 0 && run.waitForReadyRead(60000)) {
        out += run.readAllStandardOutput();
        if (out.contains("\"type\":\"task_started\""))
            first = msSince(start);
    }
    run.waitForFinished(60000);
    if (first < 0)
        fail("warren run printed no task_started: " + QString::fromUtf8(out + run.readAllStandardError()));
    return first;
}

void report(const char* name, const std::vector<double>& ms) {
    std::printf("%-34s median %8.1f ms  p90 %8.1f ms  (n=%zu)\n", name, percentile(ms, 0.5),
                percentile(ms, 0.9), ms.size());
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc < 2)
        fail("usage: bench_server_first_event WARREN [ROUNDS]");
    const QString warren = QString::fromLocal8Bit(argv[1]);
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 10;
    auto bench = warren::bench::startWarrendBench("bench_server_first_event", {{"README.md", "# bench\n"}});
    warren::bench::writeFiles(bench.scratch->path(), {{"script.json", kScript}}); // for `warren run`
    warren::test::WarrendServer* server = bench.server.get();
    const QString& key = bench.key;
    const QString& workspace = bench.workspace;
    const QString script = bench.scratch->path() + "/script.json";
    const QByteArray body = bench.taskBody(kScript);

    std::vector<double> remote, local;
    for (int round = 0; round <= rounds; ++round) {
        const auto start = Clock::now();
        const auto created = server->request("POST", "/v1/tasks", key, body);
        const QString id = QString::fromStdString(created.json().value("id", ""));
        if (created.status != 201)
            fail("POST /v1/tasks: " + QString::fromUtf8(created.body));
        const auto events = server->streamEvents(id, key, "task_started");
        if (events.empty() || events.back().value("type", "") != "task_started")
            fail("no task_started from warrend: " +
                 QString::fromStdString(events.empty() ? std::string("no events") : events.back().dump()));
        const double remoteMs = msSince(start);
        server->streamEvents(id, key, {}); // to its end, so rounds do not overlap
        const double localMs = localFirstEvent(warren, workspace, script,
                                               bench.scratch->path() + "/local-" + QString::number(round));
        if (round == 0)
            continue; // warm-up
        remote.push_back(remoteMs);
        local.push_back(localMs);
    }
    std::printf("submit to first event (task_started), one-step scripted task, %d rounds\n", rounds);
    report("warrend (HTTP + PostgreSQL)", remote);
    report("warren run --json (local)", local);
    std::printf("ratio warrend/local (medians)       %.2f\n",
                percentile(remote, 0.5) / percentile(local, 0.5));
    return 0;
}
