// How long a face's thread is held by a control plane's call against a warrend that answers in 5 s
// (tests/support/HeldServer): each call the window makes, waited for as the window did before its calls
// were asynchronous (and as the CLI still does, at its top level), against the asynchronous call as the
// window makes it now (the time until it returns to the caller, and the time until its answer comes).
// Then the window itself: from its construction to being shown and taking a key press, over that server.
// Then this computer's plane (LocalControlPlane) over a large workspace (WARREN_BENCH_FILES files, 20,000 by
// default): the faces' thread's worst stall (the longest gap between ticks of a 1 ms timer on it) while a
// fork and an export are made, as its call did it before (the work in the call: the CLI's synchronous
// form, run from the event loop) against the call now (the work on TaskWork's pool).

#include "app/control/LocalControlPlane.h"
#include "app/control/WaitFor.h"
#include "app/snapshots/ShadowRepo.h"
#include "app/store/sqlite/SqliteStore.h"
#include "app/remote/RemoteControlPlane.h"
#include "tests/support/HeldServer.h"
#include "ui/windows/MainWindow.h"
#include "ui/windows/NewTaskBar.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QtTest>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace warren;

namespace {

constexpr int kAnswerMs = 5000;

struct Timed {
    double returnedMs = 0; // the caller's thread is back
    double answeredMs = 0; // the answer is there
};

// call(done) once with waitFor, as a blocking face; once as the window calls it.
template <typename T> std::pair<Timed, Timed> measure(const std::function<void(control::Done<T>)>& call) {
    Timed blocking, async;
    QElapsedTimer clock;
    clock.start();
    (void)control::waitFor<T>([&](auto done) { call(done); });
    blocking.returnedMs = blocking.answeredMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;

    bool answered = false;
    clock.restart();
    call([&](Result<T>) {
        async.answeredMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
        answered = true;
    });
    async.returnedMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    if (!QTest::qWaitFor([&] { return answered; }, 4 * kAnswerMs))
        std::fprintf(stderr, "window_blocking: no answer in %d ms\n", 4 * kAnswerMs);
    return {blocking, async};
}

void report(const char* name, const std::pair<Timed, Timed>& times) {
    const auto& [blocking, async] = times;
    std::printf("%-24s blocking: held %8.1f ms   asynchronous: held %7.3f ms, answered after %8.1f ms   held ratio "
                "%.6f\n",
                name, blocking.returnedMs, async.returnedMs, async.answeredMs, async.returnedMs / blocking.returnedMs);
}

// The longest the thread's event loop went without turning while run(finished) worked, until finished().
double worstStall(const std::function<void(std::function<void()>)>& run) {
    QElapsedTimer clock;
    double last = 0, worst = 0;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(1);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const double now = static_cast<double>(clock.nsecsElapsed()) / 1e6;
        worst = std::max(worst, now - last);
        last = now;
    });
    bool finished = false;
    clock.start();
    tick.start();
    QTimer::singleShot(0, [&] { run([&] { finished = true; }); });
    if (!QTest::qWaitFor([&] { return finished; }, 600'000))
        std::fprintf(stderr, "window_blocking: the local call did not finish\n");
    const double now = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    return std::max(worst, now - last);
}

// A finished task of two steps over a workspace of `files` files (1 KiB each, 100 to a directory), with its
// snapshots, 20,000 events and as many /output files, in data.
Result<std::string> largeTask(const std::string& root, int files, control::DataDir& data) {
    namespace fs = std::filesystem;
    auto prepared = control::DataDir::prepare(root + "/data");
    if (!prepared)
        return prepared.error();
    data = *prepared;
    const std::string id = "t-0000000b1935";
    const fs::path workspace = root + "/workspace";
    const std::string bytes(1024, 'x');
    for (int i = 0; i < files; ++i)
        for (const fs::path& dir : {workspace, fs::path(data.outputDir(id))}) {
            const fs::path file = dir / ("d" + std::to_string(i / 100)) / ("f" + std::to_string(i) + ".txt");
            fs::create_directories(file.parent_path());
            std::ofstream(file) << i << bytes;
        }
    auto repo = snapshots::ShadowRepo::open(data.snapshotsDir(id), workspace);
    if (!repo)
        return repo.error();
    if (auto taken = repo->snapshot(snapshots::SnapshotMeta::Kind::Step, 1); !taken)
        return taken.error();
    std::ofstream(workspace / "changed.txt") << "step 1\n";
    if (auto taken = repo->snapshot(snapshots::SnapshotMeta::Kind::End, 2); !taken)
        return taken.error();
    auto store = control::openSqliteStore(data.database());
    if (!store)
        return store.error();
    control::TaskRecord task;
    task.id = id;
    task.prompt = "a large workspace";
    task.workspace = fs::canonical(workspace).string();
    task.spec = control::TaskSpec{}.toJson().dump();
    task.status = control::TaskStatus::Succeeded;
    task.createdAt = "2026-12-05T00:00:00.000Z";
    task.steps = 1;
    if (auto inserted = (*store)->insertTask(task); !inserted)
        return inserted.error();
    std::vector<control::EventRow> events;
    for (std::uint64_t seq = 1; seq <= 20'000; ++seq) {
        const std::string type = seq == 1 ? "step_started" : "log";
        events.push_back({id, seq, "2026-12-05T00:00:00.000Z", type, 1, "",
                          nlohmann::json{{"seq", seq}, {"type", type}, {"step", 1},
                                         {"data", {{"level", "info"}, {"message", bytes}}}}
                              .dump()});
    }
    if (auto appended = (*store)->appendEvents(events); !appended)
        return appended.error();
    return id;
}

void localPlane() {
    QTemporaryDir root;
    const char* count = std::getenv("WARREN_BENCH_FILES");
    const int files = count ? std::atoi(count) : 20'000;
    control::DataDir data;
    auto id = largeTask(root.path().toStdString(), files, data);
    if (!id) {
        std::fprintf(stderr, "window_blocking: %s\n", id.error().message.c_str());
        return;
    }
    control::LocalOptions options;
    options.dataDir = data.root;
    options.agentBinary = "/bin/true"; // no task runs
    options.useKeychain = false;
    auto opened = control::LocalControlPlane::open(std::move(options));
    if (!opened) {
        std::fprintf(stderr, "window_blocking: %s\n", opened.error().message.c_str());
        return;
    }
    control::LocalControlPlane& plane = **opened;
    std::printf("window_blocking: this computer's plane, a workspace of %d files (1 KiB each), 20000 events\n",
                files);
    const auto compare = [](const char* name, double before, double after) {
        std::printf("%-24s worst stall of the faces' thread: in the call %8.1f ms   off it %7.1f ms   ratio %.4f\n",
                    name, before, after, after / before);
    };
    int exportNumber = 0;
    const auto exportDir = [&] { return root.path().toStdString() + "/export-" + std::to_string(++exportNumber); };
    const double forkBefore = worstStall([&](auto finished) {
        (void)plane.fork(*id, control::ForkRequest{1, ""});
        finished();
    });
    const double forkAfter = worstStall([&](auto finished) {
        plane.fork(*id, control::ForkRequest{1, ""}, [finished](auto) { finished(); });
    });
    compare("fork (before step 1)", forkBefore, forkAfter);
    const double exportBefore = worstStall([&](auto finished) {
        (void)plane.exportTask(*id, exportDir());
        finished();
    });
    const double exportAfter = worstStall([&](auto finished) {
        plane.exportTask(*id, exportDir(), [finished](auto) { finished(); });
    });
    compare("export", exportBefore, exportAfter);
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    test::HeldServer server(kAnswerMs);
    QTemporaryDir data;
    if (!server.listen() || !data.isValid())
        return 1;
    auto plane = control::waitFor<std::unique_ptr<remote::RemoteControlPlane>>([&](auto done) {
        remote::RemoteControlPlane::open({server.url(), "wrn_bench", data.path().toStdString(), false}, done);
    });
    if (!plane) {
        std::fprintf(stderr, "window_blocking: %s\n", plane.error().message.c_str());
        return 1;
    }
    control::ControlPlane& face = **plane;
    std::printf("window_blocking: a warrend double that answers every call after %d ms\n", kAnswerMs);
    report("tasks (the task list)", measure<std::vector<control::TaskRecord>>([&](auto done) { face.tasks(done); }));
    report("task (one row)", measure<std::optional<control::TaskRecord>>([&](auto done) { face.task("t-1", done); }));
    report("eventsBefore (a page)",
           measure<std::vector<nlohmann::json>>([&](auto done) { face.eventsBefore("t-1", 0, 200, done); }));
    report("hasKey (Settings)", measure<bool>([&](auto done) { face.hasKey("openai", done); }));
    report("cancel (Stop)", measure<Ok>([&](auto done) { face.cancel("t-1", done); }));

    // The window over it: shown, and a key typed into the prompt, while its task list is still asked for.
    QElapsedTimer clock;
    clock.start();
    ui::MainWindow window(face);
    QSignalSpy listed(&window, &ui::MainWindow::tasksListed);
    window.show();
    (void)QTest::qWaitForWindowExposed(&window);
    const double shownMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    QTest::keyClick(window.newTaskBar()->promptEdit(), Qt::Key_A);
    const double typedMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    (void)listed.wait(4 * kAnswerMs);
    const double listedMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    std::printf("%-24s shown after %.1f ms, a key press taken after %.1f ms, its task list in after %.1f ms\n",
                "the window", shownMs, typedMs, listedMs);
    localPlane();
    return 0;
}
