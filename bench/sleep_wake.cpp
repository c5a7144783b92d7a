// What a sleeping task costs and how soon it wakes (DESIGN §14), on warrend with --idle-sleep-sec 1: a
// scripted task that asks before it writes a file. Awake: the owner answers while the agent still waits in
// its sandbox; asleep: the owner answers once the task has slept (its sandbox gone). Each is timed from the
// answer's POST to the approval_resolved event reaching the client (asleep, that is the whole wake: queued,
// a fresh sandbox, the agent resumed from its checkpoint, the question asked again and answered from the
// kept answer). Rounds alternate the two; the first is a warm-up. Then what sleeping tasks hold: warrend's
// resident memory and its processes with no task, and with every task of the rounds asleep at once.
//   bench_sleep_wake [ROUNDS]     (WARREN_WARREND and WARREN_AGENT as for the tests)

#include "bench/BenchStats.h"
#include "bench/ProcessFigures.h"
#include "bench/WarrendBench.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;

const QByteArray kScript = R"({"turns": [
  {"tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"path": "notes.txt", "content": "asked\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote notes.txt"}}]}]})";

[[noreturn]] void fail(const QString& what) {
    warren::bench::benchFailed("bench_sleep_wake", what);
}

void report(const char* name, const std::vector<double>& ms) {
    std::printf("%-38s median %8.1f ms  p90 %8.1f ms  (n=%zu)\n", name, percentile(ms, 0.5),
                percentile(ms, 0.9), ms.size());
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
    auto bench = warren::bench::startWarrendBench("bench_sleep_wake", {{"README.md", "# bench\n"}},
                                                  {"--idle-sleep-sec", "1", "--max-tasks", "2"});
    warren::test::WarrendServer* server = bench.server.get();
    const QString& key = bench.key;
    const QByteArray body = bench.taskBody(kScript).replace(R"("prompt")", R"("presets": ["safe-mode"], "prompt")");
    const qint64 pid = server->processId();
    const long idleRss = warren::bench::statusKb(pid, "VmRSS");
    const int idleProcesses = warren::bench::processesBelow(pid).count;

    const auto create = [&] {
        const auto created = server->request("POST", "/v1/tasks", key, body);
        if (created.status != 201)
            fail("POST /v1/tasks: " + QString::fromUtf8(created.body));
        return QString::fromStdString(created.json().value("id", ""));
    };
    // From the answer's POST to its approval_resolved at the client; after: the seq to stream from.
    const auto answer = [&](const QString& id, std::uint64_t after) {
        const auto start = Clock::now();
        const auto answered = server->request("POST", "/v1/tasks/" + id + "/approvals/w1", key, R"({"approved": true})");
        if (answered.status != 202)
            fail("the answer: " + QString::number(answered.status) + " " + QString::fromUtf8(answered.body));
        const auto events =
            server->streamEvents(id, key, "approval_resolved", QByteArray::number(static_cast<qulonglong>(after)));
        if (events.empty() || events.back().value("type", "") != "approval_resolved")
            fail("no approval_resolved after the answer to " + id);
        const double ms = msSince(start);
        server->streamEvents(id, key, {}, QByteArray::number(static_cast<qulonglong>(events.back().value("seq", 0u))));
        return ms;
    };

    std::vector<double> awake, asleep;
    std::vector<QString> sleepers;
    for (int round = 0; round <= rounds; ++round) {
        const QString first = create();
        auto asked = server->streamEvents(first, key, "approval_requested");
        if (asked.empty() || asked.back().value("type", "") != "approval_requested")
            fail("task " + first + " asked nothing");
        const double awakeMs = answer(first, asked.back().value("seq", 0u)); // within the idle second

        const QString second = create();
        const auto slept = server->streamEvents(second, key, {}); // to its end: the run paused, the task asleep
        if (slept.empty() || slept.back().value("type", "") != "task_slept")
            fail("task " + second + " did not sleep: " +
                 QString::fromStdString(slept.empty() ? std::string("no events") : slept.back().dump()));
        const double asleepMs = answer(second, slept.back().value("seq", 0u));
        if (round == 0)
            continue;
        awake.push_back(awakeMs);
        asleep.push_back(asleepMs);
    }
    // Every round's task asleep at once: what they hold.
    for (int i = 0; i < rounds; ++i) {
        const QString id = create();
        const auto slept = server->streamEvents(id, key, {});
        if (slept.empty() || slept.back().value("type", "") != "task_slept")
            fail("task " + id + " did not sleep");
        sleepers.push_back(id);
    }
    const long sleepingRss = warren::bench::statusKb(pid, "VmRSS");
    const int sleepingProcesses = warren::bench::processesBelow(pid).count;

    std::printf("answer to approval_resolved at the client, one question, %d rounds\n", rounds);
    report("awake (the agent waits in its sandbox)", awake);
    report("asleep (woken into a fresh sandbox)", asleep);
    std::printf("ratio asleep/awake (medians)           %.2f\n", percentile(asleep, 0.5) / percentile(awake, 0.5));
    std::printf("warrend RSS: %ld KiB with no task, %ld KiB with %d tasks asleep (%+.1f KiB per task)\n", idleRss,
                sleepingRss, rounds, double(sleepingRss - idleRss) / rounds);
    std::printf("processes of the tasks: %d with no task, %d with %d tasks asleep\n", idleProcesses,
                sleepingProcesses, rounds);
    return 0;
}
