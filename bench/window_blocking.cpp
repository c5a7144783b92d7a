// How long a face's thread is held by a control plane's call against a warrend that answers in 5 s
// (tests/support/HeldServer): each call the window makes, waited for as the window did before its calls
// were asynchronous (and as the CLI still does, at its top level), against the asynchronous call as the
// window makes it now (the time until it returns to the caller, and the time until its answer comes).
// Then the window itself: from its construction to being shown and taking a key press, over that server.

#include "app/control/WaitFor.h"
#include "app/remote/RemoteControlPlane.h"
#include "tests/support/HeldServer.h"
#include "ui/windows/MainWindow.h"
#include "ui/windows/NewTaskBar.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QtTest>
#include <cstdio>
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
    return 0;
}
