// Crash-only: warren-agent killed with SIGKILL at random points, many times, and started again on the same
// state directory, ends with the same workspace and the same tool results as a run never killed. Event
// seqs keep increasing across the runs; a call cut by a kill is reported to the model as interrupted.

#include "agent_core/protocol/EventTypes.h"
#include "tests/support/AgentRun.h"
#include "tests/support/SandboxRun.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QtTest>
#include <csignal>

using namespace warren;
using namespace warren::test;
namespace et = warren::protocol::event_type;
using nlohmann::json;

namespace {

// Steps whose effects do not depend on how often an interrupted one was retried.
std::vector<json> resumableScript() {
    std::vector<json> turns;
    for (int i = 0; i < 8; ++i) {
        const auto n = std::to_string(i);
        turns.push_back(turn("write_file", {{"path", "notes/" + n + ".txt"}, {"content", "note " + n + "\n"}}));
        turns.push_back(turn("shell", {{"command", "cat notes/*.txt > all.txt && wc -l < all.txt > count.txt"}}));
        if (i % 3 == 0)
            turns.push_back(turn("shell", {{"command", "sleep 0.05; echo step " + n + " > slow" + n + ".txt"}}));
        turns.push_back(turn("read_file", {{"path", "all.txt"}}));
    }
    turns.push_back(turn("edit_file", {{"path", "all.txt"}, {"old_string", "note 0\n"}, {"new_string", "first\n"}}));
    turns.push_back(turn("finish", {{"summary", "wrote the notes"}}));
    return turns;
}

QMap<QString, QByteArray> tree(const QString& root) {
    QMap<QString, QByteArray> files;
    QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (file.open(QIODevice::ReadOnly))
            files[QDir(root).relativeFilePath(path)] = file.readAll();
    }
    return files;
}

// The tool results the model read in the end, interrupted ones left out: the effective calls.
QStringList effectiveResults(const QString& stateDir) {
    QFile file(stateDir + "/checkpoint.json");
    if (!file.open(QIODevice::ReadOnly))
        return {"no checkpoint"};
    const json state = json::parse(file.readAll().toStdString(), nullptr, false);
    QStringList results;
    for (const auto& message : state.value("messages", json::array())) {
        if (message.value("role", "") != "tool")
            continue;
        const auto content = message.value("content", "");
        if (content.rfind("[interrupted]", 0) == 0)
            continue;
        results << QString::fromStdString(content);
    }
    return results;
}

struct Dirs {
    QTemporaryDir root;
    QString workspace() const { return root.path() + "/workspace"; }
    QString state() const { return root.path() + "/state"; }
    QString script() const { return root.path() + "/script.json"; }
    Dirs() {
        QDir().mkpath(workspace());
        QDir().mkpath(state());
        writeScript(script(), resumableScript());
    }
    QStringList arguments() const {
        return {"run", "--script", script(), "--workspace", workspace(), "--state", state(), "Write the notes"};
    }
};

} // namespace

class TestAgentResume : public QObject {
    Q_OBJECT

    Dirs m_reference;
    EventStream m_referenceEvents;

private slots:
    void initTestCase() {
        QVERIFY2(QFileInfo(agentBinary()).isExecutable(), "WARREN_AGENT must name the built warren-agent");
        const auto run = runProgram(agentBinary(), m_reference.arguments());
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        m_referenceEvents = parseEvents(run.out);
        QVERIFY2(m_referenceEvents.error.isEmpty(), qPrintable(m_referenceEvents.error));
    }

    void killedAtRandomAndResumedEndsTheSame_data() {
        QTest::addColumn<quint32>("seed");
        for (quint32 seed = 1; seed <= 12; ++seed)
            QTest::newRow(qPrintable(QString("seed %1").arg(seed))) << seed;
    }
    void killedAtRandomAndResumedEndsTheSame() {
        QFETCH(quint32, seed);
        QRandomGenerator random(seed);
        Dirs dirs;
        const int total = static_cast<int>(m_referenceEvents.events.size());
        QByteArray allOut;
        int kills = 0;
        int interruptedReports = 0;
        for (int run = 0;; ++run) {
            QVERIFY2(run < 40, "the task did not finish after 40 runs");
            QProcess agent;
            agent.start(agentBinary(), dirs.arguments());
            QVERIFY(agent.waitForStarted());
            // Kill after a random number of events in most runs; let the last runs finish.
            const int killAfter = kills < 5 ? static_cast<int>(random.bounded(1, total)) : -1;
            QByteArray out;
            int lines = 0;
            bool killed = false;
            while (agent.state() != QProcess::NotRunning) {
                agent.waitForReadyRead(1000);
                const QByteArray chunk = agent.readAllStandardOutput();
                out += chunk;
                lines += static_cast<int>(chunk.count('\n'));
                if (killAfter > 0 && lines >= killAfter) {
                    ::kill(static_cast<pid_t>(agent.processId()), SIGKILL);
                    agent.waitForFinished(-1);
                    killed = true;
                    break;
                }
            }
            agent.waitForFinished(-1);
            out += agent.readAllStandardOutput();
            // A killed run may have cut its last line short.
            if (killed && !out.endsWith('\n'))
                out.truncate(out.lastIndexOf('\n') + 1);
            allOut += out;
            if (killed) {
                ++kills;
                continue;
            }
            QVERIFY2(agent.exitStatus() == QProcess::NormalExit && agent.exitCode() == 0,
                     qPrintable(QString::fromUtf8(agent.readAllStandardError())));
            break;
        }
        const auto events = parseEvents(allOut);
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error)); // seq increases across every run
        for (const auto& resumed : events.ofType(et::kTaskResumed))
            if (!resumed.data["interrupted_tool_call"].is_null())
                ++interruptedReports;
        QCOMPARE(events.finished()["reason"], "finished");
        QCOMPARE(tree(dirs.workspace()), tree(m_reference.workspace()));
        // Contents may differ where a retried call found its work already done (an edit applied before the
        // kill): the count of calls that completed may not.
        QCOMPARE(effectiveResults(dirs.state()).size(), effectiveResults(m_reference.state()).size());
        qInfo("seed %u: %d kills, %d calls reported interrupted", seed, kills, interruptedReports);
    }

    // A checkpoint that cannot be read stops the task with the reason; the file is kept for inspection.
    void aCorruptCheckpointIsReportedAndKept() {
        Dirs dirs;
        QFile file(dirs.state() + "/checkpoint.json");
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": 1, \"task_id\": ");
        file.close();
        const auto run = runProgram(agentBinary(), dirs.arguments());
        QCOMPARE(run.exitCode, 1);
        const auto events = parseEvents(run.out);
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
        QCOMPARE(events.finished()["reason"], "failed");
        QVERIFY(events.finished()["summary"].get<std::string>().find("checkpoint.json") != std::string::npos);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("{\"format\": 1, \"task_id\": "));
        QVERIFY(tree(dirs.workspace()).isEmpty());
    }

    void aFinishedTaskIsNotRunAgain() {
        Dirs dirs;
        QCOMPARE(runProgram(agentBinary(), dirs.arguments()).exitCode, 0);
        const auto again = runProgram(agentBinary(), dirs.arguments());
        QCOMPARE(again.exitCode, 1);
        QVERIFY2(again.out.contains("already ended"), qPrintable(again.describe()));
    }
};

QTEST_GUILESS_MAIN(TestAgentResume)
#include "tst_agent_resume.moc"
