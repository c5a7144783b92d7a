// What a task moved to warrend (`warren move TASK --to URL`, DESIGN §14) costs the server, by the length of
// its history: POST /v1/tasks with a moved history of N events against the same POST of a new task, side by
// side in one run, and another user's GET /v1/me meanwhile against the server idle. The history's events are
// read and checked on a disk worker; they are written to the database on the event loop, in one transaction,
// which is what another user waits behind.
//   bench_task_move [N ...]     (WARREN_WARREND and WARREN_AGENT as for the tests; default 1000 10000 50000)

#include "agent_core/state/Checkpoint.h"
#include "bench/BenchStats.h"
#include "bench/WarrendBench.h"

#include <QCoreApplication>
#include <QDir>
#include <QNetworkReply>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <vector>

namespace {

using nlohmann::json;
using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;

const QByteArray kScript =
    R"({"turns": [{"tool_calls": [{"name": "finish", "arguments": {"summary": "done"}}]}]})";

[[noreturn]] void fail(const QString& what) {
    warren::bench::benchFailed("bench_task_move", what);
}

// A history of n log events and an agent's checkpoint, as `warren move` uploads it.
void writeHistory(const QString& directory, int n) {
    std::string events;
    for (int i = 1; i <= n; ++i)
        events +=
            json{{"seq", i},
                 {"ts", "2026-12-07T10:00:00.000Z"},
                 {"type", "log"},
                 {"step", 1 + i / 100},
                 {"data", {{"level", "info"}, {"message", "line " + std::to_string(i) + " of the history"}}}}
                .dump() +
            "\n";
    warren::agent::AgentState state;
    state.taskId = "t-000000000001";
    state.prompt = "go on";
    warren::bench::writeFiles(
        directory, {{"events.jsonl", QByteArray::fromStdString(events)},
                    {"checkpoint.json", QByteArray::fromStdString(warren::agent::toJson(state).dump())}});
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    std::vector<int> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(std::atoi(argv[i]));
    if (sizes.empty())
        sizes = {1000, 10000, 50000};
    auto bench = warren::bench::startWarrendBench("bench_task_move", {{"README.md", "# bench\n"}});
    warren::test::WarrendServer& server = *bench.server;
    const QString other = server.addUser("other");
    if (other.isEmpty())
        fail("warrend admin add-user failed");
    const QByteArray plain = bench.taskBody(kScript);

    std::vector<double> idle;
    for (int i = 0; i < 50; ++i) {
        const auto start = Clock::now();
        if (server.request("GET", "/v1/me", other).status != 200)
            fail("GET /v1/me failed");
        idle.push_back(msSince(start));
    }
    std::printf("another user's GET /v1/me, the server idle: p50 %.1f ms, max %.1f ms\n",
                percentile(idle, 0.5), percentile(idle, 1.0));

    QNetworkAccessManager network;
    for (const int n : sizes) {
        const QString directory = bench.scratch->path() + "/history-" + QString::number(n);
        writeHistory(directory, n);
        const QString history = server.upload(bench.key, directory);
        if (history.isEmpty())
            fail("the history's upload failed");
        json moved = json::parse(plain.toStdString());
        moved["moved"] = {
            {"from", "t-000000000001"}, {"status", "paused"}, {"history", history.toStdString()}};

        auto start = Clock::now();
        if (server.request("POST", "/v1/tasks", bench.key, plain).status != 201)
            fail("POST /v1/tasks failed");
        const double newMs = msSince(start);

        QNetworkRequest request(QUrl(server.url() + "/v1/tasks"));
        request.setRawHeader("Authorization", "Bearer " + bench.key.toUtf8());
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        start = Clock::now();
        QNetworkReply* reply = network.post(request, QByteArray::fromStdString(moved.dump()));
        std::vector<double> busy;
        while (!reply->isFinished()) {
            const auto asked = Clock::now();
            if (server.request("GET", "/v1/me", other).status != 200)
                fail("GET /v1/me failed");
            busy.push_back(msSince(asked));
        }
        const double movedMs = msSince(start);
        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 201)
            fail("the moved task was refused: " + QString::fromUtf8(reply->readAll()));
        reply->deleteLater();
        std::printf(
            "%6d events: moved %8.1f ms, new %6.1f ms, ratio %6.1f | another user's GET /v1/me meanwhile: "
            "max %7.1f ms (%.1fx idle max, n=%zu)\n",
            n, movedMs, newMs, movedMs / newMs, busy.empty() ? 0.0 : percentile(busy, 1.0),
            busy.empty() ? 0.0 : percentile(busy, 1.0) / percentile(idle, 1.0), busy.size());
    }
    return 0;
}
