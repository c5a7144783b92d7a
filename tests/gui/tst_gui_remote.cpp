// Remote mode in the window, against a real warrend on a PostgreSQL of its own (tests/support/WarrendServer)
// with real sandboxes: the desktop session opens what the saved choice names (the real opener and
// chooser, keys in the 0600 file), Settings switch it to the server and show the account, the scripted
// demo runs there while its timeline fills in the window, an approval is answered from the window, Apply
// changes brings the change into the local workspace, a lost connection and a revoked key are shown, and
// two users each see only their own tasks.
#include "app/control/WaitFor.h"
#include "app/remote/PlaneChoice.h"
#include "app/remote/PlaneOpener.h"
#include "app/remote/RemoteControlPlane.h"
#include "app/remote/RemotePlaneChooser.h"
#include "app/store/sqlite/SqliteStore.h"
#include "tests/gui/DesktopFixture.h"
#include "tests/support/HeldServer.h"
#include "tests/support/WarrenRun.h"
#include "tests/support/WarrendServer.h"
#include "ui/desktop/DesktopSession.h"
#include "ui/models/TaskListModel.h"
#include "ui/models/TimelineModel.h"
#include "ui/views/TimelineView.h"
#include "ui/windows/ControlPlaneBox.h"
#include "ui/windows/MainWindow.h"
#include "ui/windows/SettingsDialog.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTcpServer>
#include <QtTest>

using namespace warren;
using control::PlaneKind;
using control::TaskStatus;
using test::deadUrl;
using test::WarrendServer;
using ui::MainWindow;
using ui::TimelineItem;
using Kind = TimelineItem::Kind;
using State = TimelineItem::State;

namespace {

constexpr int kTaskTimeoutMs = 120000;

// Saves Settings as a user's click does: from inside the event loop, so that the window and the plane the
// switch deletes (deleteLater) go when control is back in that loop, as in the app. From outside any loop, Qt
// would delete them in whichever loop runs next, even the one a call of that plane waits in.
void saveInTheEventLoop(QDialog* dialog) {
    QTimer::singleShot(0, dialog, [dialog] {
        QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save), Qt::LeftButton);
    });
}

// One person's desktop: a data directory, the real chooser and opener, and the session over them.
class RemoteDesk {
public:
    bool start() {
        m_chooser =
            std::make_unique<remote::RemotePlaneChooser>(m_data.path().toStdString(), /*useKeychain=*/false);
        control::LocalOptions options;
        options.dataDir = m_data.path().toStdString();
        options.useKeychain = false;
        if (qgetenv("WARREN_AGENT_STATIC") == "0") // a sanitizer-built agent, as DesktopFixture explains
            options.extraProfileLayers.push_back(nlohmann::json{
                {"env", {{"ASAN_OPTIONS", "detect_leaks=0"}}}, {"limits", {{"memory_mb", 0u}}}});
        m_session = std::make_unique<ui::DesktopSession>(
            [options](control::Done<control::OpenedPlane> done) { remote::openChosenPlane(options, done); },
            m_chooser.get());
        QSignalSpy opened(m_session.get(), &ui::DesktopSession::windowOpened);
        QSignalSpy failed(m_session.get(), &ui::DesktopSession::failed);
        m_session->start();
        if (!QTest::qWaitFor([&] { return !opened.isEmpty() || !failed.isEmpty(); }, 60000) || opened.isEmpty()) {
            qWarning("the desktop did not open: %s",
                     failed.isEmpty() ? "no answer" : qPrintable(failed.first().first().toString()));
            return false;
        }
        return true;
    }
    // Saves the choice as Settings would (the key to the secrets file), then opens the desktop on it.
    bool startRemote(const QString& url, const QString& key) {
        remote::RemotePlaneChooser chooser(m_data.path().toStdString(), false);
        if (auto saved = chooser.save({PlaneKind::Remote, url.toStdString()}, key.toStdString()); !saved) {
            qWarning("%s", saved.error().message.c_str());
            return false;
        }
        return start();
    }

    QString dataDir() const { return m_data.path(); }
    ui::DesktopSession& session() { return *m_session; }
    MainWindow& window() { return *m_session->window(); }
    control::ControlPlane& plane() { return *m_session->plane(); }
    QString planeLabel() { return window().findChild<QLabel*>("controlPlane")->text(); }
    QLabel* connection() { return window().findChild<QLabel*>("connection"); }
    TaskStatus status(const QString& id) {
        auto task = control::waitFor<std::optional<control::TaskRecord>>(
            [&](auto done) { plane().task(id.toStdString(), done); });
        return task && *task ? (*task)->status : TaskStatus::Queued;
    }
    bool lists(const QString& id) { return window().taskList()->rowOf(id.toStdString()) >= 0; }

private:
    QTemporaryDir m_data;
    std::unique_ptr<remote::RemotePlaneChooser> m_chooser;
    std::unique_ptr<ui::DesktopSession> m_session;
};

// The demo with approvals before shell and file edits, so it waits for the window mid-run.
QString submitCautiousDemo(RemoteDesk& desk) {
    control::TaskSpec spec;
    spec.approval = control::ApprovalMode::Ask;
    spec.presets = {"safe-mode"};
    auto task = control::waitFor<control::TaskRecord>([&](auto done) { desk.plane().submitDemo(spec, done); });
    if (!task) {
        qWarning("%s", task.error().message.c_str());
        return {};
    }
    return QString::fromStdString(task->id);
}

int countOf(const ui::TimelineModel& model, Kind kind, std::optional<State> state = std::nullopt) {
    int found = 0;
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.item(row)->kind == kind && (!state || model.item(row)->state == *state))
            ++found;
    return found;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void choose(QComboBox* box, const QString& data) {
    box->setCurrentIndex(box->findData(data));
}

// Answers the next message box that asks, once it is shown (it runs its own loop).
void answerNextQuestion(QMessageBox::StandardButton answer, QString* asked) {
    auto* poll = new QTimer;
    QObject::connect(poll, &QTimer::timeout, poll, [poll, answer, asked] {
        for (QWidget* widget : QApplication::topLevelWidgets()) {
            auto* box = qobject_cast<QMessageBox*>(widget);
            if (box && box->isVisible()) {
                *asked = box->text();
                box->button(answer)->click();
                poll->deleteLater();
                return;
            }
        }
    });
    poll->start(20);
}

// A task asleep on its question: a `warren run` (here, or on the server with --remote) whose terminal went.
// Its id, or empty.
QString sleepingTask(const QString& dataDir, const QString& workspace, const QStringList& where,
                     const QString& key) {
    const QString scriptPath = dataDir + "/move-script-" + QFileInfo(workspace).fileName() + ".json";
    QFile readme(workspace + "/README.md");
    QFile script(scriptPath);
    if (!readme.open(QIODevice::WriteOnly) || readme.write("# a project\n") <= 0 ||
        !script.open(QIODevice::WriteOnly) || script.write(R"({"turns": [
  {"content": "Asking first.", "tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"path": "answered.txt", "content": "moved and answered\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "written after the move"}}]}]})") <= 0)
        return {};
    readme.close();
    script.close();
    QProcess run; // its stdin open: the question waits for the terminal's answer
    QProcessEnvironment environment = test::warrenEnvironment(dataDir);
    environment.insert("WARREN_REMOTE_KEY", key);
    run.setProcessEnvironment(environment);
    run.start(test::warrenBinary(),
              QStringList{"run", "--json", "--approve", "ask", "--preset", "safe-mode", "--set",
                          "idle_sleep_sec=1", "--provider", "scripted:" + scriptPath, "--workspace",
                          workspace, "--data-dir", dataDir} +
                  where + QStringList{"write answered.txt"});
    QByteArray out;
    if (!test::readEventsUntil(
            run, [](const nlohmann::json& event) { return event.value("type", "") == "task_slept"; }, &out)) {
        qWarning("warren run did not fall asleep: %s", out.constData());
        return {};
    }
    QString id;
    for (const auto& event : test::jsonLines(out))
        if (event.value("type", "") == "task_started")
            id = QString::fromStdString(event["data"].value("task_id", ""));
    // Its record says so once the terminal says so; then the terminal goes and the task sleeps on.
    run.setReadChannel(QProcess::StandardError);
    QByteArray err;
    while (where.isEmpty() && !err.contains("the task sleeps until its question is answered") &&
           run.waitForReadyRead(60000))
        err += run.readAllStandardError();
    run.kill();
    run.waitForFinished();
    return id;
}

} // namespace

class TestGuiRemote : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void settingsSwitchToTheServerAndShowTheAccount();
    void unreachableServerAtStartOpensThisComputer();
    void switchingAwayAsksWhileLocalTasksRun();
    void demoRunsRemotelyLiveWithApprovalAndComesHome();
    void changedLocalFilesAreLeftAlone();
    void lostConnectionIsShownAndCleared();
    void revokedKeyAsksForANewOne();
    void eachUserSeesOnlyTheirOwnTasks();
    void aStuckServerNeverFreezesTheWindow();
    void aSleepingTaskMovesToTheServerFromTheWindow();
    void aServersTaskMovesHomeFromTheWindow();

private:
    std::unique_ptr<WarrendServer> m_server;
    QString m_alice, m_bob;
};

void TestGuiRemote::initTestCase() {
    qunsetenv("WARREN_REMOTE_KEY"); // the keys come from Settings here
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_alice = m_server->addUser("alice", "acme");
    m_bob = m_server->addUser("bob", "acme");
    QVERIFY(m_alice.startsWith("wrn_") && m_bob.startsWith("wrn_"));
    const auto quota = m_server->admin({"set-quota", "--tenant", "acme", "--max-concurrent", "3",
                                        "--memory-mb", "1024", "--tokens-per-month", "500000"});
    QVERIFY2(quota.exitCode == 0, quota.err.constData());
    QVERIFY2(m_server->start(&error), qPrintable(error));
}

void TestGuiRemote::settingsSwitchToTheServerAndShowTheAccount() {
    RemoteDesk desk;
    QVERIFY(desk.start());
    QVERIFY2(desk.planeLabel().startsWith("local, "), qPrintable(desk.planeLabel()));
    QVERIFY(desk.window().button("apply")->isHidden()); // changes land in the workspace itself here

    desk.window().showSettings();
    ui::SettingsDialog* dialog = desk.window().settingsDialog();
    QVERIFY(dialog);
    ui::ControlPlaneBox* box = dialog->controlPlaneBox();
    QVERIFY(box);
    auto* url = dialog->findChild<QLineEdit*>("serverUrl");
    auto* key = dialog->findChild<QLineEdit*>("serverKey");
    auto* test = dialog->findChild<QPushButton*>("testServer");
    QVERIFY(!url->isEnabled() && !test->isEnabled()); // Local asks for no server
    choose(dialog->findChild<QComboBox*>("planeKind"), "remote");
    QVERIFY(url->isEnabled() && key->isEnabled() && test->isEnabled());
    QCOMPARE(key->echoMode(), QLineEdit::Password);
    QVERIFY(dialog->findChild<QLabel*>("serverKeyState")->text().contains("No key stored"));
    QSignalSpy tested(box, &ui::ControlPlaneBox::testFinished);

    // Nothing listens there.
    url->setText(deadUrl());
    key->setText(m_alice);
    QTest::mouseClick(test, Qt::LeftButton);
    QTRY_COMPARE(tested.count(), 1);
    QVERIFY2(box->testResult().contains("nothing listens there"), qPrintable(box->testResult()));
    // The server, with a key it does not know.
    url->setText(m_server->url());
    key->setText(QStringLiteral("wrn_") + QString(48, 'x'));
    QTest::mouseClick(test, Qt::LeftButton);
    QTRY_COMPARE(tested.count(), 2);
    QVERIFY2(box->testResult().contains("refused the API key"), qPrintable(box->testResult()));
    // Alice's key: who she is, what runs and what is left.
    key->setText(m_alice);
    QTest::mouseClick(test, Qt::LeftButton);
    QTRY_COMPARE(tested.count(), 3);
    const QString account = box->testResult();
    QVERIFY2(account.contains("Connected to warrend "), qPrintable(account));
    QVERIFY2(account.contains("You are alice, tenant acme"), qPrintable(account));
    QVERIFY2(account.contains("Tasks running: 0 of 3"), qPrintable(account));
    QVERIFY2(account.contains(QLocale().toString(500000)), qPrintable(account));
    QVERIFY2(account.contains("memory 1") && account.contains("MiB"), qPrintable(account));
    QVERIFY(!account.contains(m_alice));

    QSignalSpy reopened(&desk.session(), &ui::DesktopSession::windowOpened);
    saveInTheEventLoop(dialog);
    QVERIFY(reopened.wait(30000));
    // The same desktop, now over the server.
    QVERIFY2(desk.planeLabel().startsWith("alice at " + m_server->url() + " (warrend "),
             qPrintable(desk.planeLabel()));
    QVERIFY(!desk.window().button("apply")->isHidden());
    // The choice is saved without the key; the key is in the secrets file, as `warren secrets set remote` has
    // it.
    const QByteArray saved = readAll(desk.dataDir() + "/" + remote::kPlaneChoiceFile);
    QVERIFY2(saved.contains("\"remote\"") && saved.contains(m_server->url().toUtf8()), saved.constData());
    QVERIFY(!saved.contains(m_alice.toUtf8()));
    QVERIFY(readAll(desk.dataDir() + "/secrets.json").contains(m_alice.toUtf8()));

    // Over the server, what only this computer's plane uses is shown as such, and the key goes to the server.
    desk.window().showSettings();
    dialog = desk.window().settingsDialog();
    QVERIFY(dialog);
    QVERIFY(!dialog->findChild<QComboBox*>("backend")->isEnabled());
    QVERIFY(dialog->findChild<QLabel*>("serverKeyState")->text().contains("A key is stored"));
    QVERIFY(dialog->findChild<QLineEdit*>("serverKey")->text().isEmpty());
    auto* provider = dialog->findChild<QComboBox*>("provider");
    choose(provider, "openai");
    QVERIFY(!dialog->findChild<QPushButton*>("test")->isEnabled()); // the server calls the model
    QTRY_VERIFY2(dialog->findChild<QLabel*>("keyState")->text().contains("on the server"),
             qPrintable(dialog->findChild<QLabel*>("keyState")->text()));

    // And back to this computer, with no restart.
    choose(dialog->findChild<QComboBox*>("planeKind"), "local");
    choose(provider, "");
    saveInTheEventLoop(dialog);
    QVERIFY(reopened.wait(30000));
    QVERIFY2(desk.planeLabel().startsWith("local, "), qPrintable(desk.planeLabel()));
    QVERIFY(readAll(desk.dataDir() + "/" + remote::kPlaneChoiceFile).contains("\"local\""));
}

// A server that cannot be reached keeps no window shut: this computer's plane opens, and says why.
void TestGuiRemote::unreachableServerAtStartOpensThisComputer() {
    RemoteDesk desk;
    const QString url = deadUrl();
    QVERIFY(desk.startRemote(url, m_alice));
    QVERIFY2(desk.planeLabel().startsWith("local, "), qPrintable(desk.planeLabel()));
    const QString notice = desk.window().statusBar()->currentMessage();
    QVERIFY2(notice.contains("could not be used") && notice.contains(url) && notice.contains("Settings"),
             qPrintable(notice));
    // The choice stays the server's, so Settings switch back with one Save.
    auto choice = remote::loadPlaneChoice(desk.dataDir().toStdString());
    QVERIFY(choice && choice->kind == PlaneKind::Remote);
}

// Closing this computer's plane stops its agents: the switch asks first, and No keeps everything as it is.
void TestGuiRemote::switchingAwayAsksWhileLocalTasksRun() {
    RemoteDesk desk;
    QVERIFY(desk.start());
    const QString id = submitCautiousDemo(desk); // here: it waits for an approval in the local sandbox
    QVERIFY(!id.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(desk.status(id), TaskStatus::Running, kTaskTimeoutMs);
    desk.window().showSettings();
    ui::SettingsDialog* dialog = desk.window().settingsDialog();
    QVERIFY(dialog);
    choose(dialog->findChild<QComboBox*>("planeKind"), "remote");
    dialog->findChild<QLineEdit*>("serverUrl")->setText(m_server->url());
    dialog->findChild<QLineEdit*>("serverKey")->setText(m_alice);
    auto* save = dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save);

    QString asked;
    answerNextQuestion(QMessageBox::No, &asked);
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_VERIFY2(asked.contains("A task running on this computer will be stopped"), qPrintable(asked));
    QVERIFY(desk.window().settingsDialog() == dialog); // still open, nothing saved
    QVERIFY(remote::loadPlaneChoice(desk.dataDir().toStdString())->kind == PlaneKind::Local);
    QCOMPARE(desk.status(id), TaskStatus::Running);

    QSignalSpy reopened(&desk.session(), &ui::DesktopSession::windowOpened);
    answerNextQuestion(QMessageBox::Yes, &asked);
    QTest::mouseClick(save, Qt::LeftButton);
    QVERIFY(reopened.wait(30000));
    QVERIFY2(desk.planeLabel().startsWith("alice at "), qPrintable(desk.planeLabel()));
}

void TestGuiRemote::demoRunsRemotelyLiveWithApprovalAndComesHome() {
    RemoteDesk desk;
    QVERIFY(desk.startRemote(m_server->url(), m_alice));
    QVERIFY2(desk.planeLabel().startsWith("alice at "), qPrintable(desk.planeLabel()));
    const QString id = submitCautiousDemo(desk);
    QVERIFY(!id.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(desk.lists(id), 30000);
    desk.window().selectTask(id);
    const ui::TimelineModel& timeline = *desk.window().timeline();

    // Live: the first tool call and the question it waits on arrive while the task runs on the server.
    QTRY_VERIFY_WITH_TIMEOUT(countOf(timeline, Kind::Approval, State::Waiting) == 1, kTaskTimeoutMs);
    QVERIFY(countOf(timeline, Kind::ToolCall) >= 1);
    QVERIFY(!control::isFinal(desk.status(id))); // it waits for the window
    QVERIFY(desk.window().button("stop")->isEnabled());
    QVERIFY(!desk.window().button("apply")->isEnabled()); // no final change yet

    // Every question answered from the window, as a user does; the task goes on only then.
    int answered = 0;
    while (true) {
        QTRY_VERIFY_WITH_TIMEOUT(countOf(timeline, Kind::Approval, State::Waiting) == 1 ||
                                     control::isFinal(desk.status(id)),
                                 kTaskTimeoutMs);
        if (control::isFinal(desk.status(id)))
            break;
        QPushButton* approve = nullptr;
        QTRY_VERIFY((approve = desk.window().timelineView()->findChild<QPushButton*>("approve")) != nullptr &&
                    approve->isVisible());
        QTest::mouseClick(approve, Qt::LeftButton);
        ++answered;
        QTRY_COMPARE_WITH_TIMEOUT(countOf(timeline, Kind::Approval, State::Approved), answered,
                                  kTaskTimeoutMs);
        QVERIFY(answered < 10);
    }
    QVERIFY(answered >= 2); // the shell and the edit
    QTRY_COMPARE_WITH_TIMEOUT(desk.status(id), TaskStatus::Succeeded, kTaskTimeoutMs);
    QTRY_VERIFY(countOf(timeline, Kind::Finished) == 1);
    QCOMPARE(countOf(timeline, Kind::Approval, State::Approved), answered);
    QVERIFY(countOf(timeline, Kind::FileChange) >= 1);

    // The change is on the server's copy; the local workspace still has the typo until it is applied.
    auto task = control::waitFor<std::optional<control::TaskRecord>>(
        [&](auto done) { desk.plane().task(id.toStdString(), done); });
    QVERIFY(task && *task);
    const QString greet = QString::fromStdString((*task)->workspace) + "/greet.sh";
    QVERIFY2(readAll(greet).contains("Helo,"), greet.toUtf8().constData());
    QPushButton* apply = desk.window().button("apply");
    QTRY_VERIFY(apply->isEnabled());
    QTest::mouseClick(apply, Qt::LeftButton);
    QDialog* plan = nullptr;
    QTRY_VERIFY((plan = desk.window().findChild<QDialog*>("applyChanges")) != nullptr);
    const auto* files = plan->findChild<QListWidget*>("toApply");
    QVERIFY(files);
    QCOMPARE(files->count(), 1);
    QCOMPARE(files->item(0)->text(), QStringLiteral("greet.sh"));
    QVERIFY(!plan->findChild<QListWidget*>("conflicts"));
    QVERIFY(readAll(greet).contains("Helo,")); // showing the plan applies nothing
    QTest::mouseClick(plan->findChild<QPushButton*>("confirmApply"), Qt::LeftButton);
    QTRY_VERIFY(readAll(greet).contains("Hello,"));
    QTRY_VERIFY2(desk.window().statusBar()->currentMessage().startsWith("Applied 1 file"),
             qPrintable(desk.window().statusBar()->currentMessage()));
}

// A file the user changed here since the upload is listed with why, and not overwritten.
void TestGuiRemote::changedLocalFilesAreLeftAlone() {
    RemoteDesk desk;
    QVERIFY(desk.startRemote(m_server->url(), m_alice));
    auto task = control::waitFor<control::TaskRecord>([&](auto done) { desk.plane().submitDemo({}, done); });
    QVERIFY2(task, task ? "" : task.error().message.c_str());
    const QString id = QString::fromStdString(task->id);
    QTRY_COMPARE_WITH_TIMEOUT(desk.status(id), TaskStatus::Succeeded, kTaskTimeoutMs);
    QTRY_VERIFY(desk.lists(id));
    desk.window().selectTask(id);
    const QString greet = QString::fromStdString(task->workspace) + "/greet.sh";
    QFile file(greet);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write("echo 'mine, edited here'\n");
    file.close();

    QTRY_VERIFY(desk.window().button("apply")->isEnabled());
    QTest::mouseClick(desk.window().button("apply"), Qt::LeftButton);
    QDialog* plan = nullptr;
    QTRY_VERIFY((plan = desk.window().findChild<QDialog*>("applyChanges")) != nullptr);
    const auto* conflicts = plan->findChild<QListWidget*>("conflicts");
    QVERIFY(conflicts);
    QCOMPARE(conflicts->count(), 1);
    QVERIFY2(conflicts->item(0)->text().startsWith("greet.sh — "), qPrintable(conflicts->item(0)->text()));
    QVERIFY(!plan->findChild<QPushButton*>("confirmApply")); // nothing else to apply
    plan->reject();
    QCOMPARE(readAll(greet), QByteArray("echo 'mine, edited here'\n"));
}

void TestGuiRemote::lostConnectionIsShownAndCleared() {
    RemoteDesk desk;
    QVERIFY(desk.startRemote(m_server->url(), m_bob));
    const QString id = submitCautiousDemo(desk);
    QVERIFY(!id.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(desk.lists(id), 30000);
    desk.window().selectTask(id);
    QTRY_VERIFY_WITH_TIMEOUT(countOf(*desk.window().timeline(), Kind::Approval, State::Waiting) == 1,
                             kTaskTimeoutMs);
    QVERIFY(desk.connection()->isHidden());

    const QString url = m_server->url();
    m_server->kill();
    QTRY_VERIFY_WITH_TIMEOUT(!desk.connection()->isHidden(), 30000);
    QVERIFY2(!desk.connection()->text().isEmpty(), "the status bar says why");
    // The same address again: the stream finds it and the problem is cleared.
    QString error;
    QVERIFY2(m_server->start(&error, {}, /*samePort=*/true), qPrintable(error));
    QCOMPARE(m_server->url(), url);
    QTRY_VERIFY_WITH_TIMEOUT(desk.connection()->isHidden(), 60000);
    QVERIFY(bool(control::waitFor<Ok>([&](auto done) { desk.plane().cancel(id.toStdString(), done); })));
    QTRY_VERIFY_WITH_TIMEOUT(control::isFinal(desk.status(id)),
                             30000); // its slot of the tenant's quota is free
}

void TestGuiRemote::revokedKeyAsksForANewOne() {
    const QString carol = m_server->addUser("carol", "other");
    QVERIFY(carol.startsWith("wrn_"));
    RemoteDesk desk;
    QVERIFY(desk.startRemote(m_server->url(), carol));
    QVERIFY2(desk.planeLabel().startsWith("carol at "), qPrintable(desk.planeLabel()));
    const auto revoked = m_server->admin({"revoke-key", "carol"});
    QVERIFY2(revoked.exitCode == 0, revoked.err.constData());

    // The next thing she does is refused: the window says so and asks for a new key in Settings.
    desk.window().runDemo();
    QTRY_VERIFY_WITH_TIMEOUT(desk.window().settingsDialog() != nullptr, 30000);
    QVERIFY(!desk.connection()->isHidden());
    QVERIFY2(desk.connection()->text().contains("refused the API key"),
             qPrintable(desk.connection()->text()));
    ui::SettingsDialog* dialog = desk.window().settingsDialog();
    QVERIFY(dialog->controlPlaneBox()->testResult().contains("refused the API key"));
    QCOMPARE(dialog->findChild<QComboBox*>("planeKind")->currentData().toString(), QStringLiteral("remote"));

    const auto added = m_server->admin({"add-key", "carol"});
    QVERIFY2(added.exitCode == 0, added.err.constData());
    const QString newKey = QString::fromUtf8(added.out).trimmed();
    QVERIFY(newKey.startsWith("wrn_"));
    dialog->findChild<QLineEdit*>("serverKey")->setText(newKey);
    QSignalSpy reopened(&desk.session(), &ui::DesktopSession::windowOpened);
    saveInTheEventLoop(dialog);
    QVERIFY(reopened.wait(30000));
    QVERIFY2(desk.planeLabel().startsWith("carol at "), qPrintable(desk.planeLabel()));
    QVERIFY(desk.connection()->isHidden());
    // The new key works: she can run a task again.
    auto task = control::waitFor<control::TaskRecord>([&](auto done) { desk.plane().submitDemo({}, done); });
    QVERIFY2(task, task ? "" : task.error().message.c_str());
    QTRY_VERIFY_WITH_TIMEOUT(control::isFinal(desk.status(QString::fromStdString(task->id))), kTaskTimeoutMs);
}

void TestGuiRemote::eachUserSeesOnlyTheirOwnTasks() {
    RemoteDesk alice;
    RemoteDesk bob;
    QVERIFY(alice.startRemote(m_server->url(), m_alice));
    QVERIFY(bob.startRemote(m_server->url(), m_bob));
    auto aliceTask = control::waitFor<control::TaskRecord>([&](auto done) { alice.plane().submitDemo({}, done); });
    auto bobTask = control::waitFor<control::TaskRecord>([&](auto done) { bob.plane().submitDemo({}, done); });
    QVERIFY(aliceTask && bobTask);
    const QString aliceId = QString::fromStdString(aliceTask->id);
    const QString bobId = QString::fromStdString(bobTask->id);
    QTRY_VERIFY_WITH_TIMEOUT(alice.lists(aliceId) && bob.lists(bobId), 30000);
    // Both over first: what this checks is whose tasks a window lists, not a switch while tasks end.
    QTRY_VERIFY_WITH_TIMEOUT(control::isFinal(alice.status(aliceId)) && control::isFinal(bob.status(bobId)),
                             kTaskTimeoutMs);
    // Each window, opened afresh on the server's list, holds its user's tasks and none of the other's.
    for (RemoteDesk* desk : {&alice, &bob}) {
        QSignalSpy reopened(&desk->session(), &ui::DesktopSession::windowOpened);
        desk->window().showSettings();
        desk->window()
            .settingsDialog()
            ->findChild<QLineEdit*>("serverKey")
            ->setText(desk == &alice ? m_alice : m_bob);
        saveInTheEventLoop(desk->window().settingsDialog());
        QVERIFY(reopened.wait(30000));
    }
    QTRY_VERIFY(alice.lists(aliceId)); // once each window has its list
    QTRY_VERIFY(bob.lists(bobId));
    QVERIFY(!alice.lists(bobId));
    QVERIFY(!bob.lists(aliceId));
    QVERIFY(alice.window().taskList()->rowCount() >= 1);
    for (int row = 0; row < alice.window().taskList()->rowCount(); ++row)
        QVERIFY(!bob.lists(QString::fromStdString(alice.window().taskList()->record(row)->id)));
    // And selecting the other's task shows nothing of it.
    bob.window().selectTask(aliceId);
    QVERIFY(bob.window().selectedTask() != aliceId);
}

// A server that answers who it is and then nothing: the window opens, takes the user's typing and opens
// Settings while every call it made waits; what it asked for shows once the server answers.
void TestGuiRemote::aStuckServerNeverFreezesTheWindow() {
    test::HeldServer server(-1);
    QVERIFY(server.listen());
    QTemporaryDir data;
    auto plane = control::waitFor<std::unique_ptr<remote::RemoteControlPlane>>([&](auto done) {
        remote::RemoteControlPlane::open({server.url(), "wrn_held", data.path().toStdString(), false}, done);
    });
    QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
    MainWindow window(**plane);
    QSignalSpy listed(&window, &MainWindow::tasksListed);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_VERIFY(server.held() >= 1); // the task list, asked and not answered

    QLineEdit* prompt = window.newTaskBar()->promptEdit();
    prompt->setFocus();
    QTest::keyClicks(prompt, "typed while the server says nothing");
    QCOMPARE(prompt->text(), QStringLiteral("typed while the server says nothing"));
    window.showSettings();
    QVERIFY(window.settingsDialog() && window.settingsDialog()->isVisible());
    window.settingsDialog()->reject();
    QVERIFY(server.held() >= 1 && listed.isEmpty()); // still waiting, and nothing pretended an answer

    server.release();
    QVERIFY(listed.wait(10000));
    QCOMPARE(window.taskList()->rowCount(), 0);
}

// Task > Move to SERVER…: a task of this computer asleep on its question goes to the server Settings name
// while this computer's plane stays chosen; the window says where and its record does too, and the server has
// it, asking its question there.
void TestGuiRemote::aSleepingTaskMovesToTheServerFromTheWindow() {
    if (test::warrenBinary().isEmpty())
        QSKIP("WARREN_CLI is not set: run through ctest");
    RemoteDesk desk;
    remote::RemotePlaneChooser chooser(desk.dataDir().toStdString(), false);
    QVERIFY(chooser.save({PlaneKind::Local, m_server->url().toStdString()}, m_alice.toStdString()));
    QTemporaryDir workspace;
    const QString id = sleepingTask(desk.dataDir(), workspace.path(), {}, m_alice);
    QVERIFY(!id.isEmpty());

    QVERIFY(desk.start());
    QVERIFY2(desk.planeLabel().startsWith("local, "), qPrintable(desk.planeLabel()));
    QTRY_VERIFY(desk.lists(id));
    QCOMPARE(desk.status(id), TaskStatus::Sleeping);
    desk.window().selectTask(id);
    QAction* move = desk.window().moveAction();
    QVERIFY(move->isVisible());
    QCOMPARE(move->text(), QStringLiteral("Move to %1…").arg(m_server->url()));
    QVERIFY(move->isEnabled());
    move->trigger();
    QMessageBox* question = nullptr;
    QTRY_VERIFY((question = desk.window().findChild<QMessageBox*>("moveQuestion")) != nullptr);
    question->findChild<QPushButton*>("confirmMove")->click();
    QTRY_VERIFY_WITH_TIMEOUT(desk.window().statusBar()->currentMessage().contains(" moved to "),
                             kTaskTimeoutMs);
    const QString said = desk.window().statusBar()->currentMessage();
    QVERIFY2(!desk.window().findChild<QMessageBox*>("moveFailed"), qPrintable(said));
    QCOMPARE(desk.status(id), TaskStatus::Moved);
    auto record = control::waitFor<std::optional<control::TaskRecord>>(
        [&](auto done) { desk.plane().task(id.toStdString(), done); });
    QVERIFY(record && *record);
    const QString remoteId = QString::fromStdString((*record)->movedAs);
    QVERIFY2(said.contains(m_server->url()) && said.contains(remoteId), qPrintable(said));
    QTRY_VERIFY(desk.window().findChild<QLabel*>("status")->text().startsWith("moved · "));
    QVERIFY(!desk.window().button("resume")->isEnabled());
    QVERIFY(!move->isEnabled());
    // There it asks its question again.
    const auto waiting = m_server->request("GET", "/v1/tasks/" + remoteId + "/approvals/w1", m_alice);
    QVERIFY2(waiting.status == 200, waiting.body.constData());
}

// Task > Move to this computer…: over the server, a task of it submitted from here, asleep there, comes home
// into the workspace it came from; the server's record says it went, and this computer's has it, paused.
void TestGuiRemote::aServersTaskMovesHomeFromTheWindow() {
    if (test::warrenBinary().isEmpty())
        QSKIP("WARREN_CLI is not set: run through ctest");
    RemoteDesk desk;
    QTemporaryDir workspace;
    const QString id = sleepingTask(desk.dataDir(), workspace.path(), {"--remote", m_server->url()}, m_alice);
    QVERIFY(!id.isEmpty());
    QVERIFY(desk.startRemote(m_server->url(), m_alice));
    QVERIFY2(desk.planeLabel().startsWith("alice at "), qPrintable(desk.planeLabel()));
    QTRY_VERIFY_WITH_TIMEOUT(desk.lists(id), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(desk.status(id), TaskStatus::Sleeping, 60000);
    desk.window().taskList()->refresh(id.toStdString());
    desk.window().selectTask(id);
    QAction* move = desk.window().moveAction();
    QVERIFY(move->isVisible());
    QCOMPARE(move->text(), QStringLiteral("Move to this computer…"));
    QTRY_VERIFY(move->isEnabled());
    move->trigger();
    QMessageBox* question = nullptr;
    QTRY_VERIFY((question = desk.window().findChild<QMessageBox*>("moveQuestion")) != nullptr);
    question->findChild<QPushButton*>("confirmMove")->click();
    QTRY_VERIFY_WITH_TIMEOUT(desk.window().statusBar()->currentMessage().contains("moved to this computer"),
                             kTaskTimeoutMs);
    QCOMPARE(desk.status(id), TaskStatus::Moved);
    QTRY_VERIFY2(desk.window().findChild<QLabel*>("status")->text().contains("now at this computer"),
                 qPrintable(desk.window().findChild<QLabel*>("status")->text()));
    QVERIFY(!desk.window().button("apply")->isEnabled()); // the move applied its change
    auto here = control::openSqliteStore((desk.dataDir() + "/warren.db").toStdString());
    QVERIFY(here);
    auto arrived = (*here)->task(id.toStdString());
    QVERIFY(arrived && *arrived);
    QCOMPARE((*arrived)->status, TaskStatus::Paused);
}

QTEST_MAIN(TestGuiRemote)
#include "tst_gui_remote.moc"
