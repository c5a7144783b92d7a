// A finished task's files after its retention period (Settings::retentionDays, TaskRetention.h), on the
// desktop's plane: the window's plane removes the checkpoints, snapshots and artifacts of a task that ended
// longer ago than the setting, keeps its record and events and says when, and refuses what needed them with
// that reason. What must never go: a task that is not final, one that ended recently, one whose lock another
// process holds, the user's own workspace, and what a link the agent left in its output names.

#include "agent_core/protocol/Timestamp.h"
#include "app/control/LocalControlPlane.h"
#include "app/store/sqlite/SqliteStore.h"
#include "app/tasks/TaskLock.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <filesystem>
#include <fstream>

using namespace warren;
using namespace warren::control;
namespace fs = std::filesystem;

namespace {

std::string daysAgo(int days) {
    return protocol::formatTimestamp(std::chrono::system_clock::now() - std::chrono::hours(24 * days));
}

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

} // namespace

class TestControlRetention : public QObject {
    Q_OBJECT
private slots:
    void finishedTasksLoseTheirFilesAfterTheSetting();
};

void TestControlRetention::finishedTasksLoseTheirFilesAfterTheSetting() {
    QTemporaryDir data, workspace, outside;
    const DataDir dir{QDir(data.path()).canonicalPath().toStdString()};
    const std::string secret = outside.filePath("keep.txt").toStdString();
    write(secret, "not the task's");
    write(workspace.filePath("main.c").toStdString(), "int main() {}\n");
    {
        // The tasks as an earlier session left them, each with its files.
        auto store = openSqliteStore(dir.database());
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        const auto add = [&](const std::string& id, TaskStatus status, const std::string& finishedAt) {
            TaskRecord task;
            task.id = id;
            task.prompt = "p";
            task.workspace = workspace.path().toStdString();
            task.spec = "{}";
            task.status = status;
            task.createdAt = daysAgo(60);
            task.finishedAt = finishedAt;
            QVERIFY((*store)->insertTask(task).ok());
            QVERIFY(
                (*store)->appendEvents({{id, 1, task.createdAt, "task_started", 0, "", "{\"seq\":1}"}}).ok());
            write(dir.stateDir(id) + "/checkpoint.json", "{}");
            write(dir.outputDir(id) + "/report.txt", "done");
            write(dir.snapshotsDir(id) + "/HEAD", "ref");
        };
        add("t-old000000001", TaskStatus::Succeeded, daysAgo(40));
        add("t-recent000001", TaskStatus::Failed, daysAgo(2));
        add("t-paused000001", TaskStatus::Paused, daysAgo(40));
        add("t-locked000001", TaskStatus::Cancelled, daysAgo(40));
        // The agent's output holds a link to a file outside: the link goes, not what it names.
        fs::create_symlink(secret, dir.outputDir("t-old000000001") + "/link");
        Settings settings;
        settings.retentionDays = 30;
        QVERIFY(saveSettings(**store, settings).ok());
    }
    // Another process runs t-locked... now: its lock is held.
    UniqueFd held = takeTaskLock(dir, "t-locked000001");
    QVERIFY(held.valid());

    LocalOptions options;
    options.dataDir = dir.root;
    options.useKeychain = false;
    options.takeUpQueued = true; // the window's plane
    auto plane = LocalControlPlane::open(options);
    QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
    QSignalSpy changed(plane->get(), &ControlPlane::taskChanged); // the window refreshes the record on it
    const auto removedAt = [&](const std::string& id) {
        auto task = (*plane)->task(id);
        return task && *task ? (*task)->removedAt : std::string("?");
    };
    QTRY_VERIFY_WITH_TIMEOUT(!removedAt("t-old000000001").empty(), 20000);
    QTRY_COMPARE(changed.size(), 1);
    QCOMPARE(changed.front().front().value<std::string>(), std::string("t-old000000001"));

    QVERIFY(!fs::exists(dir.stateDir("t-old000000001")));
    QVERIFY(!fs::exists(dir.outputDir("t-old000000001")));
    QVERIFY(!fs::exists(dir.snapshotsDir("t-old000000001")));
    QVERIFY(fs::exists(secret));
    QVERIFY(QFile::exists(workspace.filePath("main.c")));
    auto events = (*plane)->events("t-old000000001");
    QVERIFY(events && events->size() == 1); // the record and events stay

    for (const char* kept : {"t-recent000001", "t-paused000001", "t-locked000001"}) {
        QCOMPARE(removedAt(kept), std::string());
        QVERIFY2(fs::exists(dir.stateDir(kept) + "/checkpoint.json"), kept);
        QVERIFY2(fs::exists(dir.outputDir(kept) + "/report.txt"), kept);
    }

    // What needed the files says why it cannot be done.
    auto replied = (*plane)->reply("t-old000000001", "go on");
    QVERIFY(!replied);
    QVERIFY2(replied.error().message.find("retention period") != std::string::npos,
             replied.error().message.c_str());
    auto changes = (*plane)->taskChanges("t-old000000001", std::nullopt);
    QVERIFY(!changes);
    QVERIFY2(changes.error().message.find("removed on") != std::string::npos,
             changes.error().message.c_str());
    auto record = (*plane)->task("t-old000000001");
    QCOMPARE((*record)->status, TaskStatus::Succeeded); // the refused reply changed nothing

    // Once the other process let go, the next sweep (here: the setting saved again, shorter) takes it.
    held = UniqueFd();
    auto settings = (*plane)->settings();
    QVERIFY(settings);
    settings->retentionDays = 20;
    QVERIFY((*plane)->saveSettings(*settings).ok());
    QTRY_VERIFY_WITH_TIMEOUT(!removedAt("t-locked000001").empty(), 20000);
    QVERIFY(!fs::exists(dir.stateDir("t-locked000001")));
    QCOMPARE(removedAt("t-recent000001"), std::string());
}

QTEST_GUILESS_MAIN(TestControlRetention)
#include "tst_control_retention.moc"
