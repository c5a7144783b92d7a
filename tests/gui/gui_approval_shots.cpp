// gui-approval-shots shell|edit|network WIDTHxHEIGHT: the window at that size with an approval card waiting,
// for a person to look at (issue 35: the card shows what will happen). Opens the window over a fresh control
// plane, runs a scripted task in the real sandbox until it asks (a long shell command in a subdirectory; an
// edit of a file; a request to a host no rule lists), shows the card, prints "ready" and waits until stdin
// closes, so that the display server's picture can be taken (xvfb-run, then import -window root). Run it on
// a real display server for real fonts and a real style.
#include "tests/gui/DesktopFixture.h"
#include "ui/models/TaskListModel.h"
#include "ui/models/TimelineModel.h"
#include "ui/views/TimelineView.h"
#include "ui/windows/NewTaskBar.h"

#include <QApplication>
#include <QComboBox>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>
#include <iostream>

using warren::test::turn;

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const QString kind = argc == 3 ? QString::fromLocal8Bit(argv[1]) : QString();
    const QStringList size = argc == 3 ? QString::fromLocal8Bit(argv[2]).split('x') : QStringList();
    if ((kind != "shell" && kind != "edit" && kind != "network") || size.size() != 2 ||
        size[0].toInt() <= 0 || size[1].toInt() <= 0) {
        std::fprintf(stderr, "usage: gui-approval-shots shell|edit|network WIDTHxHEIGHT\n");
        return 2;
    }
    warren::test::DesktopFixture desk;
    if (!desk.open())
        return 1;
    QTemporaryDir workspace;
    QDir(workspace.path()).mkpath("src/app");
    QFile greet(workspace.filePath("greet.py"));
    if (!greet.open(QIODevice::WriteOnly))
        return 1;
    greet.write(
        "import sys\n\n\ndef greet(name):\n    print('Hello, ' + name)\n\n\nif __name__ == '__main__':\n"
        "    greet(sys.argv[1] if len(sys.argv) > 1 else 'world')\n");
    greet.close();
    if (kind == "shell")
        desk.useScript(
            {turn("I will format the sources and run the tests.", "shell",
                  {{"command", "find . -name '*.py' -newer setup.cfg -print0 | xargs -0 python3 -m black "
                               "--line-length 100 --target-version py311 && python3 -m pytest -q "
                               "--maxfail=1 tests/unit tests/integration"},
                   {"workdir", "src/app"}}),
             turn("", "finish", {{"summary", "ok"}})});
    else if (kind == "edit")
        desk.useScript({turn("Greet with an f-string and an exclamation mark.", "edit_file",
                             {{"path", "greet.py"},
                              {"old_string", "    print('Hello, ' + name)"},
                              {"new_string", "    greeting = f'Hello, {name}!'\n    print(greeting)"}}),
                        turn("", "finish", {{"summary", "ok"}})});
    else
        desk.useScript(
            {turn("Fetching the package index.", "shell",
                  {{"command", "curl -sS --max-time 100 https://pypi.org/simple/requests/ 2>&1; true"}}),
             turn("", "finish", {{"summary", "probed"}})});
    auto settings = desk.plane().settings();
    if (!settings)
        return 1;
    if (kind != "network") {
        settings->presets = {"safe-mode"};
        if (!desk.plane().saveSettings(*settings))
            return 1;
    }
    auto& window = desk.window();
    window.newTaskBar()->setDefaults({kind == "network" ? QStringList() : QStringList{"safe-mode"},
                                      {},
                                      "warren",
                                      "bwrap",
                                      kind == "network" ? "ask" : "none"});
    window.resize(size[0].toInt(), size[1].toInt());
    window.move(0, 0);
    QSignalSpy submitted(&window, &warren::ui::MainWindow::taskSubmitted);
    window.newTaskBar()->findChild<QComboBox*>("workspace")->setEditText(workspace.path());
    window.newTaskBar()->promptEdit()->setText(kind == "shell"  ? "Format the code and run the tests"
                                               : kind == "edit" ? "Make the greeting friendlier"
                                                                : "Check the latest requests release");
    QTest::keyClick(window.newTaskBar()->promptEdit(), Qt::Key_Return);
    if ((submitted.isEmpty() && !submitted.wait(30000)) ||
        !desk.waitEvent(submitted.first().first().toString(), "approval_requested")) {
        std::fprintf(stderr, "gui-approval-shots: the task did not ask\n");
        return 1;
    }
    // The window hears of the question after its event is stored: until then the list does not say it waits.
    const std::string id = submitted.first().first().toString().toStdString();
    for (QDeadlineTimer deadline(30000); !window.taskList()->asking(id) && !deadline.hasExpired();)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    window.flushEvents();
    const auto& timeline = *window.timeline();
    window.timelineView()->scrollTo(timeline.index(timeline.rowCount() - 1),
                                    QAbstractItemView::PositionAtBottom);
    for (int i = 0; i < 20; ++i)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    std::printf("ready\n");
    std::fflush(stdout);
    std::string line;
    std::getline(std::cin, line); // the picture is taken meanwhile
    return 0;
}
