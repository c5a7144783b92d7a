// A task submitted to warrend against the same task run locally, side by side in one run: from the
// request to the agent's first event (task_started) reaching the client. warrend: POST /v1/tasks of a
// one-step scripted task on an upload made once, then its event stream read from the start, on a
// PostgreSQL of the benchmark's own (the tests' PostgresServer) and loopback HTTP. Local: `warren run
// --json` of the same script and workspace, process start to its first task_started line. Rounds
// alternate the two so drift hits both alike; the first round of each is a warm-up. Median, p90 and the
// ratio of the medians (warrend / local).
//   bench_server_first_event WARREN [ROUNDS]     (WARREN_WARREND and WARREN_AGENT as for the tests)

#include "bench/BenchStats.h"
#include "tests/server/WarrendServer.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
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
    std::fprintf(stderr, "bench_server_first_event: FAILED: %s\n", qPrintable(what));
    std::exit(1);
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
    QString error;
    auto server = warren::test::WarrendServer::create(&error);
    if (!server || !server->start(&error))
        fail(error);
    const QString key = server->addUser("bench");
    QTemporaryDir scratch;
    const QString workspace = scratch.path() + "/workspace";
    QDir().mkpath(workspace);
    QFile readme(workspace + "/README.md");
    readme.open(QIODevice::WriteOnly);
    readme.write("# bench\n");
    readme.close();
    QFile script(scratch.path() + "/script.json");
    script.open(QIODevice::WriteOnly);
    script.write(kScript);
    script.close();
    const auto uploaded = server->request("POST", "/v1/uploads", key, warren::test::tarOf(workspace),
                                          {{"Content-Type", "application/x-tar"}});
    const QString upload = QString::fromStdString(uploaded.json().value("id", ""));
    if (upload.isEmpty())
        fail("upload: " + QString::fromUtf8(uploaded.body));
    const QByteArray body =
        R"({"prompt": "go", "workspace": ")" + upload.toUtf8() + R"(", "script": )" + kScript + "}";

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
        const double localMs = localFirstEvent(warren, workspace, scratch.path() + "/script.json",
                                               scratch.path() + "/local-" + QString::number(round));
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
