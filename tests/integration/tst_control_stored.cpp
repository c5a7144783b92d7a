// What a face is told is on disk: every eventStored of a LocalControlPlane names an event that a second,
// independent SQLite connection already finds in warren.db. flood-agent (tests/support/flood_agent.c) in
// the real sandbox writes the events as fast as the pipe takes them, so the writer's thread is always
// behind the reader's: a signal sent when an event is queued rather than committed is caught here.
// Also what is stored of an event whose data does not match its type: an error event in its place.

#include "app/control/LocalControlPlane.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <memory>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <string>
#include <vector>

using namespace warren::control;
using nlohmann::json;

namespace {

struct CloseDb {
    void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct Finalize {
    void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};

// Whether (task, seq) is committed, as a reader that is not the control plane sees it.
class DiskReader {
public:
    explicit DiskReader(const std::string& path) {
        sqlite3* db = nullptr;
        if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
            sqlite3_close(db);
            return;
        }
        m_db.reset(db);
        sqlite3_busy_timeout(db, 5000);
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT 1 FROM events WHERE task_id = ?1 AND seq = ?2", -1, &statement,
                               nullptr) == SQLITE_OK)
            m_lookup.reset(statement);
    }
    bool valid() const { return m_lookup != nullptr; }

    bool committed(const std::string& taskId, std::uint64_t seq) {
        sqlite3_reset(m_lookup.get());
        sqlite3_bind_text(m_lookup.get(), 1, taskId.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(m_lookup.get(), 2, static_cast<sqlite3_int64>(seq));
        const bool found = sqlite3_step(m_lookup.get()) == SQLITE_ROW;
        sqlite3_reset(m_lookup.get()); // no read snapshot stays open between lookups
        return found;
    }

private:
    std::unique_ptr<sqlite3, CloseDb> m_db;
    std::unique_ptr<sqlite3_stmt, Finalize> m_lookup;
};

QString floodAgent() { return QProcessEnvironment::systemEnvironment().value("WARREN_FLOOD_AGENT"); }

// A workspace and the scripted provider's script (flood-agent never asks the model) in root.
TaskSpec floodSpec(const QTemporaryDir& root) {
    QDir().mkpath(root.path() + "/workspace");
    QFile file(root.path() + "/script.json");
    if (file.open(QIODevice::WriteOnly))
        file.write("{\"turns\":[{\"content\":\"x\"}]}\n");
    TaskSpec spec;
    spec.provider = "scripted:" + file.fileName().toStdString();
    return spec;
}

LocalOptions floodOptions(const QTemporaryDir& root) {
    LocalOptions options;
    options.dataDir = (root.path() + "/data").toStdString();
    options.agentBinary = floodAgent().toStdString();
    options.useKeychain = false;
    return options;
}

std::string dataString(const json& event, const char* key) {
    const json data = event.value("data", json::object());
    const auto found = data.find(key);
    return found != data.end() && found->is_string() ? found->get<std::string>() : std::string();
}

} // namespace

class TestControlStored : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (floodAgent().isEmpty())
            QSKIP("WARREN_FLOOD_AGENT is not set: run through ctest");
        QVERIFY2(QFileInfo(floodAgent()).isExecutable(), qPrintable(floodAgent()));
    }

    void eventStoredComesAfterTheCommit() {
        constexpr int kLines = 20000;
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const TaskSpec spec = floodSpec(root);
        const LocalOptions options = floodOptions(root);
        auto plane = LocalControlPlane::open(options);
        QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
        DiskReader disk(options.dataDir + "/warren.db");
        QVERIFY(disk.valid());

        std::uint64_t signalled = 0, notOnDisk = 0, outOfOrder = 0, lastSeq = 0;
        bool finished = false;
        QObject::connect(plane->get(), &ControlPlane::eventStored, plane->get(),
                         [&](const std::string& taskId, const json& event) {
                             const std::uint64_t seq = event.value("seq", std::uint64_t{0});
                             ++signalled;
                             if (seq != lastSeq + 1)
                                 ++outOfOrder;
                             lastSeq = seq;
                             if (!disk.committed(taskId, seq))
                                 ++notOnDisk;
                         });
        QObject::connect(plane->get(), &ControlPlane::taskFinished, plane->get(), [&] {
            finished = true;
            QCoreApplication::exit(0);
        });
        QTimer::singleShot(std::chrono::minutes(5), plane->get(), [] { QCoreApplication::exit(1); });

        auto task = (*plane)->submit(QString("flood %1").arg(kLines).toStdString(),
                                     (root.path() + "/workspace").toStdString(), spec);
        QVERIFY2(task, task ? "" : task.error().message.c_str());
        QCOMPARE(QCoreApplication::exec(), 0);
        QVERIFY(finished);

        auto stored = (*plane)->events(task->id);
        QVERIFY(stored);
        QVERIFY2(stored->size() >= kLines, qPrintable(QString::number(stored->size())));
        QCOMPARE(signalled, static_cast<std::uint64_t>(stored->size())); // each stored event told once
        QCOMPARE(outOfOrder, std::uint64_t{0});
        QCOMPARE(notOnDisk, std::uint64_t{0});
    }

    // Three events whose envelopes are sound and whose data is not what their type says (a tool_output's
    // stream "sideways", one 64 KiB long, a log's message a number): none is stored as if it were valid.
    // Each becomes a non-fatal error event, where it arrived, saying what the agent sent wrong, at most about
    // 1 KB long; the good events around them are all stored and the task ends as the agent said.
    // The events only the control plane witnesses cannot be forged from inside the sandbox: an agent that
    // writes them gets an error in their place, and the task goes on.
    void forgedControlPlaneEventsRefused() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        auto plane = LocalControlPlane::open(floodOptions(root));
        QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
        QObject::connect(plane->get(), &ControlPlane::taskFinished, plane->get(), [] { QCoreApplication::exit(0); });
        QTimer::singleShot(std::chrono::minutes(5), plane->get(), [] { QCoreApplication::exit(1); });
        auto task = (*plane)->submit("flood 4 forged", (root.path() + "/workspace").toStdString(), floodSpec(root));
        QVERIFY2(task, task ? "" : task.error().message.c_str());
        QCOMPARE(QCoreApplication::exec(), 0);

        auto stored = (*plane)->events(task->id);
        QVERIFY(stored);
        std::vector<std::string> refused;
        for (const auto& event : *stored) {
            const std::string type = event.value("type", "");
            QVERIFY2(type != "network_request" && type != "limits_applied" && type != "model_call" &&
                         type != "task_slept",
                     event.dump().c_str());
            if (type == "error")
                refused.push_back(dataString(event, "message"));
        }
        QCOMPARE(refused.size(), std::size_t{4});
        for (const char* type : {"network_request", "limits_applied", "model_call", "task_slept"})
            QVERIFY2(std::any_of(refused.begin(), refused.end(),
                                 [&](const std::string& message) {
                                     return message.find(std::string(type) + " is written by the control plane only") !=
                                            std::string::npos;
                                 }),
                     type);
        auto record = (*plane)->task(task->id);
        QVERIFY(record && *record);
        QCOMPARE(QString(taskStatusName((*record)->status)), QString("succeeded"));
        QCOMPARE((*record)->tokensIn, std::uint64_t{0}); // the forged million counted nowhere
    }

    void malformedPayloadStoredAsError() {
        constexpr int kLines = 10;
        QTemporaryDir root;
        QVERIFY(root.isValid());
        auto plane = LocalControlPlane::open(floodOptions(root));
        QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
        QObject::connect(plane->get(), &ControlPlane::taskFinished, plane->get(), [] { QCoreApplication::exit(0); });
        QTimer::singleShot(std::chrono::minutes(5), plane->get(), [] { QCoreApplication::exit(1); });
        auto task = (*plane)->submit(QString("flood %1 malformed").arg(kLines).toStdString(),
                                     (root.path() + "/workspace").toStdString(), floodSpec(root));
        QVERIFY2(task, task ? "" : task.error().message.c_str());
        QCOMPARE(QCoreApplication::exec(), 0);

        auto stored = (*plane)->events(task->id);
        QVERIFY(stored);
        std::vector<std::string> lines, errors, before;
        std::string lastLine;
        for (const auto& event : *stored) {
            const std::string type = event.value("type", "");
            QVERIFY2(type != "log", qPrintable(QString::fromStdString(event.dump()))); // the malformed one
            if (type == "tool_output") {
                QCOMPARE(QString::fromStdString(dataString(event, "stream")), QString("stdout"));
                lastLine = dataString(event, "text");
                lines.push_back(lastLine);
            } else if (type == "error") {
                QCOMPARE(event.value("data", json::object()).value("fatal", true), false);
                errors.push_back(dataString(event, "message"));
                before.push_back(lastLine);
            }
        }
        QCOMPARE(lines.size(), std::size_t{kLines});
        for (int i = 0; i < kLines; ++i)
            QCOMPARE(QString::fromStdString(lines[static_cast<std::size_t>(i)]), QString("line %1").arg(i + 1));
        QCOMPARE(errors.size(), std::size_t{3});
        const char* expected[] = {"the agent's tool_output event (its seq 6) was not stored",
                                  "the agent's tool_output event (its seq 7) was not stored",
                                  "the agent's log event (its seq 8) was not stored"};
        for (std::size_t i = 0; i < errors.size(); ++i) {
            QVERIFY2(errors[i].starts_with(expected[i]), errors[i].c_str());
            QVERIFY2(errors[i].size() <= 1010, qPrintable(QString::number(errors[i].size())));
            QCOMPARE(QString::fromStdString(before[i]), QString("line 5"));
        }
        QVERIFY2(errors[0].find("must be stdout or stderr, got \"sideways\"") != std::string::npos, errors[0].c_str());
        QVERIFY2(errors[1].ends_with("yyy..."), errors[1].c_str()); // the agent's 64 KiB, cut
        QVERIFY2(errors[2].find("message") != std::string::npos, errors[2].c_str());

        auto record = (*plane)->task(task->id);
        QVERIFY(record && *record);
        QCOMPARE(QString(taskStatusName((*record)->status)), QString("succeeded"));
    }

    // Tasks still queued when the window quit start when it opens again, oldest first; a short-lived command
    // (`warren tasks`) leaves them queued; and a task another process's queue holds stays with that process.
    void queuedTasksStartWhenTheWindowOpensAgain() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const TaskSpec spec = floodSpec(root);
        LocalOptions options = floodOptions(root);
        options.maxConcurrent = 1;
        const std::string workspace = (root.path() + "/workspace").toStdString();
        std::string first, second;
        {
            auto window = LocalControlPlane::open(options);
            QVERIFY2(window, window ? "" : window.error().message.c_str());
            auto a = (*window)->submit("flood 3", workspace, spec);
            auto b = (*window)->submit("flood 4", workspace, spec);
            QVERIFY(a && b);
            first = a->id;
            second = b->id;
        } // quit before either started: both stay queued
        const auto statusOf = [](LocalControlPlane& plane, const std::string& id) {
            auto record = plane.task(id);
            return record && *record ? QString(taskStatusName((*record)->status)) : QString("missing");
        };

        auto command = LocalControlPlane::open(options); // what every `warren` command opens
        QVERIFY2(command, command ? "" : command.error().message.c_str());
        QVERIFY((*command)->takenUp().empty());
        QCOMPARE(statusOf(**command, first), QString("queued"));
        command->reset();

        options.takeUpQueued = true;
        auto window = LocalControlPlane::open(options);
        QVERIFY2(window, window ? "" : window.error().message.c_str());
        QCOMPARE((*window)->takenUp(), (std::vector<std::string>{first, second}));
        // A second window on the same data directory meanwhile: the first holds both (one runs, one is queued).
        auto other = LocalControlPlane::open(options);
        QVERIFY2(other, other ? "" : other.error().message.c_str());
        QVERIFY((*other)->takenUp().empty());
        other->reset();

        int finished = 0;
        QObject::connect(window->get(), &ControlPlane::taskFinished, window->get(), [&finished] {
            if (++finished == 2)
                QCoreApplication::exit(0);
        });
        QTimer::singleShot(std::chrono::minutes(5), window->get(), [] { QCoreApplication::exit(1); });
        QCOMPARE(QCoreApplication::exec(), 0);
        QCOMPARE(statusOf(**window, first), QString("succeeded"));
        QCOMPARE(statusOf(**window, second), QString("succeeded"));
    }
};

QTEST_GUILESS_MAIN(TestControlStored)
#include "tst_control_stored.moc"
