// Two warrend replicas over one PostgreSQL and data directory under a held fault schedule (DESIGN §15): each
// trial submits tasks to both replicas, then, while they run, does one fault drawn from a seeded schedule:
// kill -9 of a replica (started again at once), SIGSTOP of a replica for longer than its lease (then
// SIGCONT), or a restart of PostgreSQL. Each task takes steps that each append their own line to runs.log in
// its workspace. Once every task has ended, it counts what a demanding operator would: tasks that did not
// succeed, events lost (a seq missing) or doubled (a seq twice), and steps whose command ran more than once
// (a line twice in runs.log) or never.
//   bench_replica_faults [TRIALS] [SEED]     (WARREN_WARREND and WARREN_AGENT as for the tests)

#include "bench/WarrendBench.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QThread>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using warren::test::WarrendServer;
using nlohmann::json;

constexpr int kTasksPerTrial = 4;
constexpr int kSteps = 4;
const QStringList kServe{"--lease-sec", "2", "--max-tasks", "4"};

[[noreturn]] void fail(const QString& what) {
    warren::bench::benchFailed("bench_replica_faults", what);
}

// kSteps steps, each a command that takes a moment and appends "stepN" to runs.log, then finish.
QByteArray script() {
    json turns = json::array();
    for (int step = 1; step <= kSteps; ++step)
        turns.push_back({{"tool_calls",
                          json::array({{{"id", "s" + std::to_string(step)},
                                        {"name", "shell"},
                                        {"arguments", {{"command", "sleep 0.3; echo step" + std::to_string(step) +
                                                                       " >> runs.log"}}}}})}});
    turns.push_back({{"tool_calls", json::array({{{"name", "finish"}, {"arguments", {{"summary", "done"}}}}})}});
    return QByteArray::fromStdString(json{{"turns", turns}}.dump());
}

enum class Fault { KillA, KillB, StopA, StopB, RestartDatabase };
const char* faultName(Fault fault) {
    switch (fault) {
    case Fault::KillA:
        return "kill -9 A";
    case Fault::KillB:
        return "kill -9 B";
    case Fault::StopA:
        return "SIGSTOP A 3 s";
    case Fault::StopB:
        return "SIGSTOP B 3 s";
    case Fault::RestartDatabase:
        return "restart PostgreSQL";
    }
    return "?";
}

// What the agent was told of call id (its last tool_result), for a step that never ran.
std::string resultOf(const std::vector<json>& events, const std::string& id) {
    std::string said = "none";
    for (const auto& event : events)
        if (event.value("type", "") == "tool_result" && event.contains("data") && event["data"].value("id", "") == id)
            said = event["data"].dump().substr(0, 200);
    return said;
}

struct Tally {
    int tasks = 0, succeeded = 0, eventsLost = 0, eventsDoubled = 0, stepsTwice = 0, stepsNever = 0;
    int stepsInterrupted = 0; // cut by the fault while it ran, not run again, and the model told so
};

// What the task's events and its runs.log say, added to tally; prints what went wrong.
// False when it did not succeed.
bool check(const QString& id, const std::vector<json>& events, const QString& status, const QString& runsLog,
           Tally& tally) {
    ++tally.tasks;
    const int never = tally.stepsNever;
    if (status == "succeeded")
        ++tally.succeeded;
    else
        std::printf("  task %s ended %s after %zu events\n", qPrintable(id), qPrintable(status), events.size());
    std::map<std::uint64_t, int> seqs;
    for (const auto& event : events)
        ++seqs[event.value("seq", std::uint64_t(0))];
    const std::uint64_t last = seqs.empty() ? 0 : seqs.rbegin()->first;
    for (std::uint64_t seq = 1; seq <= last; ++seq) {
        const auto found = seqs.find(seq);
        if (found == seqs.end())
            ++tally.eventsLost;
        else if (found->second > 1)
            tally.eventsDoubled += found->second - 1;
    }
    QFile log(runsLog);
    std::map<QByteArray, int> lines;
    if (log.open(QIODevice::ReadOnly))
        for (const QByteArray& line : log.readAll().split('\n'))
            if (!line.isEmpty())
                ++lines[line];
    for (int step = 1; step <= kSteps; ++step) {
        const int ran = lines["step" + QByteArray::number(step)];
        const std::string result = resultOf(events, "s" + std::to_string(step));
        if (ran == 0 && result.find("\"interrupted\":true") != std::string::npos) {
            ++tally.stepsInterrupted;
        } else if (ran == 0) {
            ++tally.stepsNever;
            std::printf("  task %s: step %d never ran; its result: %s\n", qPrintable(id), step, result.c_str());
        }
        else if (ran > 1) {
            tally.stepsTwice += ran - 1;
            std::printf("  task %s: step %d ran %d times\n", qPrintable(id), step, ran);
        }
    }
    return status == "succeeded" && !lines.empty() && tally.stepsNever == never;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int trials = argc > 1 ? std::atoi(argv[1]) : 20;
    const unsigned seed = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 7;
    auto bench = warren::bench::startWarrendBench("bench_replica_faults", {{"README.md", "# bench\n"}}, kServe);
    WarrendServer& a = *bench.server;
    auto b = WarrendServer::replicaOf(a);
    QString error;
    if (!b->start(&error, kServe))
        fail("replica B: " + error);
    const QByteArray body = bench.taskBody(script());
    std::mt19937 random(seed);
    std::map<std::string, int> faults;
    Tally tally;

    for (int trial = 0; trial < trials; ++trial) {
        std::vector<QString> ids;
        for (int i = 0; i < kTasksPerTrial; ++i) {
            WarrendServer& to = i % 2 == 0 ? a : *b;
            const auto created = to.request("POST", "/v1/tasks", bench.key, body);
            if (created.status != 201)
                fail("POST /v1/tasks: " + QString::number(created.status) + " " + QString::fromUtf8(created.body));
            ids.push_back(QString::fromStdString(created.json().value("id", "")));
        }
        // The fault lands at a random point of the tasks' runs: after a random number of the first one's steps.
        const auto fault = static_cast<Fault>(std::uniform_int_distribution<int>(0, 4)(random));
        const int afterSteps = std::uniform_int_distribution<int>(0, kSteps - 1)(random);
        QByteArray after;
        for (int step = 0; step < afterSteps; ++step) {
            const auto events = a.streamEvents(ids.front(), bench.key, "tool_result", after, 60000);
            if (events.empty())
                break;
            after = QByteArray::number(static_cast<qulonglong>(events.back().value("seq", 0u)));
        }
        ++faults[faultName(fault)];
        switch (fault) {
        case Fault::KillA:
        case Fault::KillB: {
            WarrendServer& victim = fault == Fault::KillA ? a : *b;
            victim.kill();
            if (!victim.start(&error, kServe, true))
                fail("starting the killed replica again: " + error);
            break;
        }
        case Fault::StopA:
        case Fault::StopB: {
            WarrendServer& victim = fault == Fault::StopA ? a : *b;
            ::kill(static_cast<pid_t>(victim.processId()), SIGSTOP);
            QThread::sleep(3); // the fault itself: longer than the 2 s lease
            ::kill(static_cast<pid_t>(victim.processId()), SIGCONT);
            break;
        }
        case Fault::RestartDatabase:
            if (!a.postgres().restart(&error))
                fail("restarting PostgreSQL: " + error);
            break;
        }
        for (const QString& id : ids) {
            const auto events = b->streamEvents(id, bench.key, {}, {}, 180000);
            const QString status =
                QString::fromStdString(b->request("GET", "/v1/tasks/" + id, bench.key).json().value("status", ""));
            if (!check(id, events, status, a.dataDir() + "/data/workspaces/" + id + "/runs.log", tally)) {
                std::printf("    (trial %d, %s after %d steps)\n", trial, faultName(fault), afterSteps);
                if (qEnvironmentVariableIsSet("KEEP_FAULT_CASES")) {
                    QProcess::execute("cp", {"-a", a.dataDir() + "/data/tasks/" + id, "/tmp/faultcase-" + id});
                    QFile dump("/tmp/faultcase-" + id + "/events.jsonl");
                    if (dump.open(QIODevice::WriteOnly))
                        for (const auto& event : events)
                            dump.write(QByteArray::fromStdString(event.dump()) + "\n");
                }
                for (WarrendServer* server : {&a, b.get()})
                    for (const QByteArray& line : server->serverOutput().split('\n'))
                        if (line.contains(id.toUtf8()))
                            std::printf("    %s: %s\n", server == &a ? "A" : "B", line.constData());
            }
        }
    }

    std::printf("two replicas, %d trials of %d tasks (%d steps each), seed %u\n", trials, kTasksPerTrial, kSteps,
                seed);
    for (const auto& [name, count] : faults)
        std::printf("  %-20s %d\n", name.c_str(), count);
    std::printf("tasks succeeded      %d of %d\n", tally.succeeded, tally.tasks);
    std::printf("events lost          %d\n", tally.eventsLost);
    std::printf("events doubled       %d\n", tally.eventsDoubled);
    std::printf("steps run twice      %d\n", tally.stepsTwice);
    std::printf("steps never run      %d\n", tally.stepsNever);
    std::printf("steps interrupted    %d (cut by a fault while they ran, not run again, the model told so)\n",
                tally.stepsInterrupted);
    return 0;
}
