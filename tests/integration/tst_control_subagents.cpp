// Sub-agents through the whole control plane: `warren run` with a scripted model that scripts the task's
// agent and two sub-agents, in the real sandbox. The terminal nests each sub-agent's lines under the task's,
// the stored events carry the agent they came from, the task counts only its own agent's steps.

#include "tests/support/AgentRun.h"
#include "tests/support/WarrenRun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::test;
using nlohmann::json;

namespace {

json call(const std::string& name, json arguments) {
    return {{"name", name}, {"arguments", std::move(arguments)}};
}

json turnOf(std::vector<json> calls) {
    return {{"tool_calls", std::move(calls)}};
}

QString readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

class TestControlSubagents : public QObject {
    Q_OBJECT

private slots:
    void subAgentsRunNestedUnderTheirCall() {
        QTemporaryDir data, workspace, dir;
        const QString script = dir.filePath("script.json");
        const json document = {
            {"turns",
             {turnOf({call("spawn_agent", {{"brief", "Write a.txt"}}), call("spawn_agent", {{"brief", "Write b.txt"}})}),
              turnOf({call("wait_agents", json::object())}),
              turnOf({call("finish", {{"summary", "both files written"}})})}},
            {"agents",
             {{"agent-1", {turnOf({call("write_file", {{"path", "a.txt"}, {"content", "a\n"}})}),
                           turnOf({call("finish", {{"summary", "wrote a.txt"}})})}},
              {"agent-2", {turnOf({call("write_file", {{"path", "b.txt"}, {"content", "b\n"}})}),
                           turnOf({call("finish", {{"summary", "wrote b.txt"}})})}}}}};
        QFile file(script);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(document.dump()));
        file.close();

        const auto run = runWarren({"run", "--no-color", "--provider", "scripted:" + script, "--set",
                                    "max_subagents=2", "--workspace", workspace.path(), "split the work"},
                                   data.path());
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains("  │ agent-1 ↳ started (worker) by the task's agent: Write a.txt\n"), run.out.constData());
        QVERIFY(run.out.contains("  │ agent-2 ✓ finished: wrote b.txt · changed b.txt\n"));
        QCOMPARE(readFile(workspace.path() + "/a.txt"), QString("a\n"));
        QCOMPARE(readFile(workspace.path() + "/b.txt"), QString("b\n"));

        const auto tasks = jsonLines(runWarren({"tasks", "--json"}, data.path()).out);
        QVERIFY(!tasks.empty());
        QCOMPARE(tasks.front().value("steps", 0), 3); // the task's own agent's steps
        const auto show = runWarren({"show", QString::fromStdString(tasks.front()["id"].get<std::string>()), "--json"},
                                    data.path());
        const auto events = parseEvents(show.out);
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
        std::size_t fromAgentTwo = 0;
        for (const auto& event : events.events)
            fromAgentTwo += event.agent == std::optional<std::string>("agent-2");
        QVERIFY(fromAgentTwo >= 5); // started, its steps, its call and result, file_changed, finished
        const auto started = events.ofType("agent_started");
        QCOMPARE(started.size(), std::size_t(2));
        QCOMPARE(started[0].data["call_id"], "call_0_0");
        QCOMPARE(events.events.back().type, "task_finished");
        QVERIFY(!events.events.back().agent);
    }
};

QTEST_GUILESS_MAIN(TestControlSubagents)
#include "tst_control_subagents.moc"
