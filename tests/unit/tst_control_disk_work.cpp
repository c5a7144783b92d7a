// LocalControlPlane's calls with disk or process work (fork, rewind and its preview, export, review) do it
// off the faces' thread: held on its worker, the faces' event loop goes on and no answer has come; let go,
// the answer comes with the work done. A task's calls run one after another, each from what the one before
// left; the task is not resumed meanwhile. A rewind racing a snapshot its task's runner takes in the same
// shadow repository waits for it (both recorded, the repository sound). A plane closed in the middle of a
// fork leaves no workspace and no task behind. Real git, real files, a real warren.db; no sandbox.

#include "app/control/LocalControlPlane.h"
#include "app/snapshots/ShadowRepo.h"
#include "app/snapshots/TaskSnapshots.h"
#include "app/store/sqlite/SqliteStore.h"
#include "common/UniqueFd.h"
#include "tests/unit/UserRepository.h"

#include <QEventLoop>
#include <QFile>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <atomic>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <unistd.h>

using namespace warren;
using namespace warren::control;
using namespace warren::test;
using nlohmann::json;

namespace {

constexpr int kHang = 120'000; // only against a hang: each wait is for something that was meant to happen

// Holds each call's disk work on its worker, when armed, until the test lets it go.
struct Gate {
    std::atomic<bool> armed{false};
    QSemaphore reached, released;
    void pass() {
        if (!armed)
            return;
        reached.release();
        released.acquire();
    }
};

// Runs the event loop until a timer of its own fires: the faces' thread is free.
bool loopTurns() {
    bool fired = false;
    QEventLoop loop;
    QTimer::singleShot(0, &loop, [&] {
        fired = true;
        loop.quit();
    });
    loop.exec();
    return fired;
}

// The answer of an asynchronous call, once it comes.
template <typename T> struct Answer {
    std::optional<Result<T>> result;
    Done<T> done() {
        return [this](Result<T> answer) { result.emplace(std::move(answer)); };
    }
    bool wait() {
        return QTest::qWaitFor([this] { return result.has_value(); }, kHang);
    }
};

QString message(const Error& error) { return QString::fromStdString(error.message); }

// Why a result failed, for QVERIFY2 (which reads its message whether or not the check failed).
template <typename T> QByteArray why(const Result<T>& result) {
    return result ? QByteArray() : QByteArray::fromStdString(result.error().message);
}

// How many flock waiters of this process /proc/locks lists (the kernel's own list of who waits for a lock).
int flockWaiters() {
    QFile locks("/proc/locks");
    if (!locks.open(QIODevice::ReadOnly))
        return -1;
    int waiters = 0;
    const QByteArray pid = " " + QByteArray::number(::getpid()) + " ";
    for (const QByteArray& line : locks.readAll().split('\n'))
        if (line.contains("->") && line.contains("FLOCK") && line.contains(pid))
            ++waiters;
    return waiters;
}

} // namespace

class TestControlDiskWork : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void heldWorkLeavesTheLoopRunning_data();
    void heldWorkLeavesTheLoopRunning();
    void refusalComesFromTheLoop();
    void taskWaitsForItsRewind();
    void rewindWaitsForARunnersSnapshot();
    void closingThePlaneMidForkLeavesNothing();

private:
    void openPlane();

    std::unique_ptr<QTemporaryDir> m_root;
    fs::path m_workspace;
    std::optional<DataDir> m_data;
    std::string m_id = "t-00000000d15c";
    QStringList m_step1, m_step2, m_end; // the workspace as each snapshot recorded it
    std::shared_ptr<Gate> m_gate;
    std::unique_ptr<LocalControlPlane> m_plane;
};

// A finished task of two steps over a user's repository, with its snapshots (before step 1, before step 2
// with the agent's checkpoint, the end) and its events, then a plane over its data directory.
void TestControlDiskWork::init() {
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_workspace = fs::path(m_root->path().toStdString()) / "workspace";
    makeUserRepository(m_workspace);
    auto data = DataDir::prepare(m_root->path().toStdString() + "/data");
    QVERIFY2(data, data ? "" : data.error().message.c_str());
    m_data = *data;

    auto repo = snapshots::ShadowRepo::open(m_data->snapshotsDir(m_id), m_workspace);
    QVERIFY2(repo, repo ? "" : repo.error().message.c_str());
    m_step1 = snapshot(m_workspace);
    QVERIFY(repo->snapshot(snapshots::SnapshotMeta::Kind::Step, 1));
    writeFile(m_workspace / "notes.txt", "step 1 wrote this\n");
    writeFile(m_workspace / "src/new.c", "int added;\n");
    writeFile(snapshots::ShadowRepo::checkpointCopy(m_data->snapshotsDir(m_id), 2),
              json{{"task_id", m_id}, {"messages", json::array()}}.dump());
    m_step2 = snapshot(m_workspace);
    QVERIFY(repo->snapshot(snapshots::SnapshotMeta::Kind::Step, 2));
    fs::remove(m_workspace / "README.md");
    m_end = snapshot(m_workspace);
    QVERIFY(repo->snapshot(snapshots::SnapshotMeta::Kind::End, 3));
    writeFile(m_data->outputDir(m_id) + "/report.txt", "the task's output\n");

    auto store = openSqliteStore(m_data->database());
    QVERIFY2(store, store ? "" : store.error().message.c_str());
    TaskRecord task;
    task.id = m_id;
    task.prompt = "change the files";
    task.workspace = fs::canonical(m_workspace).string();
    task.spec = TaskSpec{}.toJson().dump();
    task.status = TaskStatus::Succeeded;
    task.createdAt = "2026-12-05T00:00:00.000Z";
    task.steps = 2;
    QVERIFY((*store)->insertTask(task));
    std::vector<EventRow> events;
    for (std::uint64_t seq = 1; seq <= 4; ++seq) {
        const std::uint64_t step = (seq + 1) / 2;
        const std::string type = seq % 2 ? "step_started" : "log";
        events.push_back({m_id, seq, "2026-12-05T00:00:00.000Z", type, step, "",
                          json{{"seq", seq}, {"type", type}, {"step", step}, {"data", json::object()}}.dump()});
    }
    QVERIFY((*store)->appendEvents(events));
    store->reset();
    openPlane();
}

void TestControlDiskWork::openPlane() {
    m_gate = std::make_shared<Gate>();
    LocalOptions options;
    options.dataDir = m_data->root;
    options.agentBinary = "/bin/true"; // never run: no task here starts
    options.useKeychain = false;
    options.beforeDiskWork = [gate = m_gate] { gate->pass(); };
    auto plane = LocalControlPlane::open(std::move(options));
    QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
    m_plane = std::move(*plane);
}

void TestControlDiskWork::cleanup() {
    if (m_gate && m_gate->armed) { // a failed test must not leave a worker held: the plane waits for it
        m_gate->armed = false;
        m_gate->released.release(16);
    }
    m_plane.reset();
    m_root.reset();
}

void TestControlDiskWork::heldWorkLeavesTheLoopRunning_data() {
    QTest::addColumn<QString>("call");
    QTest::newRow("fork") << "fork";
    QTest::newRow("rewind") << "rewind";
    QTest::newRow("preview of a rewind") << "preview";
    QTest::newRow("export") << "export";
    QTest::newRow("review") << "changes";
}

void TestControlDiskWork::heldWorkLeavesTheLoopRunning() {
    QFETCH(QString, call);
    LocalControlPlane& plane = *m_plane;
    const std::string exportDir = m_root->path().toStdString() + "/export";
    Answer<ForkSummary> forked;
    Answer<RewindSummary> rewound;
    Answer<Ok> exported;
    Answer<TaskChanges> reviewed;
    const auto answered = [&] {
        return forked.result || rewound.result || exported.result || reviewed.result;
    };

    m_gate->armed = true;
    if (call == "fork")
        plane.fork(m_id, ForkRequest{2, ""}, forked.done());
    else if (call == "rewind")
        plane.rewind(m_id, RewindRequest{1, {}, true, false}, rewound.done());
    else if (call == "preview")
        plane.previewRewind(m_id, RewindRequest{1, {}, true, false}, rewound.done());
    else if (call == "export")
        plane.exportTask(m_id, exportDir, exported.done());
    else
        plane.taskChanges(m_id, std::nullopt, reviewed.done());
    QVERIFY(m_gate->reached.tryAcquire(1, kHang)); // the work is on its worker, held
    QVERIFY(loopTurns());                          // and the faces' loop goes on meanwhile
    QVERIFY(!answered());
    QCOMPARE(snapshot(m_workspace), m_end); // nothing done yet
    m_gate->armed = false;
    m_gate->released.release();

    if (call == "fork") {
        QVERIFY(forked.wait());
        QVERIFY2(*forked.result, why(*forked.result));
        const ForkSummary& fork = **forked.result;
        QCOMPARE(fork.task.status, TaskStatus::Paused);
        QCOMPARE(fork.from, std::string("before step 2"));
        QCOMPARE(fork.conversation, std::string("its agent continues from before step 2"));
        QCOMPARE(snapshot(fork.task.workspace), m_step2);
        auto events = plane.events(fork.task.id);
        QVERIFY(events);
        QCOMPARE(events->size(), std::size_t(3)); // step 1's two, and where it came from
        QVERIFY(events->back().dump().find("forked from task " + m_id) != std::string::npos);
        QVERIFY(fs::exists(m_data->stateDir(fork.task.id) + "/checkpoint.json"));
        QCOMPARE(snapshot(m_workspace), m_end); // the original is as it was
    } else if (call == "rewind" || call == "preview") {
        QVERIFY(rewound.wait());
        QVERIFY2(*rewound.result, why(*rewound.result));
        QVERIFY(!(*rewound.result)->lines.empty());
        QCOMPARE(snapshot(m_workspace), call == "rewind" ? m_step1 : m_end);
    } else if (call == "export") {
        QVERIFY(exported.wait());
        QVERIFY2(*exported.result, why(*exported.result));
        QVERIFY(json::parse(readFile(exportDir + "/task.json"))["id"] == m_id);
        const std::string lines = readFile(exportDir + "/events.jsonl");
        QCOMPARE(std::count(lines.begin(), lines.end(), '\n'), 4);
        QCOMPARE(readFile(exportDir + "/output/report.txt"), std::string("the task's output\n"));
    } else {
        QVERIFY(reviewed.wait());
        QVERIFY2(*reviewed.result, why(*reviewed.result));
        QCOMPARE((*reviewed.result)->from, std::string("before step 1"));
        QStringList paths;
        for (const auto& file : (*reviewed.result)->files)
            paths << QString::fromStdString(file.path + " " + file.change);
        QCOMPARE(paths, (QStringList{"README.md deleted", "notes.txt modified", "src/new.c added"}));
    }
}

// A call refused before any work (no such task) answers all the same from the event loop, not in the call.
void TestControlDiskWork::refusalComesFromTheLoop() {
    Answer<ForkSummary> forked;
    m_plane->fork("t-000000000000", ForkRequest{1, ""}, forked.done());
    QVERIFY(!forked.result);
    QVERIFY(forked.wait());
    QVERIFY(!*forked.result);
    QVERIFY(message(forked.result->error()).contains("no task t-000000000000"));
}

// While its rewind works, the task is not resumed or replied to; a preview asked meanwhile waits, and sees
// the workspace the rewind left.
void TestControlDiskWork::taskWaitsForItsRewind() {
    Answer<RewindSummary> rewound, previewed;
    m_gate->armed = true;
    m_plane->rewind(m_id, RewindRequest{1, {}, true, false}, rewound.done());
    QVERIFY(m_gate->reached.tryAcquire(1, kHang));
    m_gate->armed = false;
    m_plane->previewRewind(m_id, RewindRequest{1, {}, true, false}, previewed.done());
    auto resumed = m_plane->resume(m_id, SandboxMove{});
    QVERIFY(!resumed);
    QVERIFY2(message(resumed.error()).contains("while a rewind of it is under way"), why(resumed));
    auto replied = m_plane->reply(m_id, "go on");
    QVERIFY(!replied);
    QVERIFY(message(replied.error()).contains("while a rewind of it is under way"));
    QVERIFY(loopTurns());
    QVERIFY(!rewound.result && !previewed.result);
    m_gate->released.release();

    QVERIFY(previewed.wait());
    QVERIFY(rewound.result); // answered first
    QVERIFY2(*rewound.result, why(*rewound.result));
    QVERIFY2(*previewed.result, why(*previewed.result));
    QVERIFY((*previewed.result)->lines.empty()); // already there
    QCOMPARE(snapshot(m_workspace), m_step1);
}

// The task's runner takes a snapshot (TaskSnapshots, as before each step) while a rewind of the same task
// works on the same shadow repository: both wait on the repository's lock (held here until both are at
// it), then each has it in turn, and both are recorded in a sound repository.
void TestControlDiskWork::rewindWaitsForARunnersSnapshot() {
    const std::string dir = m_data->snapshotsDir(m_id);
    UniqueFd lock(::open((dir + "/lock").c_str(), O_RDWR | O_CLOEXEC));
    QVERIFY(lock.valid());
    QCOMPARE(::flock(lock.get(), LOCK_EX), 0);

    snapshots::TaskSnapshots runner(dir, m_workspace, m_data->stateDir(m_id) + "/checkpoint.json", {},
                                    std::chrono::hours(1));
    QSignalSpy taken(&runner, &snapshots::TaskSnapshots::taken);
    runner.take(snapshots::SnapshotMeta::Kind::Step, 3);
    Answer<RewindSummary> rewound;
    m_plane->rewind(m_id, RewindRequest{1, {}, true, false}, rewound.done());
    QVERIFY(QTest::qWaitFor([&] { return flockWaiters() == 2; }, kHang));
    QCOMPARE(::flock(lock.get(), LOCK_UN), 0);

    QVERIFY(rewound.wait());
    QVERIFY(taken.count() == 1 || taken.wait(kHang));
    QCOMPARE(taken.at(0).at(1).toString(), QString());
    QVERIFY2(*rewound.result, why(*rewound.result));
    QCOMPARE(snapshot(m_workspace), m_step1);
    QProcess fsck;
    fsck.start("git", {"--git-dir=" + QString::fromStdString(dir), "fsck", "--no-progress", "--no-dangling"});
    QVERIFY(fsck.waitForFinished(kHang));
    QVERIFY2(fsck.exitCode() == 0, fsck.readAllStandardError());
    auto repo = snapshots::ShadowRepo::open(dir, m_workspace);
    QVERIFY(repo);
    auto listed = repo->list();
    QVERIFY(listed);
    std::size_t undo = 0;
    for (const auto& snapshot : *listed)
        undo += snapshot.meta.kind == snapshots::SnapshotMeta::Kind::Undo;
    QCOMPARE(undo, std::size_t(1));
    QVERIFY(repo->beforeStep(3));
    QVERIFY(!fs::exists(dir + "/index.lock"));
}

// The plane goes (the window switched planes) once the fork's files are made but before its task is
// recorded: the files go too, and no task is left half-made.
void TestControlDiskWork::closingThePlaneMidForkLeavesNothing() {
    const fs::path forkWorkspace = fs::path(m_root->path().toStdString()) / "fork";
    Answer<ForkSummary> forked;
    m_gate->armed = true;
    m_plane->fork(m_id, ForkRequest{2, forkWorkspace.string()}, forked.done());
    QVERIFY(m_gate->reached.tryAcquire(1, kHang));
    m_gate->armed = false;
    m_gate->released.release();
    m_plane.reset(); // waits for the work, which made the files
    QCoreApplication::sendPostedEvents();
    QVERIFY(!forked.result);
    QVERIFY(!fs::exists(forkWorkspace));
    QStringList tasks;
    for (const auto& entry : fs::directory_iterator(m_data->root + "/tasks"))
        tasks << QString::fromStdString(entry.path().filename().string());
    QCOMPARE(tasks, QStringList{QString::fromStdString(m_id)});
    openPlane();
    auto listed = m_plane->tasks();
    QVERIFY(listed);
    QCOMPARE(listed->size(), std::size_t(1));
}

QTEST_GUILESS_MAIN(TestControlDiskWork)
#include "tst_control_disk_work.moc"
