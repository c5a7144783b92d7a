// The control plane under a flood: `warren run` with flood-agent (tests/support/flood_agent.c) in the
// sandbox in place of warren-agent, writing events as fast as the pipe takes them. Every event must reach
// SQLite in order, once, and the --json stream; bad lines in the middle of a flood are recorded as error
// events and cost no good event. The database is read with the SQLite C API, not through the Store, so the
// test sees what is on disk rather than what the control plane believes it wrote.

#include "tests/support/WarrenRun.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <string>
#include <vector>

using namespace warren::test;
using nlohmann::json;

namespace {

constexpr int kFloodTimeoutMs = 540 * 1000; // under the ctest TIMEOUT of 600 s

QString floodAgent() { return QProcessEnvironment::systemEnvironment().value("WARREN_FLOOD_AGENT"); }

struct FloodRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    qint64 elapsedMs = 0;
};

// `warren run --json PROMPT` with flood-agent as the agent. The scripted provider needs a valid script,
// although flood-agent never asks the model.
FloodRun runFlood(const QTemporaryDir& root, const QString& prompt) {
    const QString dataDir = root.path() + "/data";
    const QString workspace = root.path() + "/workspace";
    const QString script = root.path() + "/script.json";
    QDir().mkpath(workspace);
    QFile file(script);
    if (file.open(QIODevice::WriteOnly))
        file.write("{\"turns\":[{\"content\":\"x\"}]}\n");
    file.close();

    QProcessEnvironment environment = warrenEnvironment(dataDir);
    environment.insert("WARREN_AGENT", floodAgent());
    QProcess process;
    QElapsedTimer clock;
    clock.start();
    startWarren(process,
                {"run", "--json", "--workspace", workspace, "--provider", "scripted:" + script, "--approve", "deny",
                 prompt},
                dataDir, environment);
    FloodRun run;
    if (!process.waitForStarted() || !process.waitForFinished(kFloodTimeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = "warren did not finish: " + process.errorString().toUtf8();
        return run;
    }
    run.elapsedMs = clock.elapsed();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

qsizetype lineCount(const QByteArray& text) {
    qsizetype lines = text.count('\n');
    if (!text.isEmpty() && !text.endsWith('\n'))
        ++lines; // a last line without its newline still is a line
    return lines;
}

struct CloseDatabase {
    void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using Database = std::unique_ptr<sqlite3, CloseDatabase>;

struct CloseStatement {
    void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Statement = std::unique_ptr<sqlite3_stmt, CloseStatement>;

Database openReadOnly(const QString& path) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        qWarning() << "cannot open" << path << ":" << (db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return nullptr;
    }
    return Database(db);
}

Statement prepare(sqlite3* db, const char* sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) != SQLITE_OK) {
        qWarning() << "cannot prepare" << sql << ":" << sqlite3_errmsg(db);
        return nullptr;
    }
    return Statement(statement);
}

std::string columnText(sqlite3_stmt* statement, int column) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
    return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, column))) : std::string();
}

// Every row of a query, each column as text.
std::vector<std::vector<std::string>> rows(sqlite3* db, const char* sql) {
    std::vector<std::vector<std::string>> out;
    Statement statement = prepare(db, sql);
    if (!statement)
        return out;
    while (sqlite3_step(statement.get()) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int column = 0; column < sqlite3_column_count(statement.get()); ++column)
            row.push_back(columnText(statement.get(), column));
        out.push_back(std::move(row));
    }
    return out;
}

struct StoredEvent {
    qint64 seq = 0;
    std::string type;
    json body;
};

std::vector<StoredEvent> storedEvents(sqlite3* db, const std::string& taskId) {
    std::vector<StoredEvent> events;
    Statement statement = prepare(db, "SELECT seq, type, body FROM events WHERE task_id = ?1 ORDER BY seq");
    if (!statement)
        return events;
    sqlite3_bind_text(statement.get(), 1, taskId.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(statement.get()) == SQLITE_ROW) {
        StoredEvent event;
        event.seq = sqlite3_column_int64(statement.get(), 0);
        event.type = columnText(statement.get(), 1);
        event.body = json::parse(columnText(statement.get(), 2), nullptr, false);
        events.push_back(std::move(event));
    }
    return events;
}

std::string dataText(const json& body, const char* key) {
    if (!body.is_object() || !body.contains("data") || !body["data"].is_object())
        return {};
    const json& data = body["data"];
    return data.contains(key) && data[key].is_string() ? data[key].get<std::string>() : std::string();
}

} // namespace

class TestControlFlood : public QObject {
    Q_OBJECT

private:
    // What every flood must leave behind: one succeeded task; its events numbered 1..count by the store
    // with no gap; the agent's tool_output texts "line 1".."line lines", each once and in order; a
    // task_finished event; an intact database; one --json line per stored event.
    void checkStored(const QTemporaryDir& root, const FloodRun& run, int lines, std::vector<StoredEvent>& events) {
        Database db = openReadOnly(root.path() + "/data/warren.db");
        QVERIFY(db);

        const auto tasks = rows(db.get(), "SELECT id, status, finish_reason FROM tasks");
        QCOMPARE(tasks.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(tasks[0][1]), QString("succeeded"));
        QCOMPARE(QString::fromStdString(tasks[0][2]), QString("finished"));

        events = storedEvents(db.get(), tasks[0][0]);
        QVERIFY2(events.size() >= static_cast<std::size_t>(lines) + 1, qPrintable(QString::number(events.size())));
        for (std::size_t i = 0; i < events.size(); ++i) {
            if (events[i].seq != static_cast<qint64>(i) + 1)
                QFAIL(qPrintable(QString("store seq %1 at position %2: the seqs are not contiguous from 1")
                                     .arg(events[i].seq)
                                     .arg(i)));
            if (events[i].body.is_discarded())
                QFAIL(qPrintable(QString("the body of event %1 is not JSON").arg(events[i].seq)));
        }

        int next = 1;
        for (const auto& event : events) {
            if (event.type != "tool_output")
                continue;
            const std::string expected = "line " + std::to_string(next);
            const std::string text = dataText(event.body, "text");
            if (text != expected)
                QFAIL(qPrintable(QString("event %1 carries \"%2\" where \"%3\" was next: lost, repeated or reordered")
                                     .arg(event.seq)
                                     .arg(QString::fromStdString(text), QString::fromStdString(expected))));
            ++next;
        }
        QCOMPARE(next - 1, lines);
        QCOMPARE(QString::fromStdString(events.back().type), QString("task_finished"));
        QCOMPARE(QString::fromStdString(dataText(events.back().body, "summary")), QString("flooded"));

        const auto integrity = rows(db.get(), "PRAGMA integrity_check");
        QCOMPARE(integrity.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(integrity[0][0]), QString("ok"));

        QCOMPARE(lineCount(run.out), static_cast<qsizetype>(events.size()));
    }

private slots:
    void initTestCase() {
        if (warrenBinary().isEmpty() || floodAgent().isEmpty())
            QSKIP("WARREN_CLI or WARREN_FLOOD_AGENT is not set: run through ctest");
        QVERIFY2(QFileInfo(floodAgent()).isExecutable(), qPrintable(floodAgent()));
    }

    // 200,000 events written as fast as the pipe takes them: all stored, in order, none lost.
    void flood_allStoredInOrder() {
        constexpr int kLines = 200000;
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const FloodRun run = runFlood(root, QString("flood %1").arg(kLines));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        qInfo("flood of %d events: warren run took %lld ms (%.0f events/s)", kLines, run.elapsedMs,
              kLines * 1000.0 / static_cast<double>(std::max<qint64>(run.elapsedMs, 1)));

        std::vector<StoredEvent> events;
        checkStored(root, run, kLines, events);
        if (QTest::currentTestFailed())
            return;
        for (const auto& event : events)
            QVERIFY2(event.type != "error", qPrintable(QString::fromStdString(event.body.dump())));
    }

    // Bad lines in the middle of a flood: not JSON, over the 8 MiB line cap, not UTF-8, and an event whose
    // seq goes back. Each is one non-fatal error event, stored where it happened (after "line 500"), and
    // the task runs on to its end.
    void flood_badLinesRecordedAndSurvived() {
        constexpr int kLines = 1000;
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const FloodRun run = runFlood(root, QString("flood %1 bad").arg(kLines));
        QVERIFY2(run.exitCode == 0, run.err.constData());

        std::vector<StoredEvent> events;
        checkStored(root, run, kLines, events);
        if (QTest::currentTestFailed())
            return;

        std::vector<std::string> errors;
        std::string before; // the last tool_output text before each error
        std::vector<std::string> positions;
        for (const auto& event : events) {
            if (event.type == "tool_output")
                before = dataText(event.body, "text");
            if (event.type != "error")
                continue;
            errors.push_back(dataText(event.body, "message"));
            positions.push_back(before);
            QCOMPARE(event.body.value("data", json::object()).value("fatal", true), false);
        }
        const char* expected[] = {"agent stdout: not JSON", "bytes exceed the line cap of 8388608 bytes",
                                  "invalid UTF-8", "agent events out of order: event seq 1 does not follow seq 500"};
        QCOMPARE(errors.size(), std::size(expected));
        for (std::size_t i = 0; i < errors.size(); ++i) {
            QVERIFY2(errors[i].find(expected[i]) != std::string::npos, errors[i].c_str());
            QCOMPARE(QString::fromStdString(positions[i]), QString("line 500"));
        }

        // The event with the backward seq is kept (numbered by the store like any other): the log is the
        // audit trail, and it says that it arrived out of order.
        bool backwardLogStored = false;
        for (const auto& event : events)
            backwardLogStored = backwardLogStored || (event.type == "log" &&
                                                      dataText(event.body, "message") == "seq goes backwards");
        QVERIFY(backwardLogStored);
    }
};

QTEST_GUILESS_MAIN(TestControlFlood)
#include "tst_control_flood.moc"
