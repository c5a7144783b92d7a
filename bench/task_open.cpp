// Opening a finished task in the window, side by side in one run, each open in a fresh process:
//  - all events: what the window did before it paged (ControlPlane::events() of the whole task, every
//    event folded into the timeline, every card laid out);
//  - the latest page: what MainWindow::selectTask does now (ControlPlane::eventsBefore() of the last
//    MainWindow::kPageEvents events; the earlier ones are counted for the side panel afterwards, a page at
//    a time, none kept).
// Measured: from the call until one frame of the window is painted (QWidget::grab), and the process's
// resident memory (VmRSS) with the window shown and no task selected, at that frame, and once the side
// panel's counting has ended (the window idle for a second; for all events, the latest page was shown
// before, untimed, so that the timeline is on screen); then, for the latest page, what reaching the top costs: the first
// earlier page, and the tenth (a page is read again with everything shown, so it grows with that).
// The task: EVENTS mixed events (bench/MixedTask) written through the Store. Rounds alternate the two ways.
//   bench_task_open [EVENTS=100000] [ROUNDS=3]
// No agent runs: the control plane is given /bin/true as its agent, and only opens finished tasks.

#include "app/control/LocalControlPlane.h"
#include "bench/BenchStats.h"
#include "bench/MixedTask.h"
#include "ui/models/TaskListModel.h"
#include "ui/models/TimelineModel.h"
#include "ui/views/TimelineView.h"
#include "ui/windows/MainWindow.h"

#include <QApplication>
#include <QEventLoop>
#include <QPixmap>
#include <QProcess>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;
namespace fs = std::filesystem;
using nlohmann::json;
using namespace warren::control;
using warren::ui::MainWindow;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_task_open: FAILED: %s\n", what.c_str());
    std::exit(1);
}

long rssKiB() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::atol(line.c_str() + 6);
    return 0;
}

void idleFor(int ms) {
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

// Child: open the task one way in a fresh window. Prints one JSON line.
int childOpen(bool allEvents, const fs::path& dataDir, const std::string& taskId) {
    LocalOptions options;
    options.dataDir = dataDir.string();
    options.agentBinary = "/bin/true";
    options.useKeychain = false;
    auto plane = LocalControlPlane::open(std::move(options));
    if (!plane)
        fail("cannot open the control plane: " + plane.error().message);
    // The page cache warm, as for a task the user just watched; read as bytes, not through events(), whose
    // parsed JSON would grow the heap before the baseline and hide what an open costs.
    for (const char* file : {"warren.db", "warren.db-wal"}) {
        std::ifstream bytes(dataDir / file, std::ios::binary);
        std::vector<char> chunk(1 << 20);
        while (bytes.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || bytes.gcount() > 0) {
        }
    }
    MainWindow window(**plane);
    window.show();
    window.resize(1280, 800);
    QCoreApplication::processEvents();
    const long rssBefore = rssKiB(); // the window shown, no task selected
    if (allEvents) { // the timeline shown (it is, for a task) with the latest page, not counting: then timed
        window.selectTask(QString::fromStdString(taskId));
        while (window.countingEarlier())
            QCoreApplication::processEvents();
    }

    const auto start = Clock::now();
    if (allEvents) {
        // What selectTask did before: the whole task, read and folded at once.
        auto events = (*plane)->events(taskId);
        if (!events)
            fail("cannot read the events: " + events.error().message);
        window.timeline()->reset(QString::fromStdString(taskId), QStringLiteral("prompt"));
        window.timeline()->append(*events);
    } else {
        window.selectTask(QString::fromStdString(taskId));
    }
    QCoreApplication::processEvents(); // the delayed layout of the rows
    const QPixmap frame = window.grab();
    const double openMs = msSince(start);
    const long rssFrame = rssKiB();
    const int cards = window.timeline()->rowCount();
    while (window.countingEarlier())
        QCoreApplication::processEvents();
    const double countedMs = msSince(start);
    idleFor(1000);
    const long rssIdle = rssKiB();
    if (frame.isNull() || window.selectedTask() != QString::fromStdString(taskId))
        fail("the task was not opened or its frame not painted");

    json result{{"open_ms", openMs},   {"counted_ms", countedMs}, {"cards", cards},
                {"rss_before_kib", rssBefore}, {"rss_frame_kib", rssFrame}, {"rss_idle_kib", rssIdle},
                {"tokens_in", window.timeline()->activity().tokensIn}};
    if (!allEvents) {
        std::vector<double> pages;
        for (int page = 0; page < 10 && window.timeline()->hasEarlier(); ++page) {
            const auto asked = Clock::now();
            window.loadEarlier();
            QCoreApplication::processEvents();
            pages.push_back(msSince(asked));
        }
        result["first_page_ms"] = pages.empty() ? 0.0 : pages.front();
        result["tenth_page_ms"] = pages.size() < 10 ? 0.0 : pages.back();
        result["rss_ten_pages_kib"] = rssKiB();
    }
    std::printf("%s\n", result.dump().c_str());
    return 0;
}

json runChild(const char* mode, const fs::path& dataDir, const std::string& taskId) {
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(QCoreApplication::applicationFilePath(),
                {QString::fromLatin1(mode), QString::fromStdString(dataDir.string()), QString::fromStdString(taskId)});
    if (!child.waitForFinished(600000) || child.exitStatus() != QProcess::NormalExit || child.exitCode() != 0)
        fail(std::string("the ") + mode + " child failed");
    const QList<QByteArray> lines = child.readAllStandardOutput().trimmed().split('\n');
    const json result = json::parse(lines.isEmpty() ? QByteArray() : lines.last(), nullptr, false);
    if (!result.is_object())
        fail(std::string("the ") + mode + " child printed no result");
    return result;
}

double medianOf(const std::vector<json>& runs, const char* key) {
    std::vector<double> values;
    for (const json& run : runs)
        values.push_back(run.value(key, 0.0));
    return percentile(values, 0.5);
}

} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (argc == 4 && (std::string(argv[1]) == "--all" || std::string(argv[1]) == "--page")) {
        QApplication app(argc, argv);
        return childOpen(std::string(argv[1]) == "--all", argv[2], argv[3]);
    }
    const std::uint64_t total = argc > 1 ? std::max<std::uint64_t>(1000, std::strtoull(argv[1], nullptr, 10)) : 100000;
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    QApplication app(argc, argv);
    const fs::path base = fs::temp_directory_path() / ("warren-bench-open-" + std::to_string(getpid()));
    const std::string taskId = warren::bench::writeMixedTask(base / "plane", base / "workspace", total);

    std::vector<json> all, page;
    for (int round = 0; round < rounds; ++round) {
        all.push_back(runChild("--all", base / "plane", taskId));
        page.push_back(runChild("--page", base / "plane", taskId));
    }
    const auto mib = [](double kib) { return kib / 1024.0; };
    const auto growth = [&](const std::vector<json>& runs, const char* key) {
        return mib(medianOf(runs, key) - medianOf(runs, "rss_before_kib"));
    };
    std::printf("# Opening a finished task of %llu mixed events in the window (offscreen, 1280x800), each open in a\n"
                "# fresh process; medians of %d rounds. open = the call to one painted frame; RSS growth over the\n"
                "# window before the call, at that frame and idle after the side panel's counting\n",
                static_cast<unsigned long long>(total), rounds);
    std::printf("%-22s %8s %9s %11s %13s %12s\n", "way", "cards", "open_ms", "counted_ms", "rss_frame_MiB",
                "rss_idle_MiB");
    std::printf("%-22s %8d %9.1f %11s %13.1f %12.1f\n", "all events", all.front().value("cards", 0),
                medianOf(all, "open_ms"), "-", growth(all, "rss_frame_kib"), growth(all, "rss_idle_kib"));
    std::printf("%-22s %8d %9.1f %11.1f %13.1f %12.1f\n", "latest page", page.front().value("cards", 0),
                medianOf(page, "open_ms"), medianOf(page, "counted_ms"), growth(page, "rss_frame_kib"),
                growth(page, "rss_idle_kib"));
    std::printf("%-22s %.1fx faster, %.1fx less memory at the frame\n", "latest page / all",
                medianOf(all, "open_ms") / std::max(0.01, medianOf(page, "open_ms")),
                growth(all, "rss_frame_kib") / std::max(0.01, growth(page, "rss_frame_kib")));
    std::printf("%-22s first %.1f ms, tenth %.1f ms; RSS growth after ten pages %.1f MiB\n", "scrolling up a page",
                medianOf(page, "first_page_ms"), medianOf(page, "tenth_page_ms"),
                growth(page, "rss_ten_pages_kib"));
    std::printf("%-22s all events %llu, latest page %llu (the side panel counts the whole task both ways)\n",
                "tokens in", static_cast<unsigned long long>(all.front().value("tokens_in", 0ULL)),
                static_cast<unsigned long long>(page.front().value("tokens_in", 0ULL)));
    std::printf("target: any task opens in <= 300 ms: %s (%.0f ms)\n",
                medianOf(page, "open_ms") <= 300.0 ? "met" : "NOT met", medianOf(page, "open_ms"));
    const json summary{{"bench", "task_open"},
                       {"events", total},
                       {"all_open_ms", medianOf(all, "open_ms")},
                       {"page_open_ms", medianOf(page, "open_ms")},
                       {"page_counted_ms", medianOf(page, "counted_ms")},
                       {"all_rss_growth_mib", growth(all, "rss_frame_kib")},
                       {"page_rss_growth_mib", growth(page, "rss_frame_kib")},
                       {"page_rss_idle_growth_mib", growth(page, "rss_idle_kib")},
                       {"first_page_ms", medianOf(page, "first_page_ms")},
                       {"tenth_page_ms", medianOf(page, "tenth_page_ms")}};
    std::printf("%s\n", summary.dump().c_str());
    fs::remove_all(base);
    return 0;
}
