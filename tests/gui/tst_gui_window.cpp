// The window over the real control plane: scripted tasks run in the real sandbox, and the test reads what
// the task list, the timeline and the side panel show, and clicks what a user clicks.
#include "app/store/sqlite/SqliteStore.h"
#include "tests/gui/DesktopFixture.h"
#include "ui/models/TaskListModel.h"
#include "ui/models/TimelineModel.h"
#include "ui/views/TimelineView.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using nlohmann::json;
using warren::test::DesktopFixture;
using warren::test::turn;
using warren::ui::TimelineItem;
using warren::ui::TimelineModel;
using Kind = TimelineItem::Kind;
using State = TimelineItem::State;

namespace {

std::vector<const TimelineItem*> itemsOf(const TimelineModel& model, Kind kind) {
    std::vector<const TimelineItem*> found;
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.item(row)->kind == kind)
            found.push_back(model.item(row));
    return found;
}

QStringList bodyLines(const TimelineItem& item) {
    QStringList lines;
    for (qsizetype i = 0; i < item.body.lineCount(); ++i)
        lines << item.body.line(i).text.toString();
    return lines;
}

// Types the task into the new-task bar and presses Enter, as a user does.
QString runFromBar(DesktopFixture& desk, const QString& workspace, const QString& prompt) {
    QSignalSpy submitted(&desk.window(), &warren::ui::MainWindow::taskSubmitted);
    auto* workspaceBox = desk.window().newTaskBar()->findChild<QComboBox*>("workspace");
    workspaceBox->setEditText(workspace);
    QLineEdit* promptEdit = desk.window().newTaskBar()->promptEdit();
    promptEdit->setText(prompt);
    QTest::keyClick(promptEdit, Qt::Key_Return);
    return submitted.isEmpty() ? QString() : submitted.first().first().toString();
}

// Who decided each approval of the task, in order ("user", "rule", ...), as the store has it.
QStringList decidedBy(DesktopFixture& desk, const QString& taskId) {
    QStringList by;
    auto store = warren::control::openSqliteStore((desk.dataDir() + "/warren.db").toStdString());
    if (!store)
        return {"cannot open the store: " + QString::fromStdString(store.error().message)};
    auto approvals = (*store)->approvals(taskId.toStdString());
    for (const auto& approval : approvals ? *approvals : std::vector<warren::control::ApprovalRecord>{})
        by << QString::fromStdString(approval.decidedBy);
    return by;
}

bool processRunning(const QByteArray& marker) {
    const QDir proc(QStringLiteral("/proc"));
    for (const QString& pid : proc.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile cmdline(proc.filePath(pid + "/cmdline"));
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(marker))
            return true;
    }
    return false;
}

} // namespace

class TestGuiWindow : public QObject {
    Q_OBJECT
private slots:
    void toolCallsOutputAndDiffAppearInOrder();
    void streamedTextGrows();
    void approvalCardBlocksUntilClicked();
    void alwaysAllowCommandsReachesLaterTasks();
    void networkChoiceAppliesToOneTask();
    void stopEndsTheSandbox();
    void resumeContinuesAnInterruptedTask();
    void firstRunOffersTheDemo();
};

void TestGuiWindow::toolCallsOutputAndDiffAppearInOrder() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    QFile existing(workspace.filePath("notes.txt"));
    QVERIFY(existing.open(QIODevice::WriteOnly));
    existing.write("first\nsecond\nthird\n");
    existing.close();
    desk.useScript({turn("Looking at the files first.", "shell",
                         {{"command", "printf 'one\\ntwo\\n\\033[31mred\\033[0m\\n'"}}),
                    turn("", "edit_file", {{"path", "notes.txt"}, {"old_string", "second"}, {"new_string", "2nd"}}),
                    turn("", "finish", {{"summary", "Edited the notes"}})});

    const QString id = runFromBar(desk, workspace.path(), "Tidy the notes");
    QVERIFY(!id.isEmpty());
    QCOMPARE(desk.window().selectedTask(), id);
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());

    const TimelineModel& timeline = *desk.window().timeline();
    // In order: the prompt, the model's words, the shell call, the edit, its diff, the end.
    std::vector<Kind> order;
    for (int row = 0; row < timeline.rowCount(); ++row)
        if (timeline.item(row)->kind != Kind::Step && timeline.item(row)->kind != Kind::Notice)
            order.push_back(timeline.item(row)->kind);
    const std::vector<Kind> expected = {Kind::Task, Kind::ModelText, Kind::ToolCall, Kind::ToolCall,
                                        Kind::FileChange, Kind::ToolCall, Kind::Finished};
    QCOMPARE(order, expected);
    QCOMPARE(timeline.item(0)->prose, QStringLiteral("Tidy the notes"));
    QCOMPARE(itemsOf(timeline, Kind::ModelText).front()->prose, QStringLiteral("Looking at the files first."));

    const auto calls = itemsOf(timeline, Kind::ToolCall);
    const TimelineItem& shell = *calls[0];
    QVERIFY2(shell.title.startsWith("$ printf"), qPrintable(shell.title));
    QCOMPARE(bodyLines(shell), (QStringList{"one", "two", "red"}));
    // The colour is kept, the escape bytes are not.
    const auto red = shell.body.line(2);
    QCOMPARE(red.spans.size(), 1u);
    QCOMPARE(red.spans.front().style.fg, 1);
    QVERIFY(!shell.body.text().contains(QChar(0x1b)));
    QCOMPARE(shell.state, State::Succeeded);
    QVERIFY2(shell.detail.startsWith("exit 0"), qPrintable(shell.detail));
    QCOMPARE(calls[1]->title, QStringLiteral("edit notes.txt"));

    const TimelineItem& change = *itemsOf(timeline, Kind::FileChange).front();
    QCOMPARE(change.path, QStringLiteral("notes.txt"));
    const QStringList diff = bodyLines(change);
    QVERIFY2(diff.contains("-second") && diff.contains("+2nd"), qPrintable(diff.join('\n')));
    QCOMPARE(itemsOf(timeline, Kind::Finished).front()->prose, QStringLiteral("Edited the notes"));

    // The side panel and the list agree with the timeline.
    QCOMPARE(timeline.activity().files.at("notes.txt").change, "modified");
    auto* tasks = desk.window().taskList();
    const QModelIndex row = tasks->index(tasks->rowOf(id.toStdString()));
    QCOMPARE(row.data(warren::ui::TaskListModel::StatusRole).toInt(),
             static_cast<int>(warren::control::TaskStatus::Succeeded));
    QCOMPARE(row.data().toString(), QStringLiteral("Tidy the notes"));
}

void TestGuiWindow::streamedTextGrows() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    const std::string reply = "I will read the project layout first, then run the tests, and then fix whatever "
                              "fails, one small change at a time, checking each change with the tests again.";
    desk.useScript({turn(reply, "finish", {{"summary", "done"}})});
    // Apply every event as it is stored, so each streamed piece is seen on its own.
    std::vector<qsizetype> lengths;
    QObject::connect(&desk.plane(), &warren::control::ControlPlane::eventStored, &desk.window(),
                     [&](const std::string&, const json& event) {
                         if (event.value("type", "") != "model_delta")
                             return;
                         desk.window().flushEvents();
                         const auto texts = itemsOf(*desk.window().timeline(), Kind::ModelText);
                         if (!texts.empty())
                             lengths.push_back(texts.front()->prose.size());
                     });
    const QString id = runFromBar(desk, workspace.path(), "Fix the tests");
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(lengths.size() >= 2, "the reply came in one piece");
    QVERIFY(std::is_sorted(lengths.begin(), lengths.end()));
    QVERIFY(lengths.front() < lengths.back());
    QCOMPARE(itemsOf(*desk.window().timeline(), Kind::ModelText).front()->prose, QString::fromStdString(reply));
}

void TestGuiWindow::approvalCardBlocksUntilClicked() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    desk.useScript({turn("", "shell", {{"command", "touch approved.txt"}}), turn("", "finish", {{"summary", "ok"}})});
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    settings->presets = {"safe-mode"}; // approvals for risky tools
    QVERIFY(bool(desk.plane().saveSettings(*settings)));
    desk.window().newTaskBar()->setDefaults({{"safe-mode"}, {}, "bwrap", "none"});

    const QString id = runFromBar(desk, workspace.path(), "Make a file");
    QVERIFY(desk.waitEvent(id, "approval_requested"));
    QCoreApplication::processEvents();
    desk.window().flushEvents();

    // The card waits with its buttons; the command has not run.
    const TimelineModel& timeline = *desk.window().timeline();
    const auto approvals = itemsOf(timeline, Kind::Approval);
    QCOMPARE(approvals.size(), 1u);
    QCOMPARE(approvals.front()->state, State::Waiting);
    QVERIFY(!QFile::exists(workspace.filePath("approved.txt")));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Running, desk.describe(id).constData());
    QPushButton* approve = nullptr;
    QTRY_VERIFY((approve = desk.window().timelineView()->findChild<QPushButton*>("approve")) != nullptr);
    QTRY_VERIFY(approve->isVisible());

    QTest::mouseClick(approve, Qt::LeftButton);
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QVERIFY(QFile::exists(workspace.filePath("approved.txt"))); // the click reached the agent
    QCOMPARE(itemsOf(timeline, Kind::Approval).front()->state, State::Approved);
    QTRY_VERIFY(desk.window().timelineView()->findChild<QPushButton*>("approve") == nullptr);
}

// "Always allow commands starting with touch": the call runs, the task's next touch runs without a card,
// the prefix is kept in Settings, and a later task's touch does not ask either.
void TestGuiWindow::alwaysAllowCommandsReachesLaterTasks() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    desk.useScript({turn("", "shell", {{"command", "touch first.txt"}}),
                    turn("", "shell", {{"command", "touch second.txt"}}), turn("", "finish", {{"summary", "ok"}})});
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    settings->presets = {"safe-mode"};
    QVERIFY(bool(desk.plane().saveSettings(*settings)));
    desk.window().newTaskBar()->setDefaults({{"safe-mode"}, {}, "bwrap", "none"});

    const QString id = runFromBar(desk, workspace.path(), "Make files");
    QVERIFY(desk.waitEvent(id, "approval_requested"));
    QAction* commands = nullptr;
    QTRY_VERIFY((commands = desk.window().timelineView()->findChild<QAction*>("alwaysCommands")) != nullptr);
    QVERIFY2(commands->text().contains("\u201ctouch\u201d"), qPrintable(commands->text()));
    commands->trigger();
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QVERIFY(QFile::exists(workspace.filePath("first.txt")));
    QVERIFY(QFile::exists(workspace.filePath("second.txt")));
    QCOMPARE(decidedBy(desk, id), (QStringList{"user", "rule"})); // the second did not ask
    settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QCOMPARE(settings->allowedCommands, std::vector<std::string>{"touch"});

    // A later task, after a restart: no card, the command runs; another program still asks.
    desk.close();
    QVERIFY(desk.open());
    desk.useScript({turn("", "shell", {{"command", "touch third.txt"}}), turn("", "shell", {{"command", "mkdir d"}}),
                    turn("", "finish", {{"summary", "ok"}})});
    const QString later = runFromBar(desk, workspace.path(), "Make more");
    // The rule's decision on touch is an approval card too, waiting until its resolution is shown; the
    // card to answer is mkdir's, which the agent only asks for once touch has run.
    const auto waitingApprovals = [&] {
        QStringList waiting;
        for (const TimelineItem* item : itemsOf(*desk.window().timeline(), Kind::Approval))
            waiting << (item->state == State::Waiting ? "waiting" : "decided");
        return waiting;
    };
    QTRY_COMPARE_WITH_TIMEOUT(waitingApprovals(), (QStringList{"decided", "waiting"}), 60000);
    QVERIFY(QFile::exists(workspace.filePath("third.txt")));
    QPushButton* deny = nullptr;
    QTRY_VERIFY((deny = desk.window().timelineView()->findChild<QPushButton*>("deny")) != nullptr);
    QCOMPARE(desk.window().timelineView()->findChildren<QPushButton*>("deny").size(), 1);
    QTest::mouseClick(deny, Qt::LeftButton);
    QVERIFY(desk.waitFinished(later));
    QVERIFY(!QDir(workspace.filePath("d")).exists());
    QCOMPARE(decidedBy(desk, later), (QStringList{"rule", "user"}));
}

// The bar's network choice reaches the sandbox for that task only: with loopback the agent reaches its own
// 127.0.0.1 (nothing listens: refused), with the default none it cannot open an internet socket at all.
void TestGuiWindow::networkChoiceAppliesToOneTask() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    desk.useScript({turn("", "shell", {{"command", "bash -c 'echo > /dev/tcp/127.0.0.1/9' 2>&1; true"}}),
                    turn("", "finish", {{"summary", "probed"}})});
    auto* network = desk.window().newTaskBar()->findChild<QComboBox*>("network");
    QCOMPARE(network->currentData().toString(), QStringLiteral("none")); // the default from Settings
    auto probeOutput = [&desk] { // the selected task's first call
        const auto calls = itemsOf(*desk.window().timeline(), Kind::ToolCall);
        return calls.empty() ? QString() : bodyLines(*calls.front()).join('\n');
    };

    network->setCurrentIndex(network->findData(QStringLiteral("loopback")));
    const QString open = runFromBar(desk, workspace.path(), "Probe the network");
    QVERIFY(desk.waitFinished(open));
    QVERIFY2(desk.status(open) == warren::control::TaskStatus::Succeeded, desk.describe(open).constData());
    const auto record = desk.plane().task(open.toStdString());
    QVERIFY(record && *record);
    QCOMPARE(json::parse((*record)->spec).at("network").get<std::string>(), std::string("loopback"));
    QVERIFY2(probeOutput().contains("Connection refused"), qPrintable(probeOutput()));

    QCOMPARE(network->currentData().toString(), QStringLiteral("none")); // back to the default
    const QString closed = runFromBar(desk, workspace.path(), "Probe the network again");
    QVERIFY(desk.waitFinished(closed));
    QVERIFY2(desk.status(closed) == warren::control::TaskStatus::Succeeded, desk.describe(closed).constData());
    QVERIFY2(probeOutput().contains("Operation not permitted"), qPrintable(probeOutput()));
}

void TestGuiWindow::stopEndsTheSandbox() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    const QByteArray marker = "307.25";
    desk.useScript({turn("", "shell", {{"command", "sleep " + marker.toStdString()}}),
                    turn("", "finish", {{"summary", "slept"}})});
    const QString id = runFromBar(desk, workspace.path(), "Wait a while");
    QVERIFY(desk.waitEvent(id, "tool_call"));
    QTRY_VERIFY_WITH_TIMEOUT(processRunning(marker), 30000);
    QPushButton* stop = desk.window().button("stop");
    QTRY_VERIFY(stop->isEnabled());

    QTest::mouseClick(stop, Qt::LeftButton);
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Cancelled, desk.describe(id).constData());
    QTRY_VERIFY_WITH_TIMEOUT(!processRunning(marker), 30000);
    QVERIFY(!desk.window().button("stop")->isEnabled());
    QVERIFY(desk.window().button("rerun")->isEnabled());
}

void TestGuiWindow::resumeContinuesAnInterruptedTask() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    desk.useScript({turn("", "shell", {{"command", "echo begun > begun.txt && sleep 309.5"}}),
                    turn("", "write_file", {{"path", "resumed.txt"}, {"content", "after\n"}}),
                    turn("", "finish", {{"summary", "resumed"}})});
    const QString id = runFromBar(desk, workspace.path(), "Survive a crash");
    QVERIFY(desk.waitEvent(id, "tool_call"));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(workspace.filePath("begun.txt")), 30000);

    // Warren goes away mid-task (its agents with it); the next start finds the task interrupted.
    desk.close();
    QVERIFY(desk.open());
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Interrupted, desk.describe(id).constData());
    desk.window().selectTask(id);
    QPushButton* resume = desk.window().button("resume");
    QVERIFY(resume->isEnabled());

    QTest::mouseClick(resume, Qt::LeftButton);
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QVERIFY(QFile::exists(workspace.filePath("resumed.txt")));
    const TimelineModel& timeline = *desk.window().timeline();
    const auto notices = itemsOf(timeline, Kind::Notice);
    QVERIFY(std::any_of(notices.begin(), notices.end(),
                        [](const TimelineItem* item) { return item->title.startsWith("Resumed"); }));
    // The interrupted call did not come back; it is not shown as still running.
    QCOMPARE(itemsOf(timeline, Kind::ToolCall).front()->state, State::Failed);
}

void TestGuiWindow::firstRunOffersTheDemo() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    auto* demo = desk.window().findChild<QPushButton*>("demo");
    QVERIFY(demo);
    QVERIFY(demo->isVisible());
    QVERIFY(desk.window().findChild<QLabel*>("welcome")->text().contains("scripted demo"));

    QSignalSpy submitted(&desk.window(), &warren::ui::MainWindow::taskSubmitted);
    QTest::mouseClick(demo, Qt::LeftButton);
    QCOMPARE(submitted.size(), 1);
    const QString id = submitted.first().first().toString();
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    auto* tasks = desk.window().taskList();
    const QModelIndex row = tasks->index(tasks->rowOf(id.toStdString()));
    QVERIFY(row.data(warren::ui::TaskListModel::DemoRole).toBool());
    QVERIFY(row.data().toString().startsWith("Demo: "));
    QVERIFY(!itemsOf(*desk.window().timeline(), Kind::FileChange).empty());
}

QTEST_MAIN(TestGuiWindow)
#include "tst_gui_window.moc"
