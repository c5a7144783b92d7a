// Every setting of the key table (agent_core/config/AgentConfig.cpp) and every built-in preset, observed
// from outside: warren-agent run with a scripted model, and what its events, its checkpoint, its resource
// report and the files it leaves say it did. Each key has a run where it changes the outcome and, where a
// contrast makes the effect clear, a run where it does not.

#include "agent_core/protocol/EventTypes.h"
#include "tests/support/AgentRun.h"
#include "tests/support/SandboxRun.h"

#include <QtTest>
#include <algorithm>
#include <sys/stat.h>
#include <time.h>

using namespace warren;
using namespace warren::test;
namespace et = warren::protocol::event_type;
using nlohmann::json;

namespace {

QString text(const json& value) {
    return QString::fromStdString(value.is_string()
                                      ? value.get<std::string>()
                                      : value.dump(-1, ' ', false, json::error_handler_t::replace));
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& content) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(content) == content.size();
}

// The JSON object in the file; an empty object when the file is missing or holds something else, so that
// a missing key fails a comparison instead of throwing.
json readJsonObject(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return json::object();
    json value = json::parse(file.readAll().toStdString(), nullptr, false);
    return value.is_object() ? value : json::object();
}

// Every file below root, relative and sorted.
QStringList filesBelow(const QString& root) {
    QStringList files;
    QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << QDir(root).relativeFilePath(it.next());
    files.sort();
    return files;
}

// The execution cache trusts a file's identity only once the kernel's coarse clock has moved past the
// file's change time (WorkspaceSnapshot.h, git's "racy" rule): a file written a moment before the agent
// reads it is read afresh every time. Waits, a few milliseconds at most, until every entry of dir is older
// than the clock, as the files of a real task are.
void waitUntilOlderThanTheCoarseClock(const QString& dir) {
    auto nanoseconds = [](const timespec& time) {
        return static_cast<std::int64_t>(time.tv_sec) * 1000000000 + time.tv_nsec;
    };
    std::int64_t newest = 0;
    QStringList paths{dir};
    QDirIterator it(dir, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        paths << it.next();
    for (const auto& path : paths) {
        struct stat status {};
        if (::lstat(QFile::encodeName(path).constData(), &status) == 0)
            newest = std::max({newest, nanoseconds(status.st_mtim), nanoseconds(status.st_ctim)});
    }
    for (;;) {
        timespec now{};
        clock_gettime(CLOCK_REALTIME_COARSE, &now);
        if (nanoseconds(now) > newest)
            return;
        QThread::usleep(500);
    }
}

json finishTurn() {
    return turn("finish", {{"summary", "done"}});
}

json withUsage(json value, int input, int output) {
    value["usage"] = {{"input", input}, {"output", output}};
    return value;
}

// One run of warren-agent and the events it printed.
struct Run {
    RunOutcome process;
    EventStream events;

    // The run ended on its own and printed only valid events, ending with task_finished.
    bool valid() const {
        return process.exited() && events.error.isEmpty() && !events.events.empty() &&
               events.events.back().type == et::kTaskFinished;
    }
    QString describe() const { return process.describe() + "\nevents: " + events.error; }

    QString reason() const {
        const json data = events.finished();
        return data.is_object() ? text(data.value("reason", json())) : QString();
    }
    json config() const {
        const auto started = events.ofType(et::kTaskStarted);
        return started.empty() ? json() : started.front().data.value("config", json());
    }
    // The guard events as "guard/action", in order.
    QStringList guards() const {
        QStringList out;
        for (const auto& event : events.ofType(et::kGuard))
            out << text(event.data.value("guard", json())) + "/" + text(event.data.value("action", json()));
        return out;
    }
    std::size_t steps() const { return events.ofType(et::kStepStarted).size(); }
    json result(const std::string& callId) const {
        const auto event = events.resultOf(callId);
        return event && event->data.is_object() ? event->data : json::object();
    }
    std::string output(const std::string& callId) const { return result(callId).value("output", ""); }
    std::vector<protocol::Event> hooks(const std::string& name) const {
        std::vector<protocol::Event> out;
        for (const auto& event : events.ofType(et::kHook))
            if (event.data.value("name", "") == name)
                out.push_back(event);
        return out;
    }
    // The levels of the log events, in order.
    QStringList logLevels() const {
        QStringList out;
        for (const auto& event : events.ofType(et::kLog))
            out << text(event.data.value("level", json()));
        return out;
    }
    bool logMentions(const std::string& words) const {
        for (const auto& event : events.ofType(et::kLog))
            if (event.data.value("message", "").find(words) != std::string::npos)
                return true;
        return false;
    }
};

// A workspace, a state and an output directory, a directory for the filesystem memory backend, and the
// script, for one or more runs.
struct AgentDirs {
    QTemporaryDir root;
    QString workspace() const { return root.path() + "/workspace"; }
    QString state() const { return root.path() + "/state"; }
    QString output() const { return root.path() + "/output"; }
    QString memories() const { return root.path() + "/mem"; }
    QString script() const { return root.path() + "/script.json"; }
    QString inWorkspace(const QString& relative) const { return workspace() + "/" + relative; }

    AgentDirs() {
        for (const auto& dir : {workspace(), state(), output(), memories()})
            QDir().mkpath(dir);
    }

    // A finished task's state cannot be resumed: a second task needs an empty state directory.
    void clearState() const {
        QDir(state()).removeRecursively();
        QDir().mkpath(state());
    }

    Run run(const std::vector<json>& turns, const QStringList& extra = {}, bool withState = true) const {
        writeScript(script(), turns);
        QStringList arguments{"run", "--script", script(), "--workspace", workspace(), "--output", output()};
        if (withState)
            arguments << "--state" << state();
        arguments << extra << "Do the task";
        Run run;
        run.process = runProgram(agentBinary(), arguments);
        run.events = parseEvents(run.process.out);
        return run;
    }

    json report() const { return readJsonObject(output() + "/resource_report.json"); }
    json checkpointMessages() const {
        return readJsonObject(state() + "/checkpoint.json").value("messages", json());
    }
};

QStringList sets(std::initializer_list<const char*> keyValues) {
    QStringList out;
    for (const char* keyValue : keyValues)
        out << "--set" << keyValue;
    return out;
}

// The keys of expected whose values differ in config, with both values; empty when config has them all.
QString differences(const json& config, const json& expected) {
    QStringList out;
    for (const auto& [key, value] : expected.items()) {
        if (!config.contains(key))
            out << QString::fromStdString(key) + " missing";
        else if (config[key] != value)
            out << QString::fromStdString(key + ": " + config[key].dump() + ", expected " + value.dump());
    }
    return out.join("; ");
}

} // namespace

class TestAgentSettings : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY2(QFileInfo(agentBinary()).isExecutable(), "WARREN_AGENT must name the built warren-agent");
        QVERIFY2(QFileInfo(resourcesDir() + "/presets").isDir(), "WARREN_RESOURCES must name resources/");
    }

    // ---- loop and guards ------------------------------------------------------------------------------

    void maxSteps_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<int>("steps");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QStringList>("guards");
        QTest::newRow("max_steps=2 stops a 5-turn script")
            << "max_steps=2" << 2 << "guard" << QStringList{"max_steps/stop"};
        QTest::newRow("max_steps=5 lets it finish") << "max_steps=5" << 5 << "finished" << QStringList{};
    }
    void maxSteps() {
        QFETCH(QString, setting);
        QFETCH(int, steps);
        QFETCH(QString, reason);
        QFETCH(QStringList, guards);
        AgentDirs dirs;
        std::vector<json> turns;
        for (int i = 0; i < 4; ++i)
            turns.push_back(turn("shell", {{"command", "echo step " + std::to_string(i)}}));
        turns.push_back(finishTurn());
        const auto run = dirs.run(turns, {"--set", setting});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.steps(), static_cast<std::size_t>(steps));
        QCOMPARE(run.guards(), guards);
        QCOMPARE(run.reason(), reason);
        QCOMPARE(run.process.exitCode, reason == "finished" ? 0 : 1);
        QCOMPARE(text(dirs.report()["steps"]), QString::number(steps));
        QCOMPARE(text(dirs.report()["exit_reason"]), reason);
    }

    void timeoutPerStepKillsTheToolAndTheTaskGoesOn() {
        AgentDirs dirs;
        const auto run = dirs.run({turn("shell", {{"command", "sleep 30"}}),
                                   turn("shell", {{"command", "echo after"}}), finishTurn()},
                                  {"--set", "timeout_per_step_sec=1"});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.result("call_0_0").value("timed_out", false), true);
        QCOMPARE(run.guards(), QStringList{"timeout_per_step_sec/warn"});
        // The next step has a deadline of its own.
        QCOMPARE(run.result("call_1_0").value("timed_out", false), false);
        QCOMPARE(run.result("call_1_0")["exit_code"], 0);
        QCOMPARE(run.reason(), QString("finished"));
        QCOMPARE(run.process.exitCode, 0);
    }

    void tokenBudget_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<int>("steps");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QStringList>("guards");
        // Each turn reports 60 + 50 tokens.
        QTest::newRow("token_budget=100: refused after step 1")
            << "token_budget=100" << 1 << "guard" << QStringList{"token_budget/stop"};
        QTest::newRow("token_budget=1000: room for all")
            << "token_budget=1000" << 4 << "finished" << QStringList{};
        QTest::newRow("token_budget=0: no budget") << "token_budget=0" << 4 << "finished" << QStringList{};
    }
    void tokenBudget() {
        QFETCH(QString, setting);
        QFETCH(int, steps);
        QFETCH(QString, reason);
        QFETCH(QStringList, guards);
        AgentDirs dirs;
        std::vector<json> turns;
        for (int i = 0; i < 3; ++i)
            turns.push_back(withUsage(turn("shell", {{"command", "true"}}), 60, 50));
        turns.push_back(withUsage(finishTurn(), 60, 50));
        const auto run = dirs.run(turns, {"--set", setting});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.steps(), static_cast<std::size_t>(steps));
        QCOMPARE(run.guards(), guards);
        QCOMPARE(run.reason(), reason);
        QCOMPARE(run.process.exitCode, reason == "finished" ? 0 : 1);
        for (const auto& response : run.events.ofType(et::kModelResponse)) {
            QVERIFY(response.tokenUsage);
            QCOMPARE(response.tokenUsage->input, 60u);
            QCOMPARE(response.tokenUsage->output, 50u);
        }
        QCOMPARE(text(dirs.report()["tokens_in"]), QString::number(60 * steps));
    }

    void loopDetection_data() {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<int>("warnedCall"); // the turn whose result carries the warning; -1: none
        QTest::addColumn<QStringList>("guards");
        QTest::addColumn<QString>("reason");
        QTest::newRow("on, threshold 2")
            << sets({"loop_detection=true", "loop_threshold=2"}) << 1
            << QStringList{"loop_detection/warn", "loop_detection/stop"} << "guard";
        QTest::newRow("on, threshold 3")
            << sets({"loop_detection=true", "loop_threshold=3"}) << 2
            << QStringList{"loop_detection/warn", "loop_detection/stop"} << "guard";
        QTest::newRow("off") << sets({"loop_detection=false", "loop_threshold=2"}) << -1 << QStringList{}
                             << "finished";
    }
    void loopDetection() {
        QFETCH(QStringList, settings);
        QFETCH(int, warnedCall);
        QFETCH(QStringList, guards);
        QFETCH(QString, reason);
        AgentDirs dirs;
        QVERIFY(writeFile(dirs.inWorkspace("notes.txt"), "the same every time\n"));
        std::vector<json> turns;
        for (int i = 0; i < 4; ++i)
            turns.push_back(turn("read_file", {{"path", "notes.txt"}}));
        turns.push_back(finishTurn());
        const auto run = dirs.run(turns, settings);
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.guards(), guards);
        QCOMPARE(run.reason(), reason);
        QCOMPARE(run.process.exitCode, reason == "finished" ? 0 : 1);
        for (int i = 0; i < 4; ++i) {
            const auto id = "call_" + std::to_string(i) + "_0";
            if (warnedCall >= 0 && i > warnedCall) {
                // The repeat after the warning is not run and ends the task.
                QCOMPARE(run.result(id)["exit_code"], json());
                QVERIFY2(run.output(id).find("loop_detection") != std::string::npos, run.output(id).c_str());
                QCOMPARE(run.events.toolCalls().size(), i + 1);
                break;
            }
            QCOMPARE(run.result(id)["exit_code"], 0);
            QVERIFY(run.output(id).find("the same every time") != std::string::npos);
            QCOMPARE(run.output(id).find("warning") != std::string::npos, i == warnedCall);
        }
        if (warnedCall < 0)
            QCOMPARE(run.events.toolCalls().size(), 5);
    }

    void memoryThresholdShedsAndFiresOnLowMemory() {
        AgentDirs dirs;
        // The agent's RSS is always above 1 MiB, and stays there for the whole run.
        const auto run = dirs.run(
            {turn("shell", {{"command", "true"}}), turn("shell", {{"command", "true"}}), finishTurn()},
            sets({"memory_threshold_mb=1", "on_low_memory=echo $WARREN_HOOK >> low-memory.log"}));
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QVERIFY2(!run.guards().isEmpty(), qPrintable(run.describe()));
        QCOMPARE(run.guards().front(), QString("memory_threshold_mb/warn"));
        QVERIFY2(!run.guards().contains("max_memory_mb/stop"), qPrintable(run.guards().join(", ")));
        const auto hooks = run.hooks("on_low_memory");
        QVERIFY(!hooks.empty());
        QCOMPARE(hooks.front().data["exit_code"], 0);
        QVERIFY(readAll(dirs.inWorkspace("low-memory.log")).startsWith("on_low_memory\n"));
        // Shedding is not stopping.
        QCOMPARE(run.reason(), QString("finished"));
        QCOMPARE(run.process.exitCode, 0);
        // MemoryGuard.h: above the threshold the agent sheds once; it sheds again only after RSS has been
        // at or below the threshold. Shedding cuts the history to the last two messages, so shedding at
        // every step would leave the model without its context for as long as RSS stays high.
        QCOMPARE(run.guards(), QStringList{"memory_threshold_mb/warn"});
        QCOMPARE(hooks.size(), 1u);
    }

    void maxMemoryStopsTheTask() {
        AgentDirs dirs;
        const auto run =
            dirs.run({turn("shell", {{"command", "true"}}), finishTurn()}, {"--set", "max_memory_mb=1"});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QVERIFY2(run.guards().contains("max_memory_mb/stop"), qPrintable(run.guards().join(", ")));
        QCOMPARE(run.guards().back(), QString("max_memory_mb/stop"));
        QCOMPARE(run.steps(), 0u);
        QCOMPARE(run.reason(), QString("guard"));
        QCOMPARE(run.process.exitCode, 1);
        QCOMPARE(text(dirs.report()["exit_reason"]), QString("guard"));
    }

    // ---- context --------------------------------------------------------------------------------------

    void compaction_data() {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<bool>("compacted");
        QTest::addColumn<bool>("elided");
        QTest::newRow("context_window_limit=1000")
            << sets({"context_window_limit=1000", "keep_recent_messages=2", "log_format=json"}) << true
            << false;
        QTest::newRow("compress_history=true")
            << sets({"compress_history=true", "keep_recent_messages=2", "log_format=json"}) << false << true;
        QTest::newRow("defaults") << sets({"log_format=json"}) << false << false;
    }
    void compaction() {
        QFETCH(QStringList, settings);
        QFETCH(bool, compacted);
        QFETCH(bool, elided);
        AgentDirs dirs;
        QByteArray big;
        for (int line = 0; line < 50; ++line)
            big += QByteArray("line ") + QByteArray::number(line).rightJustified(3, '0') + " " +
                   QByteArray(50, 'x') + "\n"; // 60 bytes a line
        QCOMPARE(big.size(), qsizetype(3000));
        QVERIFY(writeFile(dirs.inWorkspace("big.txt"), big));
        const auto run =
            dirs.run({turn("read_file", {{"path", "big.txt"}}), turn("shell", {{"command", "cat big.txt"}}),
                      turn("read_file", {{"path", "big.txt"}}), turn("shell", {{"command", "cat big.txt"}}),
                      finishTurn()},
                     settings);
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.reason(), QString("finished"));
        QCOMPARE(run.logMentions("compacted"), compacted);

        const json messages = dirs.checkpointMessages();
        QVERIFY2(messages.is_array(), "state/checkpoint.json must hold the messages");
        bool summary = false;
        bool elision = false;
        for (const auto& message : messages) {
            const auto content = message.value("content", "");
            summary = summary || content.rfind("[Earlier conversation compacted", 0) == 0;
            elision = elision || (message.value("role", "") == "tool" &&
                                  content.find("bytes elided") != std::string::npos);
        }
        QCOMPARE(summary, compacted);
        QCOMPARE(elision, elided);
        if (!compacted && !elided) {
            // Nothing cut: every tool result still holds the whole file.
            int whole = 0;
            for (const auto& message : messages)
                whole += message.value("content", "").find("line 049") != std::string::npos ? 1 : 0;
            QCOMPARE(whole, 4);
        }
    }

    // What replaces the cut turns: the model's handoff summary when its answer passes (a text turn of the
    // script answers the request without tools), else the mechanical summary, with the reason in the
    // context_window_limit guard event.
    void handoffSummary_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<bool>("answerTurn");
        QTest::addColumn<QString>("answer");
        QTest::addColumn<QString>("detail");
        const QString note = "## Goal\nRead big.txt four times.\n## Done\n- read big.txt twice\n## Pending\n- read it "
                             "twice more\n## State of the code and tests\nNothing changed.";
        QTest::newRow("model writes it") << "compaction_summary=model" << true << note
                                         << "replaced by a handoff summary the model wrote";
        QTest::newRow("empty answer: mechanical")
            << "compaction_summary=model" << true << QString()
            << "replaced by the mechanical summary (the model's handoff summary was not used: the answer is empty)";
        QTest::newRow("no headings: mechanical")
            << "compaction_summary=model" << true << "I read the file twice."
            << "replaced by the mechanical summary (the model's handoff summary was not used: the answer lacks "
               "the heading \"## Goal\")";
        QTest::newRow("no turn for it: mechanical")
            << "compaction_summary=model" << false << QString()
            << "replaced by the mechanical summary (the model's handoff summary was not used: the model call "
               "failed: ";
        QTest::newRow("compaction_summary=mechanical")
            << "compaction_summary=mechanical" << false << QString() << "replaced by the mechanical summary";
    }
    void handoffSummary() {
        QFETCH(QString, setting);
        QFETCH(bool, answerTurn);
        QFETCH(QString, answer);
        QFETCH(QString, detail);
        AgentDirs dirs;
        QVERIFY(writeFile(dirs.inWorkspace("big.txt"), QByteArray(3000, 'x') + "\n"));
        std::vector<json> turns;
        for (int i = 0; i < 4; ++i) {
            turns.push_back(turn("read_file", {{"path", "big.txt"}}));
            // With the system prompt over the limit, the first turn is cut (and summarised) before the
            // third model call.
            if (i == 1 && answerTurn)
                turns.push_back({{"content", answer.toStdString()}});
        }
        turns.push_back(finishTurn());
        const auto run = dirs.run(turns, sets({"context_window_limit=1000", "keep_recent_messages=2",
                                               "compaction_summary=mechanical"})
                                             << "--set" << setting);
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.reason(), QString("finished"));
        QStringList details;
        for (const auto& event : run.events.ofType(et::kGuard)) {
            if (event.data.value("guard", "") == "context_window_limit")
                details << text(event.data.value("detail", json()));
        }
        QVERIFY2(!details.isEmpty(), "no context_window_limit event");
        QVERIFY2(details.front().contains(detail), qPrintable(details.join("\n")));
        QVERIFY2(details.front().startsWith("compacted the conversation from about "), qPrintable(details.front()));

        // The note stays in the conversation, folded into the later summaries.
        bool handoff = false;
        for (const auto& message : dirs.checkpointMessages()) {
            const auto content = message.value("content", "");
            handoff = handoff || content.find("## Goal\nRead big.txt four times.") != std::string::npos;
        }
        QCOMPARE(handoff, detail.contains("the model wrote"));
        // A summary request answered is a model call of the task: counted with the steps' calls.
        QCOMPARE(text(dirs.report()["model_calls"]), QString::number(run.steps() + (answerTurn ? 1 : 0)));
    }

    // ---- tools ----------------------------------------------------------------------------------------

    void toolsLimitsWhatTheModelMayCall_data() {
        QTest::addColumn<QString>("setting");
        QTest::newRow("tools=[shell,finish]") << R"(tools=["shell","finish"])";
        QTest::newRow("tools=[shell] gets finish") << R"(tools=["shell"])";
    }
    void toolsLimitsWhatTheModelMayCall() {
        QFETCH(QString, setting);
        AgentDirs dirs;
        QVERIFY(writeFile(dirs.inWorkspace("notes.txt"), "notes\n"));
        const auto run = dirs.run({turn("read_file", {{"path", "notes.txt"}}),
                                   turn("shell", {{"command", "echo ran"}}), finishTurn()},
                                  {"--set", setting});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.config()["tools"], json::array({"shell", "finish"}));
        QCOMPARE(run.result("call_0_0")["exit_code"], 1);
        const auto refusal = run.output("call_0_0");
        QVERIFY2(refusal.find("read_file") != std::string::npos &&
                     refusal.find("shell, finish") != std::string::npos,
                 refusal.c_str());
        QCOMPARE(run.result("call_1_0")["exit_code"], 0);
        QCOMPARE(run.reason(), QString("finished"));
    }

    void lazyTools_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QStringList>("loaded");
        QTest::newRow("lazy_tools=true: only those called")
            << "lazy_tools=true" << QStringList{"read_file", "shell"};
        QTest::newRow("lazy_tools=false: all enabled")
            << "lazy_tools=false"
            << QStringList{"edit_file", "list_files", "memory_load", "memory_save", "memory_search",
                           "read_file", "search",     "shell",       "update_plan", "write_file"};
    }
    void lazyTools() {
        QFETCH(QString, setting);
        QFETCH(QStringList, loaded);
        AgentDirs dirs;
        QVERIFY(writeFile(dirs.inWorkspace("notes.txt"), "notes\n"));
        const auto run = dirs.run(
            {turn("shell", {{"command", "true"}}), turn("read_file", {{"path", "notes.txt"}}), finishTurn()},
            {"--set", setting});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QStringList reported;
        for (const auto& name : dirs.report().value("tools_loaded", json::array()))
            reported << text(name);
        QCOMPARE(reported, loaded);
    }

    void shellTimeoutIsTheDefaultTimeout() {
        AgentDirs dirs;
        const auto run = dirs.run({turn("shell", {{"command", "sleep 30"}}), finishTurn()},
                                  {"--set", "shell_timeout_sec=1"});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.result("call_0_0").value("timed_out", false), true);
        QVERIFY2(run.output("call_0_0").find("timed out after 1 s") != std::string::npos,
                 run.output("call_0_0").c_str());
        // The command's own timeout, not the step's.
        QCOMPARE(run.guards(), QStringList{});
        QCOMPARE(run.reason(), QString("finished"));
    }

    void toolOutputLimit_data() {
        QTest::addColumn<QStringList>("settings");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<int>("maxBytes"); // 0: the whole output
        QTest::addColumn<bool>("truncated");
        const QStringList limit256 = sets({"tool_output_limit_bytes=256"});
        // The cap's marker is at most 48 bytes; a failing command adds a line with its exit code; read_file
        // stops at the limit with a line saying how to read on.
        QTest::newRow("shell, 256, exit 0") << limit256 << "shell"
                                            << R"({"command":"seq 1 3000"})" << 256 + 48 << true;
        QTest::newRow("shell, 256, exit 3") << limit256 << "shell"
                                            << R"({"command":"seq 1 3000; exit 3"})" << 256 + 48 + 32 << true;
        QTest::newRow("shell, under both limits") << sets({"tool_output_limit_tokens=4000"}) << "shell"
                                                  << R"({"command":"seq 1 3000"})" << 0 << false;
        // What the model reads is also held to tool_output_limit_tokens (4 bytes a token), its marker saying
        // how to narrow the command.
        QTest::newRow("shell, 100 tokens") << sets({"tool_output_limit_tokens=100"}) << "shell"
                                           << R"({"command":"seq 1 3000"})" << 100 * 4 + 220 << true;
        QTest::newRow("read_file, 256") << limit256 << "read_file"
                                        << R"({"path":"numbers.txt"})" << 256 + 128 << true;
    }
    void toolOutputLimit() {
        QFETCH(QStringList, settings);
        QFETCH(QString, tool);
        QFETCH(QString, arguments);
        QFETCH(int, maxBytes);
        QFETCH(bool, truncated);
        AgentDirs dirs;
        QByteArray numbers;
        for (int i = 1; i <= 3000; ++i)
            numbers += QByteArray::number(i) + "\n";
        QVERIFY(writeFile(dirs.inWorkspace("numbers.txt"), numbers));
        const auto run = dirs.run(
            {turn(tool.toStdString(), json::parse(arguments.toStdString())), finishTurn()}, settings);
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        const auto output = run.output("call_0_0");
        QCOMPARE(run.result("call_0_0").value("truncated", !truncated), truncated);
        if (maxBytes != 0)
            QVERIFY2(output.size() <= static_cast<std::size_t>(maxBytes),
                     qPrintable(QString::number(output.size())));
        if (tool != "shell")
            return;
        // The event log has all of it either way.
        const auto streamed = run.events.outputOf("call_0_0");
        QCOMPARE(QByteArray::fromStdString(streamed), numbers);
        if (maxBytes == 0) {
            QCOMPARE(QByteArray::fromStdString(output), numbers);
        } else {
            QVERIFY(output.rfind("1\n2\n3\n", 0) == 0);          // the head
            QVERIFY(output.find("3000\n") != std::string::npos); // the tail
            QVERIFY(output.find("cut") != std::string::npos);
        }
    }

    void approvalTools_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<bool>("asked");
        QTest::addColumn<bool>("ran");
        QTest::newRow("listed, --approve deny")
            << QStringList{"--set", R"(approval_tools=["shell"])", "--approve", "deny"} << true << false;
        QTest::newRow("listed, --approve auto")
            << QStringList{"--set", R"(approval_tools=["shell"])", "--approve", "auto"} << true << true;
        QTest::newRow("not listed, --approve deny") << QStringList{"--approve", "deny"} << false << true;
    }
    void approvalTools() {
        QFETCH(QStringList, arguments);
        QFETCH(bool, asked);
        QFETCH(bool, ran);
        AgentDirs dirs;
        const auto run =
            dirs.run({turn("shell", {{"command", "touch approved.flag"}}), finishTurn()}, arguments);
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        const auto requested = run.events.ofType(et::kApprovalRequested);
        const auto resolved = run.events.ofType(et::kApprovalResolved);
        QCOMPARE(requested.size(), asked ? 1u : 0u);
        QCOMPARE(resolved.size(), asked ? 1u : 0u);
        if (asked) {
            QCOMPARE(requested[0].tool.value_or(""), std::string("shell"));
            QCOMPARE(requested[0].data["id"], "call_0_0");
            QCOMPARE(resolved[0].data["approved"], ran);
        }
        QCOMPARE(run.result("call_0_0").value("denied", false), !ran);
        QCOMPARE(QFileInfo::exists(dirs.inWorkspace("approved.flag")), ran);
        // A denial is an answer the model reads, not the end of the task.
        QCOMPARE(run.reason(), QString("finished"));
    }

    void executionCache_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("written"); // the file write_file writes between the second and third call
        QTest::addColumn<QString>("seenAfter"); // in the third call's output
        const QStringList settings{"execution_cache=true", "execution_cache=false"};
        for (const auto& setting : settings) {
            const bool enabled = setting.endsWith("true");
            QTest::addRow("read_file, %s", qPrintable(setting)) << setting << enabled << "read_file"
                                                                << R"({"path":"notes.txt"})"
                                                                << "notes.txt"
                                                                << "two two";
            QTest::addRow("list_files, %s", qPrintable(setting)) << setting << enabled << "list_files"
                                                                 << "{}"
                                                                 << "added.txt"
                                                                 << "added.txt";
            QTest::addRow("search, %s", qPrintable(setting)) << setting << enabled << "search"
                                                             << R"({"pattern":"two"})"
                                                             << "added.txt"
                                                             << "two two";
        }
    }
    void executionCache() {
        QFETCH(QString, setting);
        QFETCH(bool, enabled);
        QFETCH(QString, tool);
        QFETCH(QString, arguments);
        QFETCH(QString, written);
        QFETCH(QString, seenAfter);
        AgentDirs dirs;
        QVERIFY(writeFile(dirs.inWorkspace("notes.txt"), "one\n"));
        waitUntilOlderThanTheCoarseClock(dirs.workspace());
        const auto call = turn(tool.toStdString(), json::parse(arguments.toStdString()));
        const auto run = dirs.run(
            {call, call, turn("write_file", {{"path", written.toStdString()}, {"content", "two two\n"}}),
             call, finishTurn()},
            {"--set", setting});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.result("call_0_0").value("cached", false), false);
        QCOMPARE(run.result("call_1_0").value("cached", false), enabled);
        QCOMPARE(run.output("call_1_0"), run.output("call_0_0"));
        QCOMPARE(run.result("call_2_0")["exit_code"], 0);
        QCOMPARE(run.result("call_3_0").value("cached", false), false); // the workspace changed
        QVERIFY2(run.output("call_3_0").find(seenAfter.toStdString()) != std::string::npos,
                 run.output("call_3_0").c_str());
        QCOMPARE(dirs.report()["cache_hits"], enabled ? 1 : 0);
    }

    // ---- memory ---------------------------------------------------------------------------------------

    void memoryBackend_data() {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QStringList>("files"); // below memory_dir after the first run
        QTest::addColumn<bool>("works");        // the memory tools work in a standalone run
        QTest::addColumn<bool>("persists");     // a second run loads what the first saved
        QTest::newRow("filesystem") << "filesystem" << QStringList{"team/a/default/build-command"} << true
                                    << true;
        QTest::newRow("in-memory") << "in-memory" << QStringList{} << true << false;
        QTest::newRow("host (no control plane)") << "host" << QStringList{} << false << false;
    }
    void memoryBackend() {
        QFETCH(QString, backend);
        QFETCH(QStringList, files);
        QFETCH(bool, works);
        QFETCH(bool, persists);
        AgentDirs dirs;
        const QStringList settings{"--set", "memory_backend=" + backend,
                                   "--set", "memory_dir=" + dirs.memories(),
                                   "--set", "memory_prefix=team/a"};
        const auto load = turn("memory_load", {{"key", "build-command"}});
        const auto first =
            dirs.run({turn("memory_save", {{"key", "build-command"}, {"value", "cmake --build build"}}), load,
                      finishTurn()},
                     settings);
        QVERIFY2(first.valid(), qPrintable(first.describe()));
        QCOMPARE(first.result("call_0_0")["exit_code"], works ? 0 : 1);
        QCOMPARE(first.result("call_1_0")["exit_code"], works ? 0 : 1);
        if (works) {
            QVERIFY2(first.output("call_1_0").find("cmake --build build") != std::string::npos,
                     first.output("call_1_0").c_str());
        } else {
            for (const char* id : {"call_0_0", "call_1_0"})
                QVERIFY2(first.output(id).find("control plane") != std::string::npos,
                         first.output(id).c_str());
        }
        QCOMPARE(filesBelow(dirs.memories()), files);
        for (const auto& file : files)
            QVERIFY(readAll(dirs.memories() + "/" + file).contains("cmake --build build"));

        dirs.clearState();
        const auto second = dirs.run({load, finishTurn()}, settings);
        QVERIFY2(second.valid(), qPrintable(second.describe()));
        QCOMPARE(second.output("call_0_0").find("cmake --build build") != std::string::npos, persists);
    }

    void autoSaveInterval_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("filesDuringRun");
        QTest::newRow("auto_save_interval=3600: written at exit") << "auto_save_interval=3600"
                                                                  << "0";
        QTest::newRow("auto_save_interval=0: written at once") << "auto_save_interval=0"
                                                               << "1";
    }
    void autoSaveInterval() {
        QFETCH(QString, setting);
        QFETCH(QString, filesDuringRun);
        AgentDirs dirs;
        const auto count = "find '" + dirs.memories().toStdString() + "' -type f | wc -l";
        const auto run = dirs.run({turn("memory_save", {{"key", "plan"}, {"value", "write the tests"}}),
                                   turn("shell", {{"command", count}}), finishTurn()},
                                  {"--set", "memory_backend=filesystem", "--set",
                                   "memory_dir=" + dirs.memories(), "--set", setting});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.result("call_0_0")["exit_code"], 0);
        QCOMPARE(QString::fromStdString(run.output("call_1_0")).trimmed(), filesDuringRun);
        QCOMPARE(filesBelow(dirs.memories()), QStringList{"default/plan"});
    }

    void semanticIndex_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QStringList>("keys"); // the hits, best first
        QTest::newRow("semantic_index=true: ranked words")
            << "semantic_index=true" << QStringList{"release", "hosts"};
        QTest::newRow("semantic_index=false: the exact phrase") << "semantic_index=false" << QStringList{};
    }
    void semanticIndex() {
        QFETCH(QString, setting);
        QFETCH(QStringList, keys);
        AgentDirs dirs;
        const auto run =
            dirs.run({turn("memory_save", {{"key", "release"},
                                           {"value", "Deploy the build to staging first, then production"}}),
                      turn("memory_save", {{"key", "build"}, {"value", "cmake --build build"}}),
                      turn("memory_save", {{"key", "hosts"}, {"value", "staging is the host s1"}}),
                      turn("memory_search", {{"query", "deploy staging"}}), finishTurn()},
                     {"--set", "memory_backend=in-memory", "--set", setting});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.result("call_3_0")["exit_code"], 0);
        // One JSON line {namespace, key, value} per hit after a header line.
        QStringList found;
        for (const auto& line : QString::fromStdString(run.output("call_3_0")).split('\n')) {
            const json hit = json::parse(line.toStdString(), nullptr, false);
            if (hit.is_object())
                found << text(hit.value("key", json()));
        }
        QCOMPARE(found, keys);
        if (keys.isEmpty())
            QVERIFY2(run.output("call_3_0").rfind("no memory matches", 0) == 0,
                     run.output("call_3_0").c_str());
    }

    // ---- logging --------------------------------------------------------------------------------------

    void logLevelAndFormat_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("level");
        QTest::addColumn<QStringList>("stdoutLevels"); // of the log events
        QTest::addColumn<QStringList>("stderrLevels"); // of the "warren-agent: LEVEL: ..." lines
        // The run logs an info (the system prompt's version), a warning (no memory store), an info (no state
        // directory) and a warning (calls after finish), in that order.
        const QStringList all{"info", "warn", "info", "warn"};
        const QStringList warnings{"warn", "warn"};
        QTest::newRow("json, debug") << "json"
                                     << "debug" << all << QStringList{};
        QTest::newRow("json, info") << "json"
                                    << "info" << all << QStringList{};
        QTest::newRow("json, warn") << "json"
                                    << "warn" << warnings << QStringList{};
        QTest::newRow("json, error") << "json"
                                     << "error" << QStringList{} << QStringList{};
        QTest::newRow("text, info") << "text"
                                    << "info" << QStringList{} << all;
        QTest::newRow("text, warn") << "text"
                                    << "warn" << QStringList{} << warnings;
    }
    void logLevelAndFormat() {
        QFETCH(QString, format);
        QFETCH(QString, level);
        QFETCH(QStringList, stdoutLevels);
        QFETCH(QStringList, stderrLevels);
        AgentDirs dirs;
        json finishThenShell = turn("finish", {{"summary", "done"}});
        finishThenShell["tool_calls"].push_back(turn("shell", {{"command", "true"}})["tool_calls"][0]);
        const auto run = dirs.run({finishThenShell},
                                  sets({"memory_backend=host"}) + QStringList{"--set", "log_format=" + format,
                                                                              "--set", "log_level=" + level},
                                  false);
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.reason(), QString("finished"));
        QCOMPARE(run.logLevels(), stdoutLevels);
        QStringList onStderr;
        for (const auto& line : QString::fromUtf8(run.process.err).split('\n', Qt::SkipEmptyParts)) {
            QVERIFY2(line.startsWith("warren-agent: "), qPrintable(line));
            onStderr << line.section(": ", 1, 1);
        }
        QCOMPARE(onStderr, stderrLevels);
        if (format == "json")
            QCOMPARE(run.process.err, QByteArray());
    }

    // ---- hooks ----------------------------------------------------------------------------------------

    void hooksRunInOrder_data() {
        QTest::addColumn<bool>("scriptFinishes");
        QTest::addColumn<QStringList>("lines");
        QTest::newRow("finished task")
            << true << QStringList{"on_task_start 0", "on_step 1", "on_step 2", "on_task_complete 2"};
        QTest::newRow("script runs out: on_error")
            << false << QStringList{"on_task_start 0", "on_step 1", "on_error 2", "on_task_complete 2"};
    }
    void hooksRunInOrder() {
        QFETCH(bool, scriptFinishes);
        QFETCH(QStringList, lines);
        AgentDirs dirs;
        const QString command = "echo $WARREN_HOOK $WARREN_STEP >> hooks.log";
        QStringList settings;
        for (const char* hook : {"on_task_start", "on_step", "on_task_complete", "on_error"})
            settings << "--set" << QString(hook) + "=" + command;
        std::vector<json> turns{turn("shell", {{"command", "true"}})};
        if (scriptFinishes)
            turns.push_back(finishTurn());
        const auto run = dirs.run(turns, settings);
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.reason(), QString(scriptFinishes ? "finished" : "failed"));
        QCOMPARE(run.process.exitCode, scriptFinishes ? 0 : 1);
        QCOMPARE(QString::fromUtf8(readAll(dirs.inWorkspace("hooks.log"))).split('\n', Qt::SkipEmptyParts),
                 lines);

        QStringList fired;
        for (const auto& event : run.events.ofType(et::kHook)) {
            fired << text(event.data["name"]) + " " + QString::number(event.step);
            QCOMPARE(text(event.data["command"]), command);
            QCOMPARE(event.data["exit_code"], 0);
        }
        QCOMPARE(fired, lines);
        const auto complete = run.hooks("on_task_complete");
        QCOMPARE(complete.size(), 1u);
        QCOMPARE(text(complete[0].data.value("detail", json())), run.reason());
        if (!scriptFinishes) {
            const auto error = run.hooks("on_error");
            QCOMPARE(error.size(), 1u);
            QVERIFY2(error[0].data.value("detail", "").find("turns") != std::string::npos,
                     error[0].data.dump().c_str());
        }
    }

    void aFailingHookIsReportedAndTheTaskGoesOn() {
        AgentDirs dirs;
        const auto run = dirs.run({turn("shell", {{"command", "true"}}), finishTurn()},
                                  {"--set", "on_step=echo failing; exit 3"});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        const auto hooks = run.hooks("on_step");
        QCOMPARE(hooks.size(), 2u);
        for (const auto& hook : hooks) {
            QCOMPARE(hook.data["exit_code"], 3);
            QCOMPARE(text(hook.data.value("output", json())), QString("failing\n"));
        }
        QCOMPARE(run.steps(), 2u);
        QCOMPARE(run.reason(), QString("finished"));
        QCOMPARE(run.process.exitCode, 0);
    }

    // ---- presets --------------------------------------------------------------------------------------

    void presetsShowInTaskStarted_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected"); // keys the resolved config must have, as JSON
        QTest::newRow("memory-optimized")
            << QStringList{"--preset", "memory-optimized"}
            << R"({"memory_backend":"filesystem","max_memory_mb":400,"memory_threshold_mb":300,"lazy_tools":true,
                   "context_window_limit":8000})";
        QTest::newRow("production-log")
            << QStringList{"--preset", "production-log"} << R"({"log_format":"json","log_level":"info"})";
        QTest::newRow("long-term-memory")
            << QStringList{"--preset", "long-term-memory"}
            << R"({"memory_backend":"host","auto_save_interval":30,"compress_history":true,"semantic_index":true})";
        QTest::newRow("safe-mode")
            << QStringList{"--preset", "safe-mode"}
            << R"({"max_steps":50,"memory_threshold_mb":512,"timeout_per_step_sec":30,"loop_detection":true,
                   "approval_tools":["shell","write_file","edit_file","apply_patch"]})";
        QTest::newRow("local-light") << QStringList{"--preset", "local-light"}
                                     << R"({"memory_backend":"in-memory","log_level":"info","lazy_tools":true,
                   "tools":["shell","read_file","write_file","edit_file","apply_patch","list_files","finish"]})";
        QTest::newRow("team") << QStringList{"--preset", "team"} << R"({"max_subagents":3})";
        QTest::newRow("safe-mode,local-light: both")
            << QStringList{"--preset", "safe-mode,local-light"}
            << R"({"max_steps":50,"memory_backend":"in-memory","approval_tools":["shell","write_file","edit_file","apply_patch"],
                   "tools":["shell","read_file","write_file","edit_file","apply_patch","list_files","finish"]})";
        QTest::newRow("memory-optimized,local-light: later wins")
            << QStringList{"--preset", "memory-optimized,local-light"}
            << R"({"memory_backend":"in-memory","max_memory_mb":400,"lazy_tools":true})";
        QTest::newRow("local-light,memory-optimized: later wins")
            << QStringList{"--preset", "local-light,memory-optimized"}
            << R"({"memory_backend":"filesystem"})";
        QTest::newRow("two --preset options, in order")
            << QStringList{"--preset", "local-light", "--preset", "long-term-memory"}
            << R"({"memory_backend":"host"})";
        QTest::newRow("--set overrides the preset")
            << QStringList{"--preset", "safe-mode,local-light", "--set", "max_steps=7"}
            << R"({"max_steps":7,"memory_threshold_mb":512})";
        QTest::newRow("--set before --preset still overrides")
            << QStringList{"--set", "max_steps=7", "--preset", "safe-mode"}
            << R"({"max_steps":7,"loop_detection":true})";
    }
    void presetsShowInTaskStarted() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        AgentDirs dirs;
        const auto run = dirs.run({finishTurn()}, arguments);
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        const auto diff = differences(run.config(), json::parse(expected.toStdString()));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // PROTOCOL.md: task_started data has task_id, prompt, presets and config.
    void taskStartedNamesThePresets() {
        AgentDirs dirs;
        const auto run = dirs.run({finishTurn()}, {"--preset", "safe-mode,local-light"});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        const auto started = run.events.ofType(et::kTaskStarted);
        QCOMPARE(started.size(), 1u);
        QVERIFY2(started[0].data.contains("presets"), started[0].data.dump().c_str());
        QCOMPARE(started[0].data["presets"], json::array({"safe-mode", "local-light"}));
    }

    void memoryOptimizedLoadsToolsLazily() {
        AgentDirs dirs;
        const auto run =
            dirs.run({turn("shell", {{"command", "true"}}), finishTurn()}, {"--preset", "memory-optimized"});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.reason(), QString("finished"));
        QCOMPARE(dirs.report()["tools_loaded"], json::array({"shell"}));
    }

    void productionLogPrintsOnlyEventsOnStdout() {
        AgentDirs dirs;
        // No state directory: the agent has something to log.
        const auto run = dirs.run(
            {turn("shell", {{"command", "echo to the event log; echo errors too >&2"}}), finishTurn()},
            {"--preset", "production-log"}, false);
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.process.err, QByteArray());
        QVERIFY(!run.events.ofType(et::kLog).empty());
        for (const auto& line : run.process.out.split('\n')) {
            if (line.isEmpty())
                continue;
            const json event = json::parse(line.toStdString(), nullptr, false);
            QVERIFY2(event.is_object(), line.constData());
            QVERIFY2(event.contains("seq") && event["seq"].is_number_unsigned(), line.constData());
            QVERIFY2(event.contains("ts") && event["ts"].is_string(), line.constData());
            QVERIFY2(event.contains("type") && event["type"].is_string(), line.constData());
            QVERIFY2(event.contains("step") && event["step"].is_number_unsigned(), line.constData());
        }
        QVERIFY(run.events.outputOf("call_0_0").find("errors too") != std::string::npos);
    }

    void longTermMemoryNeedsTheControlPlane() {
        AgentDirs dirs;
        const auto run = dirs.run({turn("memory_save", {{"key", "k"}, {"value", "v"}}), finishTurn()},
                                  {"--preset", "long-term-memory"});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.result("call_0_0")["exit_code"], 1);
        QVERIFY2(run.output("call_0_0").find("control plane") != std::string::npos,
                 run.output("call_0_0").c_str());
        QCOMPARE(run.reason(), QString("finished"));
    }

    void safeModeAsksBeforeShellAndWrites() {
        AgentDirs dirs;
        const auto run = dirs.run({turn("shell", {{"command", "touch approved.flag"}}),
                                   turn("write_file", {{"path", "written.txt"}, {"content", "x"}}),
                                   turn("list_files", json::object()), finishTurn()},
                                  {"--preset", "safe-mode", "--approve", "deny"});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.events.ofType(et::kApprovalRequested).size(), 2u);
        QCOMPARE(run.result("call_0_0").value("denied", false), true);
        QCOMPARE(run.result("call_1_0").value("denied", false), true);
        QCOMPARE(run.result("call_2_0").value("denied", false), false); // read-only: no approval
        QCOMPARE(run.result("call_2_0")["exit_code"], 0);
        QVERIFY(!QFileInfo::exists(dirs.inWorkspace("approved.flag")));
        QVERIFY(!QFileInfo::exists(dirs.inWorkspace("written.txt")));
    }

    void localLightHasNoMemoryTools() {
        AgentDirs dirs;
        const auto run = dirs.run({turn("memory_save", {{"key", "k"}, {"value", "v"}}),
                                   turn("shell", {{"command", "true"}}), finishTurn()},
                                  {"--preset", "local-light"});
        QVERIFY2(run.valid(), qPrintable(run.describe()));
        QCOMPARE(run.result("call_0_0")["exit_code"], 1);
        QVERIFY2(run.output("call_0_0").find("there is no tool \"memory_save\"") != std::string::npos,
                 run.output("call_0_0").c_str());
        QCOMPARE(dirs.report()["tools_loaded"], json::array({"shell"}));
    }
};

QTEST_GUILESS_MAIN(TestAgentSettings)
#include "tst_agent_settings.moc"
