// GET /metrics against a real warrend on its own PostgreSQL: off without the operator's token file (saying
// how to turn it on), refused without the token or with a user's key, and with it the Prometheus text format
// (checked by Debian's promtool where it is installed, and line by line here): the tasks by status, counted
// as a task moves, the event streams, the process; what a real run did (its sandbox's start and latency, its
// model call and tokens, its events committed and their lag) and a quota's refusal, each counted where it
// happened. A token file others may read stops the start.
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

const QByteArray kToken = "metrics-token-0123456789abcdef";

bool writeFile(const QString& path, const QByteArray& bytes, QFile::Permissions permissions) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() && file.setPermissions(permissions);
}

// A sample's value by its name and labels as written ("warrend_tasks{status=\"queued\"}"); -1 when absent.
double sample(const QByteArray& text, const QByteArray& series) {
    for (const QByteArray& line : text.split('\n'))
        if (line.startsWith(series + " "))
            return line.mid(series.size() + 1).toDouble();
    return -1;
}

// NAME{LABEL="VALUE",...} NUMBER, as the text format writes a sample (moc cannot read this as a raw string).
bool isSampleLine(const QByteArray& line) {
    static const QRegularExpression pattern(
        "^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"\\\\]*\"(,[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"\\\\]*\")*\\})? "
        "[-+0-9.eE]+(Inf)?$");
    return pattern.match(QString::fromUtf8(line)).hasMatch();
}

} // namespace

class TestWarrendMetrics : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QString error;
        m_server = WarrendServer::create(&error);
        QVERIFY2(m_server, qPrintable(error));
        m_alice = m_server->addUser("alice");
        QVERIFY(writeFile(m_scratch.filePath("token"), kToken + "\n", QFile::ReadOwner | QFile::WriteOwner));
    }

    void offWithoutTheFlag() {
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        const HttpAnswer answer = m_server->request("GET", "/metrics", QString::fromUtf8(kToken));
        QCOMPARE(answer.status, 404);
        QVERIFY2(answer.body.contains("--metrics-token-file"), answer.body.constData());
        m_server->stop();
    }

    void aTokenFileOthersMayReadStopsTheStart() {
        const QString loose = m_scratch.filePath("loose");
        QVERIFY(writeFile(loose, kToken, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther));
        QString error;
        QVERIFY(!m_server->start(&error, {"--metrics-token-file", loose}));
        QVERIFY2(m_server->serverOutput().contains("group or others may read or write it"), m_server->serverOutput().constData());
        const QString shortToken = m_scratch.filePath("short");
        QVERIFY(writeFile(shortToken, "abc", QFile::ReadOwner | QFile::WriteOwner));
        QVERIFY(!m_server->start(&error, {"--metrics-token-file", shortToken}));
        QVERIFY2(m_server->serverOutput().contains("16 to 4096 visible characters"), m_server->serverOutput().constData());
    }

    void theOperatorsTokenReadsTheServersNumbers() {
        QString error;
        QVERIFY2(m_server->start(&error, {"--metrics-token-file", m_scratch.filePath("token")}), qPrintable(error));
        // Nobody else: no token, a user's key, a token one byte off.
        for (const QString& key : {QString(), m_alice, QString::fromUtf8(kToken.chopped(1) + "x")}) {
            const HttpAnswer refused = m_server->request("GET", "/metrics", key);
            QCOMPARE(refused.status, 401);
            QVERIFY(!refused.body.contains("warrend_tasks"));
        }

        HttpAnswer answer = m_server->request("GET", "/metrics", QString::fromUtf8(kToken));
        QCOMPARE(answer.status, 200);
        QVERIFY2(answer.header("content-type").startsWith("text/plain; version=0.0.4"), answer.header("content-type").constData());
        QCOMPARE(sample(answer.body, "warrend_tasks{status=\"succeeded\"}"), 0.0);
        QVERIFY(sample(answer.body, "process_resident_memory_bytes") > 0);
        QVERIFY(sample(answer.body, "process_open_fds") > 0);
        QVERIFY(sample(answer.body, "warrend_max_tasks") >= 1);
        // One replica alone: it holds no task yet, and none changed hands.
        QCOMPARE(sample(answer.body, "warrend_task_leases"), 0.0);
        QCOMPARE(sample(answer.body, "warrend_task_lease_changes_total{change=\"adopted\"}"), 0.0);
        QCOMPARE(sample(answer.body, "warrend_task_lease_changes_total{change=\"lost\"}"), 0.0);

        // A task that finishes is counted as such.
        QVERIFY(QDir().mkpath(m_scratch.filePath("ws")));
        const QString upload = m_server->upload(m_alice, m_scratch.filePath("ws"));
        const json body{
            {"prompt", "finish"},
            {"workspace", upload.toStdString()},
            {"script",
             {{"turns", json::array({{{"tool_calls", json::array({{{"name", "finish"},
                                                                   {"arguments", {{"summary", "done"}}}}})},
                                      {"usage", {{"input", 120}, {"output", 30}}}}})}}}};
        const HttpAnswer created = m_server->request("POST", "/v1/tasks", m_alice, QByteArray::fromStdString(body.dump()));
        QCOMPARE(created.status, 201);
        const auto events = m_server->streamEvents(QString::fromStdString(created.json().value("id", "")), m_alice, {});
        QVERIFY(!events.empty() && events.back().value("type", "") == "task_finished");
        answer = m_server->request("GET", "/metrics", QString::fromUtf8(kToken));
        QCOMPARE(sample(answer.body, "warrend_tasks{status=\"succeeded\"}"), 1.0);
        QCOMPARE(sample(answer.body, "warrend_task_leases"), 0.0); // its lease went with its run

        // What the run did, counted where it happened: its sandbox started (bubblewrap, the default) once,
        // with its latency observed; its one model call answered with the script's tokens; every event it
        // streamed was committed, each with its commit lag.
        QCOMPARE(sample(answer.body, "warrend_sandbox_starts_total{backend=\"bwrap\",result=\"started\"}"),
                 1.0);
        QCOMPARE(sample(answer.body, "warrend_sandbox_start_seconds_count{backend=\"bwrap\",start=\"cold\"}"),
                 1.0);
        QCOMPARE(sample(answer.body,
                        "warrend_sandbox_start_seconds_bucket{backend=\"bwrap\",start=\"cold\",le=\"+Inf\"}"),
                 1.0);
        QVERIFY(sample(answer.body, "warrend_sandbox_start_seconds_sum{backend=\"bwrap\",start=\"cold\"}") >
                0);
        QCOMPARE(sample(answer.body, "warrend_model_calls_total{provider=\"scripted\",result=\"answered\"}"),
                 1.0);
        QCOMPARE(sample(answer.body, "warrend_model_tokens_total{provider=\"scripted\",direction=\"input\"}"),
                 120.0);
        QCOMPARE(
            sample(answer.body, "warrend_model_tokens_total{provider=\"scripted\",direction=\"output\"}"),
            30.0);
        const double stored = sample(answer.body, "warrend_events_stored_total");
        QVERIFY2(stored >= double(events.size()), answer.body.constData());
        QCOMPARE(sample(answer.body, "warrend_event_commit_lag_seconds_count"), stored);
        QCOMPARE(sample(answer.body, "warrend_event_commit_lag_seconds_bucket{le=\"+Inf\"}"), stored);
        for (const char* kind : {"unavailable", "refused", "failed"})
            QVERIFY(sample(answer.body, QByteArray("warrend_database_errors_total{kind=\"") + kind + "\"}") >=
                    0);

        // A user whose quota is no concurrent task is refused (429), and the refusal is counted by its limit.
        const QString bob = m_server->addUser("bob");
        QCOMPARE(m_server->admin({"set-quota", "--user", "bob", "--max-concurrent", "0"}).exitCode, 0);
        const QString bobsUpload = m_server->upload(bob, m_scratch.filePath("ws"));
        json bobsBody = body;
        bobsBody["workspace"] = bobsUpload.toStdString();
        const HttpAnswer refused =
            m_server->request("POST", "/v1/tasks", bob, QByteArray::fromStdString(bobsBody.dump()));
        QCOMPARE(refused.status, 429);
        answer = m_server->request("GET", "/metrics", QString::fromUtf8(kToken));
        QCOMPARE(sample(answer.body, "warrend_quota_refusals_total{quota=\"max_concurrent\",level=\"user\"}"),
                 1.0);

        // Every line is a comment or NAME{LABELS} VALUE, and Debian's promtool reads it as valid.
        for (const QByteArray& line : answer.body.split('\n'))
            QVERIFY2(line.isEmpty() || line.startsWith("# HELP ") || line.startsWith("# TYPE ") || isSampleLine(line),
                     line.constData());
        const QString promtool = QStandardPaths::findExecutable("promtool");
        if (promtool.isEmpty())
            QSKIP("promtool is not installed (Debian's prometheus package): the format was checked line by line only");
        QProcess check;
        check.start(promtool, {"check", "metrics"});
        check.write(answer.body);
        check.closeWriteChannel();
        QVERIFY(check.waitForFinished(30000));
        QVERIFY2(check.exitCode() == 0, (check.readAllStandardOutput() + check.readAllStandardError()).constData());
    }

private:
    QTemporaryDir m_scratch;
    std::unique_ptr<WarrendServer> m_server;
    QString m_alice;
};

QTEST_GUILESS_MAIN(TestWarrendMetrics)
#include "tst_warrend_metrics.moc"
