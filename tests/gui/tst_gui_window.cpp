// The window over the real control plane: scripted tasks run in the real sandbox, and the test reads what
// the task list, the timeline and the side panel show, and clicks what a user clicks.
#include "app/store/sqlite/SqliteStore.h"
#include "tests/gui/DesktopFixture.h"
#include "tests/gui/LongTaskEvents.h"
#include "tests/support/CliModelServer.h"
#include "ui/models/TaskListModel.h"
#include "ui/models/TimelineModel.h"
#include "ui/views/TimelineDelegate.h"
#include "ui/views/TimelineView.h"
#include "ui/windows/ReplyBar.h"
#include "ui/windows/SecretsDialog.h"
#include "ui/windows/SettingsDialog.h"
#include "ui/windows/SidePanel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QTreeView>
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
    if (submitted.isEmpty() && !submitted.wait(30000))
        return {};
    return submitted.first().first().toString();
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
    void anEditWaitsWithItsDiff();
    void claudeCodesCallsWaitForTheirCards();
    void alwaysAllowCommandsReachesLaterTasks();
    void skillsAndMcpServersShowInTheTimeline();
    void networkChoiceAppliesToOneTask();
    void aNetworkQuestionIsAnsweredForTheWorkspace();
    void secretsAreAddedChosenForATaskAndRemoved();
    void stopEndsTheSandbox_data();
    void stopEndsTheSandbox();
    void resumeContinuesAnInterruptedTask();
    void aReplyContinuesAFinishedTask();
    void aSubAgentsWorkIsFoldedIntoItsCard();
    void theAgentsQuestionWaitsForTheUser();
    void firstRunOffersTheDemo();
    void keyboardShortcutsReachSettingsAndTheNewTaskBar();
    void quittingWithARunningTaskAsksAndSaysWhatHappens();
    void helpSaysTheVersion();
    void fitsASmallScreen();
    void aLongTaskOpensAtItsEndAndPagesInAsTheUserScrollsUp();
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
    QVERIFY(QDir(workspace.path()).mkdir("sub"));
    QFile notes(workspace.filePath("notes.txt"));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.close();
    // A command longer than any card is wide: the card shows it whole, with the directory it runs in.
    const std::string command =
        "touch ../approved.txt && echo 'a command long enough to be wider than the card "
        "at any window size, so that it has to wrap to be read whole' > /dev/null";
    desk.useScript({turn("", "shell", {{"command", command}, {"workdir", "sub"}}),
                    turn("", "finish", {{"summary", "ok"}})});
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    settings->presets = {"safe-mode"}; // approvals for risky tools
    QVERIFY(bool(desk.plane().saveSettings(*settings)));
    desk.window().newTaskBar()->setDefaults({{"safe-mode"}, {}, "warren", "bwrap", "none"});

    const QString id = runFromBar(desk, workspace.path(), "Make a file");
    QVERIFY(desk.waitEvent(id, "approval_requested"));

    // The card waits with its buttons; the command has not run. The window shows the stored event once the
    // plane's signal crosses threads and its batch timer fires.
    const TimelineModel& timeline = *desk.window().timeline();
    QTRY_COMPARE(itemsOf(timeline, Kind::Approval).size(), 1u);
    const auto approvals = itemsOf(timeline, Kind::Approval);
    QCOMPARE(approvals.front()->state, State::Waiting);
    QCOMPARE(approvals.front()->prose, QStringLiteral("runs in sub of the workspace"));
    QCOMPARE(bodyLines(*approvals.front()), QStringList{QString::fromStdString(command)});
    QVERIFY(!QFile::exists(workspace.filePath("approved.txt")));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Running, desk.describe(id).constData());
    QPushButton* approve = nullptr;
    QTRY_VERIFY((approve = desk.window().timelineView()->findChild<QPushButton*>("approve")) != nullptr);
    QTRY_VERIFY(approve->isVisible());
    // The command wraps at the card's width instead of running past its edge: a narrower card is taller.
    int cardRow = timeline.rowCount() - 1;
    while (cardRow > 0 && timeline.item(cardRow)->kind != Kind::Approval)
        --cardRow;
    QStyleOptionViewItem option;
    option.initFrom(desk.window().timelineView()->viewport());
    const auto heightAt = [&](int width) {
        option.rect = QRect(0, 0, width, 0);
        return desk.window()
            .timelineView()
            ->itemDelegate()
            ->sizeHint(option, timeline.index(cardRow))
            .height();
    };
    QVERIFY2(heightAt(420) > heightAt(4000),
             qPrintable(QString("%1 %2").arg(heightAt(420)).arg(heightAt(4000))));

    // The task list says the task waits for the user, and "Waiting for you" lists it.
    auto* tasks = desk.window().taskList();
    const QModelIndex row = tasks->index(tasks->rowOf(id.toStdString()));
    QTRY_VERIFY(row.data(warren::ui::TaskListModel::AskingRole).toBool());
    QCOMPARE(warren::ui::listedStatus(warren::control::TaskStatus::Running, true),
             QStringLiteral("waits for your answer"));
    auto* filter = desk.window().findChild<QComboBox*>("filter");
    auto* list = desk.window().findChild<QListView*>("tasks");
    filter->setCurrentIndex(filter->findText("Waiting for you"));
    QCOMPARE(list->model()->rowCount(), 1);

    // The sandbox's placeholders (.envrc, .vscode, ... where the workspace has none) are not the user's
    // files.
    auto* files = desk.window().findChild<QTreeView*>("files");
    const auto listed = [files] {
        QStringList names;
        for (int r = 0; r < files->model()->rowCount(files->rootIndex()); ++r)
            names << files->model()->index(r, 0, files->rootIndex()).data().toString();
        names.sort();
        return names;
    };
    QVERIFY(QFileInfo::exists(workspace.filePath(".envrc"))); // made by the sandbox while it runs
    QTRY_COMPARE(listed(), (QStringList{"notes.txt", "sub"}));

    QTest::mouseClick(approve, Qt::LeftButton);
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QVERIFY(QFile::exists(workspace.filePath("approved.txt"))); // the click reached the agent
    QCOMPARE(itemsOf(timeline, Kind::Approval).front()->state, State::Approved);
    QTRY_VERIFY(desk.window().timelineView()->findChild<QPushButton*>("approve") == nullptr);
    QTRY_VERIFY(
        !tasks->index(tasks->rowOf(id.toStdString())).data(warren::ui::TaskListModel::AskingRole).toBool());
    QCOMPARE(list->model()->rowCount(), 0); // answered and ended: nothing waits for the user
    QVERIFY(!QFileInfo::exists(workspace.filePath(".envrc")));
}

// An edit waiting for approval shows its change against the file as it is: the lines around it, what goes
// and what comes; the file is unchanged until it is approved, and unchanged after a denial.
void TestGuiWindow::anEditWaitsWithItsDiff() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    QFile greet(workspace.filePath("greet.py"));
    QVERIFY(greet.open(QIODevice::WriteOnly));
    greet.write("import sys\n\ndef greet(name):\n    print('Hello, ' + name)\n\ngreet(sys.argv[1])\n");
    greet.close();
    desk.useScript({turn("", "edit_file",
                         {{"path", "greet.py"},
                          {"old_string", "print('Hello, ' + name)"},
                          {"new_string", "print(f'Hello, {name}!')"}}),
                    turn("", "finish", {{"summary", "ok"}})});
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    settings->presets = {"safe-mode"};
    QVERIFY(bool(desk.plane().saveSettings(*settings)));
    desk.window().newTaskBar()->setDefaults({{"safe-mode"}, {}, "warren", "bwrap", "none"});

    const QString id = runFromBar(desk, workspace.path(), "Use an f-string");
    QVERIFY(desk.waitEvent(id, "approval_requested"));
    QTRY_COMPARE(itemsOf(*desk.window().timeline(), Kind::Approval).size(), 1u);
    const auto approvals = itemsOf(*desk.window().timeline(), Kind::Approval);
    QCOMPARE(approvals.front()->prose, QString::fromUtf8("changes greet.py: +1 \u22121"));
    const QStringList diff = bodyLines(*approvals.front());
    QVERIFY2(diff.contains("-    print('Hello, ' + name)") &&
                 diff.contains("+    print(f'Hello, {name}!')") && diff.contains(" def greet(name):"),
             qPrintable(diff.join('\n')));

    QPushButton* deny = nullptr;
    QTRY_VERIFY((deny = desk.window().timelineView()->findChild<QPushButton*>("deny")) != nullptr);
    QTest::mouseClick(deny, Qt::LeftButton);
    QVERIFY(desk.waitFinished(id));
    QVERIFY(greet.open(QIODevice::ReadOnly));
    QVERIFY(greet.readAll().contains("'Hello, ' + name"));
    QCOMPARE(itemsOf(*desk.window().timeline(), Kind::Approval).front()->state, State::Denied);
}

// The same cards for Claude Code (WARREN_TEST_CLAUDE, found on PATH as a user's install is; skipped
// without): with safe-mode its command and its write each wait for a click, and what was clicked reached
// Claude Code in its sandbox.
void TestGuiWindow::claudeCodesCallsWaitForTheirCards() {
    const QString claude = qEnvironmentVariable("WARREN_TEST_CLAUDE");
    if (claude.isEmpty())
        QSKIP("set WARREN_TEST_CLAUDE to Claude Code's executable to run this test");
    QTemporaryDir bin, workspace;
    QVERIFY(QFile::link(claude, bin.filePath("claude")));
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", bin.path().toUtf8() + ":" + path);
    qputenv("ANTHROPIC_API_KEY", "sk-test-gui");
    const auto restore = qScopeGuard([&] {
        qputenv("PATH", path);
        qunsetenv("ANTHROPIC_API_KEY");
    });
    warren::test::CliModelServer model;
    QVERIFY(model.listen());
    warren::test::scriptCommandThenNotes(model, true, "touch approved.txt", "clicked\n");
    DesktopFixture desk;
    QVERIFY(desk.open());
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    settings->provider = "anthropic:" + model.baseUrl();
    settings->model = "claude-test";
    settings->presets = {"safe-mode"};
    settings->agent = warren::protocol::AgentKind::ClaudeCode;
    QVERIFY(bool(desk.plane().saveSettings(*settings)));
    desk.window().newTaskBar()->setDefaults({{"safe-mode"}, "claude-test", "claude-code", "bwrap", "none"});

    const QString id = runFromBar(desk, workspace.path(), "Look around, then write notes.txt");
    QVERIFY2(!id.isEmpty(), "the task was not submitted");
    for (int card = 1; card <= 2; ++card) { // Bash, then Write
        QPushButton* approve = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((approve = desk.window().timelineView()->findChild<QPushButton*>("approve")) != nullptr &&
                                     approve->isVisible(),
                                 60000);
        const auto approvals = itemsOf(*desk.window().timeline(), Kind::Approval);
        QCOMPARE(int(approvals.size()), card);
        // Its command shows, and "always" offers commands like it, as for Warren's own agent's shell call.
        if (card == 1)
            QCOMPARE(approvals.back()->commandPrefix, QString("touch"));
        QVERIFY(!QFile::exists(workspace.filePath(card == 1 ? "approved.txt" : "notes.txt")));
        QTest::mouseClick(approve, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(itemsOf(*desk.window().timeline(), Kind::Approval).back()->state == State::Approved,
                                 60000);
    }
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QVERIFY(QFile::exists(workspace.filePath("approved.txt")));
    QVERIFY(QFile::exists(workspace.filePath("notes.txt")));
}

// A task started from the window gets the user's MCP servers from Settings; its timeline says which skills
// were offered (and when that changed), each skill used, and that an MCP server which could not start is
// unavailable, as a warning, while the task goes on and ends well.
void TestGuiWindow::skillsAndMcpServersShowInTheTimeline() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    QVERIFY(QDir().mkpath(workspace.filePath(".warren/skills/release-notes")));
    QFile skill(workspace.filePath(".warren/skills/release-notes/SKILL.md"));
    QVERIFY(skill.open(QIODevice::WriteOnly));
    skill.write("---\nname: release-notes\ndescription: Write release notes from the git log\n---\nRead the log.\n");
    skill.close();
    desk.useScript({turn("", "skill", {{"name", "release-notes"}}),
                    turn("", "shell", {{"command", "mkdir -p .warren/skills/changelog && printf -- '---\\nname: "
                                                     "changelog\\ndescription: Keep the changelog\\n---\\nx\\n' > "
                                                     ".warren/skills/changelog/SKILL.md"}}),
                    turn("", "finish", {{"summary", "notes written"}})});
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    settings->mcpServers = {{"tracker", {{"command", "no-such-mcp-server-anywhere"}}}};
    QVERIFY(bool(desk.plane().saveSettings(*settings)));

    const QString id = runFromBar(desk, workspace.path(), "Write the release notes");
    QVERIFY2(!id.isEmpty(), "the task was not submitted");
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());

    const auto notices = itemsOf(*desk.window().timeline(), Kind::Notice);
    QStringList titles;
    for (const TimelineItem* notice : notices)
        titles << notice->title;
    const auto noticeTitled = [&](const QString& title) -> const TimelineItem* {
        for (const TimelineItem* notice : notices)
            if (notice->title == title)
                return notice;
        return nullptr;
    };
    const TimelineItem* offered = noticeTitled("1 skill offered: release-notes");
    QVERIFY2(offered && offered->state == State::Plain, qPrintable(titles.join("\n")));
    QVERIFY2(noticeTitled("Skills changed: changelog added"), qPrintable(titles.join("\n")));
    const TimelineItem* unavailable = noticeTitled("MCP server tracker is unavailable");
    QVERIFY2(unavailable, qPrintable(titles.join("\n")));
    QCOMPARE(unavailable->state, State::Warning);
    QVERIFY2(unavailable->detail.contains("no-such-mcp-server-anywhere") &&
                 unavailable->detail.endsWith("the task goes on without its tools"),
             qPrintable(unavailable->detail));
    const auto calls = itemsOf(*desk.window().timeline(), Kind::ToolCall);
    QVERIFY(!calls.empty());
    QCOMPARE(calls.front()->title, QStringLiteral("use skill release-notes"));
    QCOMPARE(calls.front()->state, State::Succeeded);

    // Opened again after the end, the side panel counts the whole task (it has no live events to count).
    desk.close();
    QVERIFY(desk.open());
    desk.window().selectTask(id);
    auto* numbers = desk.window().sidePanel()->findChild<QLabel*>("numbers");
    QTRY_VERIFY2(numbers->text().contains("Steps 3") && numbers->text().contains("tool calls 3"),
                 qPrintable(numbers->text()));
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
    desk.window().newTaskBar()->setDefaults({{"safe-mode"}, {}, "warren", "bwrap", "none"});

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

// "Ask for others": the agent's request to a host the task does not list is a card that says which host;
// "in every task of this workspace" lets it through and keeps the host in Settings for that workspace. The
// host is asked about before it is looked up, so a name that does not resolve shows the whole path.
void TestGuiWindow::aNetworkQuestionIsAnsweredForTheWorkspace() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    desk.useScript({turn("", "shell", {{"command", "curl -sS --noproxy '' --max-time 100 http://asked.invalid/ 2>&1; true"}}),
                    turn("", "finish", {{"summary", "probed"}})});
    auto* network = desk.window().newTaskBar()->findChild<QComboBox*>("network");
    network->setCurrentIndex(network->findData(QStringLiteral("ask")));
    const QString id = runFromBar(desk, workspace.path(), "Fetch a page");
    QVERIFY(desk.waitEvent(id, "approval_requested"));
    QPushButton* once = nullptr;
    QTRY_VERIFY((once = desk.window().timelineView()->findChild<QPushButton*>("approve")) != nullptr);
    QCOMPARE(once->text(), QStringLiteral("Allow once"));
    const auto cards = itemsOf(*desk.window().timeline(), Kind::Approval);
    QCOMPARE(cards.size(), std::size_t(1));
    QCOMPARE(cards.front()->title, QStringLiteral("reach asked.invalid:80"));
    QVERIFY2(cards.front()->detail.contains("asked.invalid:80 (GET)"), qPrintable(cards.front()->detail));
    QAction* workspaceAction = desk.window().timelineView()->findChild<QAction*>("alwaysInWorkspace");
    QVERIFY(workspaceAction);
    QVERIFY(desk.window().timelineView()->findChild<QAction*>("alwaysCommands") == nullptr);
    workspaceAction->trigger();
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QTRY_VERIFY(itemsOf(*desk.window().timeline(), Kind::Approval).front()->state == State::Approved);
    // Let through, then looked up: the name does not resolve.
    const auto calls = itemsOf(*desk.window().timeline(), Kind::ToolCall);
    QVERIFY(!calls.empty());
    QVERIFY2(bodyLines(*calls.front()).join('\n').contains("cannot resolve asked.invalid"),
             qPrintable(bodyLines(*calls.front()).join('\n')));
    const auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    const auto record = desk.plane().task(id.toStdString());
    QVERIFY(record && *record);
    QCOMPARE(settings->allowedHosts, (std::map<std::string, std::vector<std::string>>{
                                         {(*record)->workspace, {"asked.invalid:80"}}}));
}

// Warren > Secrets for hosts: a secret added there is listed by name, hosts and header (its value only in the
// secret store), offered by the new-task bar, given to the task it is ticked for and to that one only; a bad
// binding is refused with the reason; removed, it is no longer offered.
void TestGuiWindow::secretsAreAddedChosenForATaskAndRemoved() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    auto* bar = desk.window().newTaskBar();
    auto* offered = bar->findChild<QToolButton*>("secrets");
    QVERIFY(offered && offered->isHidden()); // none yet
    warren::ui::SecretsDialog* dialog = desk.window().showSecrets();
    auto* table = dialog->findChild<QTableWidget*>("secrets");
    QCOMPARE(table->rowCount(), 0);
    const QByteArray value = "ghp_window0123456789VALUE";
    dialog->findChild<QLineEdit*>("name")->setText("GH_TOKEN");
    dialog->findChild<QLineEdit*>("hosts")->setText("api.github.com");
    dialog->findChild<QLineEdit*>("header")->setText("Authorization: Bearer {}");
    dialog->findChild<QLineEdit*>("value")->setText(QString::fromLatin1(value));
    dialog->findChild<QCheckBox*>("inBody")->setChecked(true);
    QTest::mouseClick(dialog->findChild<QPushButton*>("add"), Qt::LeftButton);
    QTRY_COMPARE(table->rowCount(), 1);
    QCOMPARE(table->item(0, 3)->text(), QStringLiteral("yes"));
    QVERIFY(!dialog->findChild<QCheckBox*>("inBody")->isChecked());
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("GH_TOKEN"));
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("api.github.com"));
    QCOMPARE(table->item(0, 2)->text(), QStringLiteral("Authorization: Bearer {}"));
    QVERIFY(dialog->findChild<QLineEdit*>("value")->text().isEmpty());
    QFile database(desk.dataDir() + "/warren.db");
    QVERIFY(database.open(QIODevice::ReadOnly));
    QVERIFY(!database.readAll().contains(value));
    QTRY_VERIFY(!offered->isHidden());

    dialog->findChild<QLineEdit*>("name")->setText("BROAD");
    dialog->findChild<QLineEdit*>("hosts")->setText("*.com");
    dialog->findChild<QLineEdit*>("value")->setText(QStringLiteral("x-value-1234"));
    QTest::mouseClick(dialog->findChild<QPushButton*>("add"), Qt::LeftButton);
    auto* error = dialog->findChild<QLabel*>("error");
    QTRY_VERIFY(!error->isHidden());
    QVERIFY2(error->text().contains("*.com"), qPrintable(error->text()));
    QCOMPARE(table->rowCount(), 1);

    // Ticked for one task: that task's spec names it, the next one's does not.
    QTemporaryDir workspace;
    desk.useScript({turn("", "finish", {{"summary", "done"}})});
    offered->menu()->actions().front()->setChecked(true);
    const QString with = runFromBar(desk, workspace.path(), "Call the API");
    QVERIFY(desk.waitFinished(with));
    const auto specOf = [&](const QString& id) {
        const auto record = desk.plane().task(id.toStdString());
        return record && *record ? json::parse((*record)->spec).value("secrets", json::array()) : json();
    };
    QCOMPARE(specOf(with), json::array({"GH_TOKEN"}));
    const QString without = runFromBar(desk, workspace.path(), "Do something else");
    QVERIFY(desk.waitFinished(without));
    QCOMPARE(specOf(without), json::array());

    table->selectRow(0);
    QTest::mouseClick(dialog->findChild<QPushButton*>("remove"), Qt::LeftButton);
    QTRY_COMPARE(table->rowCount(), 0);
    QTRY_VERIFY(offered->isHidden());
}

void TestGuiWindow::stopEndsTheSandbox_data() {
    QTest::addColumn<bool>("byKey");
    QTest::newRow("the Stop button") << false;
    QTest::newRow("Ctrl+. (Task > Stop)") << true;
}

void TestGuiWindow::stopEndsTheSandbox() {
    QFETCH(bool, byKey);
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    const QByteArray marker = byKey ? "311.75" : "307.25";
    desk.useScript({turn("", "shell", {{"command", "sleep " + marker.toStdString()}}),
                    turn("", "finish", {{"summary", "slept"}})});
    const QString id = runFromBar(desk, workspace.path(), "Wait a while");
    QVERIFY(desk.waitEvent(id, "tool_call"));
    QTRY_VERIFY_WITH_TIMEOUT(processRunning(marker), 30000);
    QPushButton* stop = desk.window().button("stop");
    auto* stopAction = desk.window().findChild<QAction*>("stopAction");
    QTRY_VERIFY(stop->isEnabled() && stopAction->isEnabled());

    if (byKey) {
        desk.window().activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&desk.window()));
        QTest::keyClick(&desk.window(), Qt::Key_Period, Qt::ControlModifier);
    } else {
        QTest::mouseClick(stop, Qt::LeftButton);
    }
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Cancelled, desk.describe(id).constData());
    QTRY_VERIFY_WITH_TIMEOUT(!processRunning(marker), 30000);
    QVERIFY(!desk.window().button("stop")->isEnabled());
    QVERIFY(!stopAction->isEnabled());
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

// The reply bar under the timeline: disabled while the task runs, then a typed reply continues the finished
// task in its workspace, and the timeline shows the message where the conversation took it.
void TestGuiWindow::aReplyContinuesAFinishedTask() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    desk.useScript({turn("", "write_file", {{"path", "first.txt"}, {"content", "1\n"}}),
                    turn("", "finish", {{"summary", "wrote first.txt"}}),
                    turn("As you asked.", "write_file", {{"path", "second.txt"}, {"content", "2\n"}}),
                    turn("", "finish", {{"summary", "wrote second.txt"}})});
    const QString id = runFromBar(desk, workspace.path(), "Write first.txt");
    QVERIFY(!id.isEmpty());
    warren::ui::ReplyBar* bar = desk.window().replyBar();
    QVERIFY(!bar->sendButton()->isEnabled() && !bar->messageEdit()->isEnabled()); // queued: not yet
    QVERIFY2(bar->sendButton()->toolTip().contains("Stop it, then reply"), qPrintable(bar->sendButton()->toolTip()));
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QTRY_VERIFY(bar->messageEdit()->isEnabled() && bar->sendButton()->isEnabled());

    bar->messageEdit()->setText(QStringLiteral("Now write second.txt"));
    QTest::keyClick(bar->messageEdit(), Qt::Key_Return);
    QTRY_VERIFY(bar->messageEdit()->text().isEmpty()); // once the plane took the reply
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QVERIFY(QFile::exists(workspace.filePath("first.txt")));
    QVERIFY(QFile::exists(workspace.filePath("second.txt")));

    const TimelineModel& timeline = *desk.window().timeline();
    const auto asked = itemsOf(timeline, Kind::Task);
    QCOMPARE(asked.size(), std::size_t{2});
    QCOMPARE(asked[0]->prose, QStringLiteral("Write first.txt"));
    QCOMPARE(asked[1]->title, QStringLiteral("Your reply"));
    QCOMPARE(asked[1]->prose, QStringLiteral("Now write second.txt"));
    // In the order it happened: the first end, the reply, the work it asked for, the second end.
    int firstEnd = -1, reply = -1, secondWrite = -1, secondEnd = -1;
    for (int row = 0; row < timeline.rowCount(); ++row) {
        const TimelineItem* item = timeline.item(row);
        if (item->kind == Kind::Finished)
            (firstEnd < 0 ? firstEnd : secondEnd) = row;
        else if (item == asked[1])
            reply = row;
        else if (item->kind == Kind::FileChange && item->path == QStringLiteral("second.txt"))
            secondWrite = row;
    }
    QVERIFY2(firstEnd >= 0 && firstEnd < reply && reply < secondWrite && secondWrite < secondEnd,
             qPrintable(QString("%1 %2 %3 %4").arg(firstEnd).arg(reply).arg(secondWrite).arg(secondEnd)));
    QCOMPARE(itemsOf(timeline, Kind::Finished).back()->prose, QStringLiteral("wrote second.txt"));
    QVERIFY(bar->sendButton()->isEnabled());
}

// With the team preset the agent starts a helper: its card sits under the call that started it and says
// how it ended; its work is folded into it until the user clicks "Show its work", or asks for a file it
// changed from the side panel.
void TestGuiWindow::aSubAgentsWorkIsFoldedIntoItsCard() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    desk.window().newTaskBar()->setDefaults({{"team"}, {}, "warren", "bwrap", "none"});
    QTemporaryDir workspace;
    desk.useScript({turn("", "spawn_agent", {{"brief", "Write a.txt"}}), turn("", "wait_agents", json::object()),
                    turn("", "finish", {{"summary", "the helper wrote a.txt"}})},
                   {{"agent-1", {turn("", "write_file", {{"path", "a.txt"}, {"content", "a\n"}}),
                                 turn("", "finish", {{"summary", "wrote a.txt"}})}}});
    const QString id = runFromBar(desk, workspace.path(), "Get a helper to write a.txt");
    QVERIFY(!id.isEmpty());
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QVERIFY(QFile::exists(workspace.filePath("a.txt")));

    const TimelineModel& timeline = *desk.window().timeline();
    warren::ui::TimelineView* view = desk.window().timelineView();
    int agentRow = -1;
    for (int row = 0; row < timeline.rowCount(); ++row)
        if (timeline.item(row)->kind == Kind::Agent)
            agentRow = row;
    QVERIFY(agentRow > 0);
    const TimelineItem& agent = *timeline.item(agentRow);
    QCOMPARE(agent.title, QStringLiteral("agent-1 (worker)"));
    QCOMPARE(agent.state, State::Succeeded);
    QVERIFY2(agent.detail.startsWith(QString::fromUtf8("finished \u00b7 2 calls \u00b7 changed a.txt")),
             qPrintable(agent.detail));
    QCOMPARE(timeline.item(agentRow - 1)->kind, Kind::ToolCall); // the spawn_agent call that started it
    QVERIFY(!view->isRowHidden(agentRow));
    std::vector<int> work, shown;
    for (int row = 0; row < timeline.rowCount(); ++row) {
        if (timeline.item(row)->agentRow == static_cast<std::size_t>(agentRow))
            work.push_back(row);
        else if (!view->isRowHidden(row))
            shown.push_back(row);
    }
    QCOMPARE(agent.members, work.size());
    QVERIFY(work.size() >= 4); // its steps, its two calls, its file change
    for (const int row : work)
        QVERIFY2(view->isRowHidden(row), qPrintable(timeline.item(row)->title));
    QCOMPARE(shown.size(), static_cast<std::size_t>(timeline.rowCount()) - work.size()); // the task's own work shows

    // "Show its work (N cards)", clicked as a user does; the card stays where it was.
    const auto toggleOf = [&] {
        QStyleOptionViewItem option;
        option.initFrom(view->viewport());
        option.rect = view->visualRect(timeline.index(agentRow));
        option.font = view->font();
        return static_cast<warren::ui::TimelineDelegate*>(view->itemDelegate())
            ->toggleRect(option, timeline.index(agentRow));
    };
    const QRect toggle = toggleOf();
    QVERIFY(!toggle.isEmpty());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, toggle.center());
    QVERIFY(timeline.item(agentRow)->expanded);
    for (const int row : work)
        QVERIFY2(!view->isRowHidden(row), qPrintable(timeline.item(row)->title));
    QCOMPARE(toggleOf(), toggle);
    QVERIFY(!view->following());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, toggle.center());
    QVERIFY(!timeline.item(agentRow)->expanded);
    QVERIFY(view->isRowHidden(work.front()));

    // The side panel's file takes the user to the helper's change, unfolded.
    const int change = timeline.lastChangeOf(QStringLiteral("a.txt"));
    QVERIFY(change > agentRow && timeline.item(change)->agentRow == static_cast<std::size_t>(agentRow));
    emit desk.window().findChild<warren::ui::SidePanel*>()->changedFileActivated(QStringLiteral("a.txt"));
    QVERIFY(timeline.item(agentRow)->expanded);
    QVERIFY(!view->isRowHidden(change));
}

// A task run from the window is attended: the model's reply without a tool call ends the run waiting, the
// question shown and the reply bar enabled with the focus, and the answer continues the task.
void TestGuiWindow::theAgentsQuestionWaitsForTheUser() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    desk.useScript({turn("Which name should the file have?"),
                    turn("", "write_file", {{"path", "a.txt"}, {"content", "a\n"}}),
                    turn("", "finish", {{"summary", "wrote a.txt"}})});
    const QString id = runFromBar(desk, workspace.path(), "Write a file");
    QVERIFY(!id.isEmpty());
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Waiting, desk.describe(id).constData());
    warren::ui::ReplyBar* bar = desk.window().replyBar();
    QTRY_VERIFY(bar->messageEdit()->isEnabled() && bar->sendButton()->isEnabled());
    QCOMPARE(desk.window().focusWidget(), static_cast<QWidget*>(bar->messageEdit()));
    const auto ends = itemsOf(*desk.window().timeline(), Kind::Finished);
    QCOMPARE(ends.size(), std::size_t{1});
    QCOMPARE(ends[0]->title, QStringLiteral("Waiting for your reply"));
    QCOMPARE(ends[0]->prose, QStringLiteral("Which name should the file have?"));

    bar->messageEdit()->setText(QStringLiteral("a.txt"));
    QTest::keyClick(bar->messageEdit(), Qt::Key_Return);
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QVERIFY(QFile::exists(workspace.filePath("a.txt")));
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
    QVERIFY(submitted.wait(30000));
    QCOMPARE(submitted.size(), 1);
    const QString id = submitted.first().first().toString();
    // Live: the agent's first tool call shows while the demo still runs (its script is paced, about a
    // second a step), and the reply box is closed meanwhile.
    QTRY_VERIFY_WITH_TIMEOUT(!itemsOf(*desk.window().timeline(), Kind::ToolCall).empty(), 60000);
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Running, desk.describe(id).constData());
    QVERIFY(!desk.window().replyBar()->messageEdit()->isEnabled());
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    auto* tasks = desk.window().taskList();
    const QModelIndex row = tasks->index(tasks->rowOf(id.toStdString()));
    QVERIFY(row.data(warren::ui::TaskListModel::DemoRole).toBool());
    QVERIFY(row.data().toString().startsWith("Demo: "));
    QVERIFY(!itemsOf(*desk.window().timeline(), Kind::FileChange).empty());

    // The demo's recording has no turn for a reply: the box stays closed and says why, and a reply sent
    // anyway (warren reply, another face) is refused, leaving the demo as it ended.
    warren::ui::ReplyBar* bar = desk.window().replyBar();
    QTRY_VERIFY(desk.window().button("rerun")->isEnabled()); // the header shows the ended task
    QVERIFY(!bar->messageEdit()->isEnabled() && !bar->sendButton()->isEnabled());
    QVERIFY2(bar->sendButton()->toolTip().contains("recorded agent: it takes no reply"),
             qPrintable(bar->sendButton()->toolTip()));
    QVERIFY2(bar->messageEdit()->placeholderText().contains(
                 "recorded agent: it takes no reply"), // in the box, not only on hover
             qPrintable(bar->messageEdit()->placeholderText()));
    const warren::Status replied = desk.plane().reply(id.toStdString(), "now do more");
    QVERIFY(!replied);
    QVERIFY2(replied.error().message.find("scripted demo") != std::string::npos,
             replied.error().message.c_str());
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
}

// Ctrl+, opens Settings; Ctrl+N puts the typing in the new-task bar; Stop's key is off without a task.
void TestGuiWindow::keyboardShortcutsReachSettingsAndTheNewTaskBar() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    desk.window().activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&desk.window()));
    QTest::keyClick(&desk.window(), Qt::Key_Comma, Qt::ControlModifier);
    QTRY_VERIFY(desk.window().settingsDialog() && desk.window().settingsDialog()->isVisible());
    desk.window().settingsDialog()->reject();
    QTRY_VERIFY(!desk.window().settingsDialog()); // closed, and deleted
    desk.window().activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&desk.window()));
    desk.window().findChild<QListView*>("tasks")->setFocus();
    QTest::keyClick(&desk.window(), Qt::Key_N, Qt::ControlModifier);
    QTRY_COMPARE(QApplication::focusWidget(), desk.window().newTaskBar()->promptEdit());
    auto* stop = desk.window().findChild<QAction*>("stopAction");
    QVERIFY(stop);
    QCOMPARE(stop->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Period));
    QVERIFY(!stop->isEnabled());
}

// Quit with a task running asks, and says what happens to it; "Keep Warren open" keeps it running, "Quit
// anyway" closes the window, and Warren opened again shows the task as the question said: interrupted,
// with Resume.
void TestGuiWindow::quittingWithARunningTaskAsksAndSaysWhatHappens() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    desk.useScript({turn("", "shell", {{"command", "echo begun > begun.txt && sleep 313.5"}}),
                    turn("", "finish", {{"summary", "slept"}})});
    const QString id = runFromBar(desk, workspace.path(), "Wait a while");
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(workspace.filePath("begun.txt")), 60000);
    QTRY_VERIFY(desk.window().button("stop")->isEnabled()); // the list knows it runs

    desk.window().findChild<QAction*>("quitAction")->trigger();
    QMessageBox* question = nullptr;
    QTRY_VERIFY((question = desk.window().findChild<QMessageBox*>("quitQuestion")) && question->isVisible());
    QVERIFY2(question->text().contains("A task is running on this computer") &&
                 question->text().contains("interrupted") && question->text().contains("Resume continues it"),
             qPrintable(question->text()));
    QTest::mouseClick(question->findChild<QPushButton*>("keepOpen"), Qt::LeftButton);
    QTRY_VERIFY(!desk.window().findChild<QMessageBox*>("quitQuestion"));
    QVERIFY(desk.window().isVisible());
    QCOMPARE(desk.status(id), warren::control::TaskStatus::Running);

    desk.window().findChild<QAction*>("quitAction")->trigger();
    QTRY_VERIFY((question = desk.window().findChild<QMessageBox*>("quitQuestion")) && question->isVisible());
    QTest::mouseClick(question->findChild<QPushButton*>("quitAnyway"), Qt::LeftButton);
    QTRY_VERIFY(!desk.window().isVisible());

    desk.close();
    QVERIFY(desk.open());
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Interrupted, desk.describe(id).constData());
    QTRY_VERIFY(desk.window().taskList()->rowOf(id.toStdString()) >= 0);
    desk.window().selectTask(id);
    QVERIFY(desk.window().button("resume")->isEnabled());
}

void TestGuiWindow::helpSaysTheVersion() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    desk.window().findChild<QAction*>("aboutAction")->trigger();
    QMessageBox* about = nullptr;
    QTRY_VERIFY((about = desk.window().findChild<QMessageBox*>("aboutWarren")) && about->isVisible());
    QVERIFY2(QRegularExpression("Warren \\d+\\.\\d+\\.\\d+").match(about->text()).hasMatch(),
             qPrintable(about->text()));
    QVERIFY2(about->text().contains(desk.dataDir()),
             qPrintable(about->text())); // which plane: this data directory
    // Nothing is offered that this build does not have: no manual is installed beside it.
    QVERIFY2(!about->text().contains("man warren"), qPrintable(about->text()));
}

// On an 800×600 screen the whole window fits: nothing of it needs more width or height than the screen has
// (the new-task bar takes two rows, the buttons wrap, the panels narrow), with a task open and without one.
void TestGuiWindow::fitsASmallScreen() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    // What each part needs, for the failure message: the panes, and any widget in them over 200 px wide.
    const auto describe = [&] {
        const auto size = [](const QWidget* widget) {
            return QString("%1×%2").arg(widget->minimumSizeHint().width()).arg(widget->minimumSizeHint().height());
        };
        QString parts = "window " + size(&desk.window()) + ": new-task bar " + size(desk.window().newTaskBar());
        for (const QWidget* widget : desk.window().newTaskBar()->findChildren<QWidget*>())
            if (widget->isVisible() && widget->minimumSizeHint().width() > 100)
                parts += QString(" (%1 %2 %3)").arg(widget->metaObject()->className(), widget->objectName(), size(widget));
        const auto* splitter = desk.window().findChild<QSplitter*>();
        for (int pane = 0; splitter && pane < splitter->count(); ++pane) {
            parts += QString(" pane %1 %2").arg(pane).arg(size(splitter->widget(pane)));
            for (const QWidget* widget : splitter->widget(pane)->findChildren<QWidget*>())
                if (widget->isVisible() && widget->minimumSizeHint().width() > 200)
                    parts += QString(" (%1 %2 %3)").arg(widget->metaObject()->className(), widget->objectName(), size(widget));
        }
        return parts;
    };
    QVERIFY2(desk.window().minimumSizeHint().width() <= 800 && desk.window().minimumSizeHint().height() <= 600,
             qPrintable(describe()));
    desk.window().resize(800, 600);
    QTest::mouseClick(desk.window().findChild<QPushButton*>("demo"), Qt::LeftButton);
    QTRY_VERIFY(desk.window().taskList()->rowCount() == 1);
    QTRY_VERIFY(!desk.window().findChild<QLabel*>("title")->text().isEmpty());
    QVERIFY2(desk.window().minimumSizeHint().width() <= 800 && desk.window().minimumSizeHint().height() <= 600,
             qPrintable(describe()));
}

// A finished task of 1,700 events (written to the store as a run leaves it) opens with its latest page;
// reaching the top of the timeline pages earlier events in above what is shown, the card the user was
// reading staying where it was, until the cards are those of the whole task, each once; the side panel
// counts the whole task from the start; live events still append once.
void TestGuiWindow::aLongTaskOpensAtItsEndAndPagesInAsTheUserScrollsUp() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    const std::uint64_t total = 1700;
    const std::vector<json> events = warren::test::longTaskEvents(total);
    QTemporaryDir workspace;
    const std::string id = "t-00000000fa9e";
    {
        auto store = warren::control::openSqliteStore((desk.dataDir() + "/warren.db").toStdString());
        QVERIFY(store);
        warren::control::TaskRecord task;
        task.id = id;
        task.prompt = "a long task";
        task.workspace = workspace.path().toStdString();
        task.spec = "{}";
        task.status = warren::control::TaskStatus::Succeeded;
        task.createdAt = "2026-11-29T10:00:00.000Z";
        QVERIFY((*store)->insertTask(task));
        std::vector<warren::control::EventRow> rows;
        for (const json& event : events)
            rows.push_back({id, event["seq"].get<std::uint64_t>(), event["ts"].get<std::string>(),
                            event["type"].get<std::string>(), event["step"].get<std::uint64_t>(),
                            event.value("tool", ""), event.dump()});
        QVERIFY((*store)->appendEvents(rows));
    }
    TimelineModel whole; // what one load of every event shows
    whole.reset(QString::fromStdString(id), "a long task");
    whole.append(events);
    const auto cards = [](const TimelineModel& model) {
        std::vector<std::pair<std::uint64_t, QString>> all;
        for (int row = 1; row < model.rowCount(); ++row)
            all.emplace_back(model.item(row)->firstSeq, model.item(row)->title + "|" + model.item(row)->detail + "|" +
                                                            model.item(row)->body.text());
        return all;
    };

    desk.window().taskList()->refresh(id);
    QTRY_VERIFY(desk.window().taskList()->rowOf(id) >= 0);
    desk.window().selectTask(QString::fromStdString(id));
    const TimelineModel& timeline = *desk.window().timeline();
    auto* view = desk.window().timelineView();
    QTRY_COMPARE(timeline.firstSeq(), total - warren::ui::MainWindow::kPageEvents + 1); // the latest page only
    QVERIFY(timeline.hasEarlier());
    QCOMPARE(timeline.item(timeline.rowCount() - 1)->kind, Kind::Finished);
    QVERIFY(view->following()); // at the end, and nothing more was read while it stays there
    QCOMPARE(timeline.firstSeq(), total - warren::ui::MainWindow::kPageEvents + 1);
    // The side panel counts the whole task once the earlier events are counted, a page at a time.
    QTRY_VERIFY(!desk.window().countingEarlier());
    QCOMPARE(timeline.activity().tokensIn, whole.activity().tokensIn);
    QCOMPARE(timeline.activity().modelCalls, whole.activity().modelCalls);
    QCOMPARE(timeline.activity().toolCalls, whole.activity().toolCalls);
    QCOMPARE(timeline.activity().steps, whole.activity().steps);
    QVERIFY(timeline.activity().files == whole.activity().files);
    QVERIFY2(desk.window().sidePanel()->findChild<QLabel*>("numbers")->text().contains(
                 QString::number(whole.activity().tokensIn)),
             qPrintable(desk.window().sidePanel()->findChild<QLabel*>("numbers")->text()));

    // Up to the top, page after page; the card that was at the top of the view stays where it was.
    QScrollBar* bar = view->verticalScrollBar();
    for (int page = 0; page < 10 && timeline.hasEarlier(); ++page) {
        bar->setValue(bar->minimum());
        const std::uint64_t first = timeline.firstSeq();
        const auto shown = cards(timeline);
        // A card made by an event that makes one whatever came before it: a step's rule.
        int anchor = 1;
        while (timeline.item(anchor)->kind != Kind::Step)
            ++anchor;
        const std::uint64_t anchorSeq = timeline.item(anchor)->firstSeq;
        const int anchorTop = view->visualRect(timeline.index(anchor)).top();
        QTRY_VERIFY(timeline.firstSeq() < first);
        QVERIFY(!view->following());
        int moved = 1;
        while (timeline.item(moved)->firstSeq != anchorSeq)
            ++moved;
        QCOMPARE(view->visualRect(timeline.index(moved)).top(), anchorTop);
        // What was shown is still shown below the new page, but for cards of calls that joined their call.
        const auto now = cards(timeline);
        const std::uint64_t fromStep = (first - 1) / 7 * 7 + 8;
        QVERIFY(std::equal(std::find_if(shown.begin(), shown.end(), [&](const auto& c) { return c.first >= fromStep; }),
                           shown.end(),
                           std::find_if(now.begin(), now.end(), [&](const auto& c) { return c.first >= fromStep; })));
    }
    QVERIFY(!timeline.hasEarlier());
    QCOMPARE(timeline.firstSeq(), 1u);
    QCOMPARE(cards(timeline), cards(whole)); // every card, in order, once
    QCOMPARE(timeline.activity().tokensIn, whole.activity().tokensIn);

    // Live events for the open task append after what is shown, once each, whatever is repeated.
    const auto more = warren::test::longTaskEvents(total + 2); // total + 1: a file change, + 2: the end
    for (const json& event : {more[total - 1], more[total], more[total], more[total + 1], more[total + 1]})
        emit desk.plane().eventStored(id, event);
    desk.window().flushEvents();
    QCOMPARE(timeline.rowCount(), whole.rowCount() + 2);
    QCOMPARE(timeline.item(timeline.rowCount() - 2)->firstSeq, total + 1);
    QCOMPARE(timeline.lastSeq(), total + 2);
}

QTEST_MAIN(TestGuiWindow)
#include "tst_gui_window.moc"
