// gui-screenshot OUT.png [WIDTHxHEIGHT]: the README's screenshot (1360x820 unless a size is given).
// Opens the window over a fresh control plane, runs the scripted demo in the real sandbox, waits for it to
// end, and saves the window as it looks then. Run it on a real display server (tests/gui/screenshot.sh uses
// xvfb-run) for real fonts and a real style.
#include "tests/gui/DesktopFixture.h"
#include "ui/models/TimelineModel.h"
#include "ui/views/TimelineView.h"

#include <QApplication>
#include <QPushButton>
#include <QSignalSpy>
#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const QStringList size = argc == 3 ? QString::fromLocal8Bit(argv[2]).split('x') : QStringList{"1360", "820"};
    if ((argc != 2 && argc != 3) || size.size() != 2 || size[0].toInt() <= 0 || size[1].toInt() <= 0) {
        std::fprintf(stderr, "usage: gui-screenshot OUT.png [WIDTHxHEIGHT]\n");
        return 2;
    }
    warren::test::DesktopFixture desk;
    if (!desk.open())
        return 1;
    auto& window = desk.window();
    window.resize(size[0].toInt(), size[1].toInt());
    QSignalSpy submitted(&window, &warren::ui::MainWindow::taskSubmitted);
    window.runDemo();
    if ((submitted.isEmpty() && !submitted.wait(30000)) || !desk.waitFinished(submitted.first().first().toString())) {
        std::fprintf(stderr, "gui-screenshot: the demo did not finish\n");
        return 1;
    }
    // Show the fix: the last change of the demo's script, scrolled to the top of the timeline.
    const auto& timeline = *window.timeline();
    for (int row = timeline.rowCount() - 1; row >= 0; --row) {
        if (timeline.item(row)->kind == warren::ui::TimelineItem::Kind::FileChange) {
            window.timelineView()->scrollTo(timeline.index(row), QAbstractItemView::PositionAtCenter);
            break;
        }
    }
    QCoreApplication::processEvents();
    if (!window.grab().save(QString::fromLocal8Bit(argv[1]))) {
        std::fprintf(stderr, "gui-screenshot: cannot write %s\n", argv[1]);
        return 1;
    }
    std::printf("%s\n", argv[1]);
    return 0;
}
