// The desktop window's cost, measured side by side in one run (offscreen platform, window 1280x800):
//  1. Event-loop latency under a flood: a real task (sandboxed warren-agent, scripted model) whose one
//     `shell` call prints LINES_PER_SECOND lines a second for SECONDS seconds, paced (a batch every 10 ms,
//     every tenth line with ANSI colours), selected in the window so its timeline is live and follows the
//     tail. The UI thread's latency is the lateness of a 5 ms one-shot timer re-armed in its own handler:
//     each sample is how long past its due time the event loop got to it, so a 40 ms stall shows as one
//     sample of about 40 ms. p50 / p99 / max over the flood (first tool_output to tool_result), beside the
//     same window idle for SECONDS seconds afterwards (the baseline); events and lines received a second;
//     the UI thread's CPU; how many times the timeline laid out all its rows.
//  2. Opening a finished task of 100,000 events in a fresh process and window: selectTask() until the
//     timeline has its cards (the latest page's: see bench_task_open) and one frame is painted (QWidget::grab), beside
//     ControlPlane::events() of the same task alone (the store's and JSON parsing's share). Three tasks: the
//     flood-agent's 100,000 tool_output events, 100,000 mixed events (steps, model text, shell calls with
//     coloured output, results, file changes with diffs) written through the Store, and the task of 1.
//  3. Resident memory of a fresh process: QApplication + control plane open (the baseline), then with the
//     window shown, the finished task of 1 selected and painted, after 2 s idle. VmRSS and PSS.
//   bench_ui_timeline WARREN_AGENT FLOOD_AGENT [SECONDS] [LINES_PER_SECOND] [ROUNDS]
// Parts 2 and 3 run in child processes of this program (`--open` / `--memory`), so that each starts cold
// and part 1's heap does not count in part 3.

#include "app/control/LocalControlPlane.h"
#include "app/store/sqlite/SqliteStore.h"
#include "bench/BenchStats.h"
#include "bench/LatencyProbe.h"
#include "bench/MixedTask.h"
#include "ui/models/TaskListModel.h"
#include "ui/models/TimelineModel.h"
#include "ui/views/TimelineView.h"
#include "ui/windows/MainWindow.h"

#include <QAbstractItemDelegate>
#include <QApplication>
#include <QEventLoop>
#include <QPixmap>
#include <QProcess>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace {

using warren::bench::msSince;
using warren::bench::percentile;
using warren::bench::Clock;
using warren::bench::kProbeMs;
using warren::bench::LatencyProbe; // the UI thread's
using warren::bench::writeMixedTask;
namespace fs = std::filesystem;
using nlohmann::json;
using namespace warren::control;
using warren::ui::MainWindow;

constexpr std::uint64_t kOpenEvents = 100000;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_ui_timeline: FAILED: %s\n", what.c_str());
    std::exit(1);
}

long procKiB(const char* file, const char* key) {
    std::ifstream status(file);
    const std::string prefix = std::string(key) + ":";
    for (std::string line; std::getline(status, line);)
        if (line.rfind(prefix, 0) == 0)
            return std::atol(line.c_str() + prefix.size());
    return -1;
}

long rssKiB() { return procKiB("/proc/self/status", "VmRSS"); }
long pssKiB() { return procKiB("/proc/self/smaps_rollup", "Pss"); }

double cpuSeconds(int who) {
    rusage usage{};
    getrusage(who, &usage);
    const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::unique_ptr<LocalControlPlane> openPlane(const fs::path& dataDir, const std::string& agent) {
    LocalOptions options;
    options.dataDir = dataDir.string();
    options.agentBinary = agent;
    options.maxConcurrent = 1;
    options.useKeychain = false;
    auto plane = LocalControlPlane::open(std::move(options));
    if (!plane)
        fail("cannot open the control plane in " + dataDir.string() + ": " + plane.error().message);
    return std::move(*plane);
}

// Runs the event loop until done() holds or timeoutMs passes; done() is asked whenever `wake` is called.
class Waiter {
public:
    bool wait(const std::function<bool()>& done, int timeoutMs) {
        if (done())
            return true;
        m_done = done;
        QTimer timeout;
        timeout.setSingleShot(true);
        QObject::connect(&timeout, &QTimer::timeout, &m_loop, &QEventLoop::quit);
        timeout.start(timeoutMs);
        m_loop.exec();
        m_done = nullptr;
        return done();
    }
    void wake() {
        if (m_done && m_done())
            m_loop.quit();
    }

private:
    QEventLoop m_loop;
    std::function<bool()> m_done;
};

void idleFor(int ms) {
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

// Stands between the timeline view and its delegate to count the rows the view asks the size of: a full
// layout of the list asks every row from row 0 on, so the asks for row 0 count the full layouts. The
// view's own checks of a changed card (TimelineView::dataChanged) go to the delegate directly, uncounted.
class CountingDelegate : public QAbstractItemDelegate {
public:
    CountingDelegate(QAbstractItemDelegate* inner, QObject* parent) : QAbstractItemDelegate(parent), m_inner(inner) {}

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        m_inner->paint(painter, option, index);
    }
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        ++m_rowsSized;
        if (index.row() == 0)
            ++m_fullLayouts;
        return m_inner->sizeHint(option, index);
    }
    void updateEditorGeometry(QWidget* editor, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const override {
        m_inner->updateEditorGeometry(editor, option, index);
    }
    bool editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                     const QModelIndex& index) override {
        return m_inner->editorEvent(event, model, option, index);
    }

    std::uint64_t fullLayouts() const { return m_fullLayouts; }
    std::uint64_t rowsSized() const { return m_rowsSized; }

private:
    QAbstractItemDelegate* m_inner;
    mutable std::uint64_t m_fullLayouts = 0;
    mutable std::uint64_t m_rowsSized = 0;
};

CountingDelegate* countLayouts(MainWindow& window) {
    auto* view = window.timelineView();
    auto* counting = new CountingDelegate(view->itemDelegate(), view);
    view->setItemDelegate(counting);
    return counting;
}

void showWindow(MainWindow& window) {
    window.show();
    window.resize(1280, 800);
    QCoreApplication::processEvents();
}

// ---- part 1 ------------------------------------------------------------------------------------------

// Paced output: a batch of lines every 10 ms against the clock (a late batch is caught up, not dropped);
// every tenth line coloured, every fiftieth with a red FAIL, the rest like a build log.
const char* const kFloodPy = "import sys, time\n"
                             "rate, seconds = int(sys.argv[1]), int(sys.argv[2])\n"
                             "period = 0.01\n"
                             "batch = max(1, round(rate * period))\n"
                             "start = time.monotonic()\n"
                             "n = 0\n"
                             "for tick in range(round(seconds / period)):\n"
                             "    lines = []\n"
                             "    for _ in range(batch):\n"
                             "        n += 1\n"
                             "        if n % 50 == 0:\n"
                             "            lines.append(f'\\x1b[1;31mFAIL\\x1b[0m test_{n} "
                             "(\\x1b[33m{n % 97} ms\\x1b[0m): expected 4, got 5')\n"
                             "        elif n % 10 == 0:\n"
                             "            lines.append(f'\\x1b[32m  ok\\x1b[0m test_{n} (\\x1b[33m{n % 97} ms\\x1b[0m)')\n"
                             "        else:\n"
                             "            lines.append(f'[{n:7d}] cc -O2 -Wall -c src/module_{n % 97}/file_{n % 13}.c "
                             "-o build/obj_{n}.o')\n"
                             "    sys.stdout.write('\\n'.join(lines) + '\\n')\n"
                             "    sys.stdout.flush()\n"
                             "    delay = start + (tick + 1) * period - time.monotonic()\n"
                             "    if delay > 0:\n"
                             "        time.sleep(delay)\n";

struct Latency {
    double p50 = 0, p99 = 0, max = 0;
    std::size_t samples = 0;
};

Latency summarise(const std::vector<double>& samples) {
    Latency latency;
    latency.samples = samples.size();
    latency.p50 = percentile(samples, 0.5);
    latency.p99 = percentile(samples, 0.99);
    latency.max = samples.empty() ? 0 : *std::max_element(samples.begin(), samples.end());
    return latency;
}

struct FloodResults {
    std::string taskId;
    fs::path dataDir;
    Latency flood, idle;
    double floodSeconds = 0;
    std::uint64_t events = 0, lines = 0;
    double uiCpuSeconds = 0, processCpuSeconds = 0;
    std::uint64_t layoutsFlood = 0, rowsSizedFlood = 0, layoutsIdle = 0;
    qsizetype cardLines = 0;
    int cards = 0;
    std::string status;
};

FloodResults measureFlood(const std::string& agent, const fs::path& base, int seconds, int linesPerSecond) {
    FloodResults results;
    results.dataDir = base / "flood-plane";
    const fs::path workspace = base / "flood-workspace";
    fs::create_directories(workspace);
    std::ofstream(workspace / "flood.py") << kFloodPy;
    const fs::path script = base / "flood-script.json";
    const std::string command = "python3 flood.py " + std::to_string(linesPerSecond) + " " + std::to_string(seconds);
    const json turns = json::array(
        {{{"content", "Running the flood."},
          {"tool_calls", {{{"name", "shell"}, {"arguments", {{"command", command}, {"timeout_sec", seconds + 120}}}}}}},
         {{"tool_calls", {{{"name", "finish"}, {"arguments", {{"summary", "flooded"}}}}}}}});
    std::ofstream(script) << json{{"turns", turns}}.dump();

    auto plane = openPlane(results.dataDir, agent);
    MainWindow window(*plane);
    showWindow(window);
    CountingDelegate* counting = countLayouts(window);

    LatencyProbe probe;
    Waiter waiter;
    bool flooding = false, flooded = false, finished = false;
    Clock::time_point floodStart;
    double uiCpuStart = 0, processCpuStart = 0;
    std::uint64_t layoutsStart = 0, rowsSizedStart = 0;
    QObject::connect(plane.get(), &ControlPlane::eventStored, &window, [&](const std::string& id, const json& event) {
        if (id != results.taskId || flooded)
            return;
        const std::string type = event.value("type", "");
        if (type == "tool_output" && !flooding) {
            flooding = true;
            floodStart = Clock::now();
            uiCpuStart = cpuSeconds(RUSAGE_THREAD);
            processCpuStart = cpuSeconds(RUSAGE_SELF);
            layoutsStart = counting->fullLayouts();
            rowsSizedStart = counting->rowsSized();
            probe.start();
        }
        if (!flooding)
            return;
        if (type == "tool_output") {
            ++results.events;
            const auto data = event.find("data");
            if (data != event.end() && data->is_object()) {
                const std::string text = data->value("text", "");
                results.lines += static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
            }
        } else if (type == "tool_result") {
            flooded = true;
            results.flood = summarise(probe.stop());
            results.floodSeconds = msSince(floodStart) / 1000.0;
            results.uiCpuSeconds = cpuSeconds(RUSAGE_THREAD) - uiCpuStart;
            results.processCpuSeconds = cpuSeconds(RUSAGE_SELF) - processCpuStart;
            results.layoutsFlood = counting->fullLayouts() - layoutsStart;
            results.rowsSizedFlood = counting->rowsSized() - rowsSizedStart;
        }
    });
    QObject::connect(plane.get(), &ControlPlane::taskFinished, &window, [&](const std::string& id) {
        if (id == results.taskId) {
            finished = true;
            waiter.wake();
        }
    });

    TaskSpec spec;
    spec.provider = "scripted:" + script.string();
    auto task = plane->submit("flood the timeline", workspace.string(), spec);
    if (!task)
        fail("cannot submit the flood task: " + task.error().message);
    results.taskId = task->id;
    window.taskList()->refresh(task->id);
    window.selectTask(QString::fromStdString(task->id));
    if (!waiter.wait([&] { return finished; }, (seconds + 300) * 1000))
        fail("the flood task did not finish within " + std::to_string(seconds + 300) + " s");
    if (!flooded)
        fail("the flood task finished without a shell call's output and result; is python3 in the sandbox?");
    window.flushEvents();
    QCoreApplication::processEvents();
    if (auto record = plane->task(task->id); record && *record)
        results.status = taskStatusName((*record)->status);

    // The baseline: the same window, the finished task still selected, idle.
    idleFor(500);
    const std::uint64_t layoutsBefore = counting->fullLayouts();
    probe.start();
    idleFor(seconds * 1000);
    results.idle = summarise(probe.stop());
    results.layoutsIdle = counting->fullLayouts() - layoutsBefore;

    results.cards = window.timeline()->rowCount();
    for (int row = 0; row < results.cards; ++row)
        if (const auto* item = window.timeline()->item(row); item && item->kind == warren::ui::TimelineItem::Kind::ToolCall)
            results.cardLines = std::max(results.cardLines, item->body.lineCount());
    return results;
}

// ---- part 2 and 3: the tasks, and the child processes ------------------------------------------------

// The flood-agent's task: "flood N" makes N tool_output events and task_finished.
std::string writeFloodAgentTask(const std::string& floodAgent, const fs::path& dataDir, const fs::path& base) {
    const fs::path workspace = base / "flood-agent-workspace";
    fs::create_directories(workspace);
    const fs::path script = base / "finish.json";
    std::ofstream(script) << json{{"turns", {{{"tool_calls", {{{"name", "finish"}, {"arguments", {{"summary", "done"}}}}}}}}}}.dump();
    auto plane = openPlane(dataDir, floodAgent);
    TaskSpec spec;
    spec.provider = "scripted:" + script.string();
    auto task = plane->submit("flood " + std::to_string(kOpenEvents), workspace.string(), spec);
    if (!task)
        fail("cannot submit the flood-agent task: " + task.error().message);
    bool finished = false;
    Waiter waiter;
    QObject::connect(plane.get(), &ControlPlane::taskFinished, plane.get(), [&](const std::string& id) {
        finished = finished || id == task->id;
        waiter.wake();
    });
    if (!waiter.wait([&] { return finished; }, 300000))
        fail("the flood-agent task did not finish within 5 minutes");
    auto record = plane->task(task->id);
    if (!record || !*record || (*record)->status != TaskStatus::Succeeded)
        fail("the flood-agent task did not succeed");
    return task->id;
}

// Child: open the task in a fresh window. Prints one JSON line.
int childOpen(const fs::path& dataDir, const std::string& taskId, const std::string& agent) {
    auto plane = openPlane(dataDir, agent);
    (void)plane->events(taskId); // the page cache warm, as for a task the user just watched
    auto start = Clock::now();
    auto events = plane->events(taskId);
    const double eventsMs = msSince(start);
    if (!events)
        fail("cannot read the events: " + events.error().message);
    const std::size_t eventCount = events->size();
    events->clear();
    events->shrink_to_fit();

    MainWindow window(*plane);
    showWindow(window);
    CountingDelegate* counting = countLayouts(window);
    start = Clock::now();
    window.selectTask(QString::fromStdString(taskId));
    const double selectMs = msSince(start);
    QCoreApplication::processEvents(); // the delayed layout of the new rows
    const double layoutMs = msSince(start) - selectMs;
    const QPixmap frame = window.grab();
    const double totalMs = msSince(start);
    const auto second = Clock::now();
    const QPixmap again = window.grab();
    const double secondFrameMs = msSince(second);
    // What one more full layout of every card costs: what each re-layout during a live task pays.
    const auto relayout = Clock::now();
    window.timelineView()->doItemsLayout();
    const double relayoutMs = msSince(relayout);
    if (window.selectedTask() != QString::fromStdString(taskId) || frame.isNull() || again.isNull())
        fail("the task was not opened or its frame not painted");
    std::printf("%s\n", json{{"events", eventCount},
                             {"cards", window.timeline()->rowCount()},
                             {"events_ms", eventsMs},
                             {"select_ms", selectMs},
                             {"layout_ms", layoutMs},
                             {"total_ms", totalMs},
                             {"second_frame_ms", secondFrameMs},
                             {"relayout_ms", relayoutMs},
                             {"full_layouts", counting->fullLayouts()},
                             {"rows_sized", counting->rowsSized()}}
                            .dump()
                            .c_str());
    return 0;
}

// Child: the process's memory with only the plane open, then with the window showing the task, idle.
int childMemory(const fs::path& dataDir, const std::string& taskId, const std::string& agent) {
    auto plane = openPlane(dataDir, agent);
    QCoreApplication::processEvents();
    const long rssBefore = rssKiB(), pssBefore = pssKiB();
    MainWindow window(*plane);
    showWindow(window);
    window.selectTask(QString::fromStdString(taskId));
    QCoreApplication::processEvents();
    const QPixmap frame = window.grab();
    idleFor(2000);
    const long rssIdle = rssKiB(), pssIdle = pssKiB();
    std::printf("%s\n", json{{"rss_before_kib", rssBefore},
                             {"pss_before_kib", pssBefore},
                             {"rss_idle_kib", rssIdle},
                             {"pss_idle_kib", pssIdle},
                             {"peak_kib", procKiB("/proc/self/status", "VmHWM")},
                             {"cards", window.timeline()->rowCount()},
                             {"painted", !frame.isNull()}}
                            .dump()
                            .c_str());
    return 0;
}

json runChild(const char* mode, const fs::path& dataDir, const std::string& taskId, const std::string& agent) {
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(QCoreApplication::applicationFilePath(),
                {QString::fromLatin1(mode), QString::fromStdString(dataDir.string()), QString::fromStdString(taskId),
                 QString::fromStdString(agent)});
    if (!child.waitForFinished(600000) || child.exitStatus() != QProcess::NormalExit || child.exitCode() != 0)
        fail(std::string("the ") + mode + " child failed for " + taskId);
    const QList<QByteArray> lines = child.readAllStandardOutput().trimmed().split('\n');
    const json result = json::parse(lines.isEmpty() ? QByteArray() : lines.last(), nullptr, false);
    if (!result.is_object())
        fail(std::string("the ") + mode + " child printed no result");
    return result;
}

struct OpenResults {
    std::string name;
    std::uint64_t events = 0;
    int cards = 0;
    double eventsMs = 0, selectMs = 0, layoutMs = 0, totalMs = 0, secondFrameMs = 0, relayoutMs = 0;
    std::uint64_t fullLayouts = 0, rowsSized = 0;
};

double medianOf(const std::vector<json>& runs, const char* key) {
    std::vector<double> values;
    for (const json& run : runs)
        values.push_back(run.value(key, 0.0));
    return percentile(values, 0.5);
}

OpenResults summariseOpen(const std::string& name, const std::vector<json>& runs) {
    OpenResults results;
    results.name = name;
    results.events = runs.front().value("events", std::uint64_t{0});
    results.cards = runs.front().value("cards", 0);
    results.eventsMs = medianOf(runs, "events_ms");
    results.selectMs = medianOf(runs, "select_ms");
    results.layoutMs = medianOf(runs, "layout_ms");
    results.totalMs = medianOf(runs, "total_ms");
    results.secondFrameMs = medianOf(runs, "second_frame_ms");
    results.relayoutMs = medianOf(runs, "relayout_ms");
    results.fullLayouts = runs.front().value("full_layouts", std::uint64_t{0});
    results.rowsSized = runs.front().value("rows_sized", std::uint64_t{0});
    return results;
}

} // namespace

int main(int argc, char** argv) {
    // Offscreen unless told otherwise: the figures are the window's own, not a display server's.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (argc == 5 && (std::string(argv[1]) == "--open" || std::string(argv[1]) == "--memory")) {
        QApplication app(argc, argv);
        return std::string(argv[1]) == "--open" ? childOpen(argv[2], argv[3], argv[4])
                                                : childMemory(argv[2], argv[3], argv[4]);
    }
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s WARREN_AGENT FLOOD_AGENT [SECONDS] [LINES_PER_SECOND] [ROUNDS]\n", argv[0]);
        return 2;
    }
    const std::string agent = fs::absolute(argv[1]).string();
    const std::string floodAgent = fs::absolute(argv[2]).string();
    const int seconds = argc > 3 ? std::max(1, std::atoi(argv[3])) : 10;
    const int linesPerSecond = argc > 4 ? std::max(100, std::atoi(argv[4])) : 10000;
    const int rounds = argc > 5 ? std::max(1, std::atoi(argv[5])) : 3;
    QApplication app(argc, argv);
    const fs::path base = fs::temp_directory_path() / ("warren-bench-ui-" + std::to_string(getpid()));
    fs::create_directories(base);

    std::printf("# The desktop window (offscreen, 1280x800). Latency = lateness of a %d ms one-shot QTimer re-armed\n"
                "# in its handler: how long past its due time the UI thread ran it. 'full layouts' = the timeline\n"
                "# asked the size of row 0, which a full layout of its rows does.\n",
                kProbeMs);
    const FloodResults flood = measureFlood(agent, base, seconds, linesPerSecond);
    std::printf("# 1. a real task floods %d lines/s for %d s (shell + python3 in the sandbox), timeline live and\n"
                "#    following; baseline: the same window idle for %d s after it\n",
                linesPerSecond, seconds, seconds);
    std::printf("%-34s %9s %9s %9s %9s\n", "ui thread latency", "p50_ms", "p99_ms", "max_ms", "samples");
    const auto latencyLine = [](const char* name, const Latency& latency) {
        std::printf("%-34s %9.2f %9.2f %9.2f %9zu\n", name, latency.p50, latency.p99, latency.max, latency.samples);
    };
    latencyLine("during the flood", flood.flood);
    latencyLine("idle (baseline)", flood.idle);
    std::printf("%-34s %.2fx p99, %.2fx p50\n", "flood / idle", flood.flood.p99 / std::max(0.01, flood.idle.p99),
                flood.flood.p50 / std::max(0.01, flood.idle.p50));
    std::printf("target: p99 <= 50 ms under the flood: %s (%.2f ms)\n", flood.flood.p99 <= 50.0 ? "met" : "NOT met",
                flood.flood.p99);
    std::printf("%-34s %.0f events/s, %.0f lines/s over %.2f s (%llu events, %llu lines)\n", "received",
                static_cast<double>(flood.events) / flood.floodSeconds, static_cast<double>(flood.lines) / flood.floodSeconds,
                flood.floodSeconds, static_cast<unsigned long long>(flood.events),
                static_cast<unsigned long long>(flood.lines));
    std::printf("%-34s ui thread %.0f%% of a core, whole process %.0f%%\n", "cpu during the flood",
                100.0 * flood.uiCpuSeconds / flood.floodSeconds, 100.0 * flood.processCpuSeconds / flood.floodSeconds);
    std::printf("%-34s %llu during the flood (%llu rows sized), %llu idle\n", "full layouts of the timeline",
                static_cast<unsigned long long>(flood.layoutsFlood), static_cast<unsigned long long>(flood.rowsSizedFlood),
                static_cast<unsigned long long>(flood.layoutsIdle));
    std::printf("%-34s %s, %d cards, %lld lines in its shell card\n", "the task", flood.status.c_str(), flood.cards,
                static_cast<long long>(flood.cardLines));

    const fs::path floodAgentDir = base / "flood-agent-plane";
    const fs::path mixedDir = base / "mixed-plane";
    const std::string floodAgentTask = writeFloodAgentTask(floodAgent, floodAgentDir, base);
    const std::string mixedTask = writeMixedTask(mixedDir, base / "mixed-workspace", kOpenEvents);
    struct Opened {
        const char* name;
        fs::path dataDir;
        std::string taskId;
        std::vector<json> runs;
    };
    std::vector<Opened> opened = {{"flood-agent, 100,000 tool_output", floodAgentDir, floodAgentTask, {}},
                                  {"mixed, 100,000 events", mixedDir, mixedTask, {}},
                                  {"the task of 1", flood.dataDir, flood.taskId, {}}};
    for (int round = 0; round < rounds; ++round)
        for (auto& task : opened)
            task.runs.push_back(runChild("--open", task.dataDir, task.taskId, agent));
    std::printf("# 2. opening a finished task in a fresh process and window: selectTask() until every card is in the\n"
                "#    timeline and one frame of the window is painted; baseline: ControlPlane::events() alone. Medians\n"
                "#    of %d rounds\n",
                rounds);
    std::printf("%-34s %8s %7s %9s %9s %9s %9s %9s %8s\n", "task", "events", "cards", "events_ms", "select_ms",
                "layout_ms", "total_ms", "frame2_ms", "vs_store");
    std::vector<OpenResults> opens;
    for (const auto& task : opened) {
        const OpenResults open = summariseOpen(task.name, task.runs);
        std::printf("%-34s %8llu %7d %9.1f %9.1f %9.1f %9.1f %9.1f %7.2fx\n", open.name.c_str(),
                    static_cast<unsigned long long>(open.events), open.cards, open.eventsMs, open.selectMs,
                    open.layoutMs, open.totalMs, open.secondFrameMs, open.totalMs / std::max(0.01, open.eventsMs));
        opens.push_back(open);
    }
    for (const auto& open : opens)
        std::printf("%-34s %llu full layouts, %llu rows sized; one more full layout %.1f ms\n", open.name.c_str(),
                    static_cast<unsigned long long>(open.fullLayouts), static_cast<unsigned long long>(open.rowsSized),
                    open.relayoutMs);
    const double worstOpen = std::max(opens[0].totalMs, opens[1].totalMs);
    std::printf("target: a 100,000-event task opens in <= 1 s: %s (flood-agent %.0f ms, mixed %.0f ms)\n",
                worstOpen <= 1000.0 ? "met" : "NOT met", opens[0].totalMs, opens[1].totalMs);

    const json memory = runChild("--memory", flood.dataDir, flood.taskId, agent);
    const json memoryMixed = runChild("--memory", mixedDir, mixedTask, agent);
    const auto mib = [](const json& value, const char* key) { return value.value(key, 0.0) / 1024.0; };
    std::printf("# 3. resident memory of a fresh process: QApplication + control plane (baseline), then the window\n"
                "#    shown with one finished task selected and painted, after 2 s idle\n");
    std::printf("%-34s %9s %9s %9s %9s\n", "one finished task", "rss_MiB", "pss_MiB", "base_rss", "base_pss");
    std::printf("%-34s %9.1f %9.1f %9.1f %9.1f\n", "the task of 1", mib(memory, "rss_idle_kib"),
                mib(memory, "pss_idle_kib"), mib(memory, "rss_before_kib"), mib(memory, "pss_before_kib"));
    std::printf("%-34s %9.1f %9.1f %9.1f %9.1f\n", "mixed, 100,000 events", mib(memoryMixed, "rss_idle_kib"),
                mib(memoryMixed, "pss_idle_kib"), mib(memoryMixed, "rss_before_kib"), mib(memoryMixed, "pss_before_kib"));
    std::printf("target: idle window with one finished task <= 80 MB: %s (%.1f MB = %.1f MiB RSS)\n",
                mib(memory, "rss_idle_kib") * 1.048576 <= 80.0 ? "met" : "NOT met", mib(memory, "rss_idle_kib") * 1.048576,
                mib(memory, "rss_idle_kib"));

    const json summary{{"bench", "ui_timeline"},
                       {"seconds", seconds},
                       {"lines_per_s_asked", linesPerSecond},
                       {"flood_p50_ms", flood.flood.p50},
                       {"flood_p99_ms", flood.flood.p99},
                       {"flood_max_ms", flood.flood.max},
                       {"idle_p50_ms", flood.idle.p50},
                       {"idle_p99_ms", flood.idle.p99},
                       {"idle_max_ms", flood.idle.max},
                       {"events_per_s", static_cast<double>(flood.events) / flood.floodSeconds},
                       {"lines_per_s", static_cast<double>(flood.lines) / flood.floodSeconds},
                       {"ui_cpu_share", flood.uiCpuSeconds / flood.floodSeconds},
                       {"full_layouts_flood", flood.layoutsFlood},
                       {"open_flood_agent_ms", opens[0].totalMs},
                       {"open_flood_agent_events_ms", opens[0].eventsMs},
                       {"open_mixed_ms", opens[1].totalMs},
                       {"open_mixed_events_ms", opens[1].eventsMs},
                       {"open_mixed_cards", opens[1].cards},
                       {"open_mixed_relayout_ms", opens[1].relayoutMs},
                       {"open_task1_ms", opens[2].totalMs},
                       {"rss_idle_kib", memory.value("rss_idle_kib", 0)},
                       {"rss_before_kib", memory.value("rss_before_kib", 0)},
                       {"pss_idle_kib", memory.value("pss_idle_kib", 0)},
                       {"rss_idle_mixed_kib", memoryMixed.value("rss_idle_kib", 0)}};
    std::printf("%s\n", summary.dump().c_str());
    fs::remove_all(base);
    return 0;
}
