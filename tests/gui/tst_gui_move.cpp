// Task > Move in the window (`warren move`, through PlaneChooser): offered only when the other side is
// named (a server in Settings for this computer's plane; this computer for a server's), enabled only for a
// task that can go on elsewhere, a confirmed move that the server refuses says so and leaves the task as it
// was, and a moved task reads as one: where it went in the header and the reply bar, no Resume or Reply.
// The tasks are written to the store as the control plane leaves them; no sandbox runs.
#include "app/control/WaitFor.h"
#include "app/remote/PlaneChoice.h"
#include "app/remote/RemoteControlPlane.h"
#include "app/remote/RemotePlaneChooser.h"
#include "app/store/sqlite/SqliteStore.h"
#include "tests/gui/DesktopFixture.h"
#include "tests/support/HeldServer.h"
#include "ui/models/TaskListModel.h"
#include "ui/windows/ReplyBar.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QTcpServer>
#include <QtTest>

using namespace warren;
using control::PlaneKind;
using control::TaskStatus;
using test::deadUrl;
using test::DesktopFixture;

namespace {

// This computer's window with the desktop's chooser on its data directory (keys in the 0600 file).
struct MoveDesk {
    std::unique_ptr<remote::RemotePlaneChooser> chooser;
    DesktopFixture desk;

    bool open(const QString& serverUrl) {
        if (!desk.open())
            return false;
        chooser = std::make_unique<remote::RemotePlaneChooser>(desk.dataDir().toStdString(), false);
        if (!serverUrl.isEmpty()) // named in Settings, while this computer's plane stays chosen
            if (auto saved =
                    chooser->save({PlaneKind::Local, serverUrl.toStdString()}, "wrn_" + std::string(48, 'x'));
                !saved) {
                qWarning("%s", saved.error().message.c_str());
                return false;
            }
        desk.window().setPlaneChooser(chooser.get(), {PlaneKind::Local, {}});
        return true;
    }
    ~MoveDesk() { desk.close(); } // the window before the chooser it points to

    ui::MainWindow& window() { return desk.window(); }
    QAction* move() { return window().moveAction(); }
    QString header() { return window().findChild<QLabel*>("status")->text(); }

    // A task as the control plane leaves it, shown in the list.
    bool put(const std::string& id, TaskStatus status, const std::string& movedTo = {},
             const std::string& movedAs = {}) {
        auto store = control::openSqliteStore((desk.dataDir() + "/warren.db").toStdString());
        if (!store)
            return false;
        control::TaskRecord task;
        task.id = id;
        task.prompt = "fix the greeting in greet.sh";
        task.workspace = desk.dataDir().toStdString();
        task.spec = control::TaskSpec{}.toJson().dump();
        task.status = status;
        task.createdAt = "2026-12-07T10:00:00.000Z";
        task.startedAt = "2026-12-07T10:00:01.000Z";
        task.movedTo = movedTo;
        task.movedAs = movedAs;
        if (!(*store)->insertTask(task))
            return false;
        window().taskList()->refresh(id);
        return QTest::qWaitFor([&] { return window().taskList()->rowOf(id) >= 0; }, 10000);
    }
    TaskStatus status(const std::string& id) {
        auto task = control::waitFor<std::optional<control::TaskRecord>>(
            [&](auto done) { desk.plane().task(id, done); });
        return task && *task ? (*task)->status : TaskStatus::Queued;
    }
};

} // namespace

class TestGuiMove : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qunsetenv("WARREN_REMOTE_KEY"); }
    void noServerNamedNoMove();
    void onlyATaskThatCanGoOnElsewhereMoves_data();
    void onlyATaskThatCanGoOnElsewhereMoves();
    void aServersTaskMovesToThisComputer();
    void aMoveTheServerCannotTakeSaysWhyAndLeavesTheTask();
    void aMovedTaskSaysWhereItWent_data();
    void aMovedTaskSaysWhereItWent();
};

void TestGuiMove::noServerNamedNoMove() {
    MoveDesk desk;
    QVERIFY(desk.open({}));
    QVERIFY(desk.put("t-00000000a001", TaskStatus::Paused));
    desk.window().selectTask("t-00000000a001");
    QVERIFY(!desk.move()->isVisible());
    // Without a chooser at all (a window over a plane no one chose), none either.
    ui::MainWindow bare(desk.desk.plane());
    QVERIFY(!bare.moveAction()->isVisible());
}

void TestGuiMove::onlyATaskThatCanGoOnElsewhereMoves_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("movable");
    QTest::newRow("paused") << int(TaskStatus::Paused) << true;
    QTest::newRow("interrupted") << int(TaskStatus::Interrupted) << true;
    QTest::newRow("waiting") << int(TaskStatus::Waiting) << true;
    QTest::newRow("sleeping") << int(TaskStatus::Sleeping) << true;
    QTest::newRow("running") << int(TaskStatus::Running) << false;
    QTest::newRow("queued") << int(TaskStatus::Queued) << false;
    QTest::newRow("succeeded") << int(TaskStatus::Succeeded) << false;
    QTest::newRow("failed") << int(TaskStatus::Failed) << false;
    QTest::newRow("cancelled") << int(TaskStatus::Cancelled) << false;
}

void TestGuiMove::onlyATaskThatCanGoOnElsewhereMoves() {
    QFETCH(int, status);
    QFETCH(bool, movable);
    const QString url = QStringLiteral("https://warren.example.org:8443");
    MoveDesk desk;
    QVERIFY(desk.open(url));
    QVERIFY(desk.move()->isVisible());
    QCOMPARE(desk.move()->text(), QStringLiteral("Move to %1…").arg(url));
    QVERIFY(!desk.move()->isEnabled()); // no task selected
    // A running task here would start its agent when the plane notices it: the list shows it as stored.
    QVERIFY(desk.put("t-00000000a002", static_cast<TaskStatus>(status)));
    desk.window().selectTask("t-00000000a002");
    QCOMPARE(desk.move()->isEnabled(), movable);
}

// Over a server's plane, the move goes to this computer, whatever Settings name.
void TestGuiMove::aServersTaskMovesToThisComputer() {
    test::HeldServer server(0);
    QVERIFY(server.listen());
    QTemporaryDir data;
    auto plane = control::waitFor<std::unique_ptr<remote::RemoteControlPlane>>([&](auto done) {
        remote::RemoteControlPlane::open({server.url(), "wrn_held", data.path().toStdString(), false}, done);
    });
    QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
    remote::RemotePlaneChooser chooser(data.path().toStdString(), false);
    const auto destination = chooser.moveDestination(**plane);
    QVERIFY(destination && destination->kind == PlaneKind::Local);
    ui::MainWindow window(**plane);
    window.setPlaneChooser(&chooser, {PlaneKind::Remote, server.url().toStdString()});
    QVERIFY(window.moveAction()->isVisible());
    QCOMPARE(window.moveAction()->text(), QStringLiteral("Move to this computer…"));
}

// The move asks first, saying what happens; confirmed, it runs without holding the window, the action off
// meanwhile; a server that cannot be used refuses it in a message box, and the task stays here as it was.
void TestGuiMove::aMoveTheServerCannotTakeSaysWhyAndLeavesTheTask() {
    const QString url = deadUrl();
    MoveDesk desk;
    QVERIFY(desk.open(url));
    const std::string id = "t-00000000a003";
    QVERIFY(desk.put(id, TaskStatus::Paused));
    desk.window().selectTask(QString::fromStdString(id));
    QVERIFY(desk.move()->isEnabled());

    desk.move()->trigger();
    QMessageBox* question = nullptr;
    QTRY_VERIFY((question = desk.window().findChild<QMessageBox*>("moveQuestion")) != nullptr);
    const QString asked = question->text();
    QVERIFY2(asked.contains(QString::fromStdString(id)) && asked.contains(url), qPrintable(asked));
    QVERIFY2(asked.contains("workspace") && asked.contains("events") && asked.contains("conversation") &&
                 asked.contains("saying where it went"),
             qPrintable(asked));
    question->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(!desk.window().findChild<QMessageBox*>("moveQuestion"));
    QCOMPARE(desk.status(id), TaskStatus::Paused);

    desk.move()->trigger();
    QTRY_VERIFY((question = desk.window().findChild<QMessageBox*>("moveQuestion")) != nullptr);
    question->findChild<QPushButton*>("confirmMove")->click();
    QVERIFY(!desk.move()->isEnabled()); // while it runs
    QVERIFY2(desk.window().statusBar()->currentMessage().startsWith("Moving task"),
             qPrintable(desk.window().statusBar()->currentMessage()));
    QMessageBox* failed = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((failed = desk.window().findChild<QMessageBox*>("moveFailed")) != nullptr,
                             30000);
    QVERIFY2(failed->text().contains("stays here") && failed->text().contains(url),
             qPrintable(failed->text()));
    failed->button(QMessageBox::Close)->click();
    QCOMPARE(desk.status(id), TaskStatus::Paused);
    QTRY_VERIFY(desk.move()->isEnabled());
    QVERIFY(desk.window().button("resume")->isEnabled());
}

void TestGuiMove::aMovedTaskSaysWhereItWent_data() {
    QTest::addColumn<QString>("movedTo");
    QTest::addColumn<QString>("headerSays");
    QTest::addColumn<QString>("replySays");
    QTest::newRow("to a server")
        << "https://warren.example.org:8443"
        << "now at warren.example.org"
        << "Moved to https://warren.example.org:8443 as t-00000000b0b0; it goes on there";
    QTest::newRow("home") << "local"
                          << "now at this computer"
                          << "Moved to this computer as t-00000000b0b0; it goes on there";
}

void TestGuiMove::aMovedTaskSaysWhereItWent() {
    QFETCH(QString, movedTo);
    QFETCH(QString, headerSays);
    QFETCH(QString, replySays);
    MoveDesk desk;
    QVERIFY(desk.open(QStringLiteral("https://warren.example.org:8443")));
    const std::string id = "t-00000000a004";
    QVERIFY(desk.put(id, TaskStatus::Moved, movedTo.toStdString(), "t-00000000b0b0"));
    desk.window().selectTask(QString::fromStdString(id));
    const QModelIndex row = desk.window().taskList()->index(desk.window().taskList()->rowOf(id));
    QCOMPARE(
        ui::listedStatus(static_cast<TaskStatus>(row.data(ui::TaskListModel::StatusRole).toInt()), false),
        QStringLiteral("moved"));
    QVERIFY2(desk.header().startsWith("moved · ") && desk.header().contains(headerSays),
             qPrintable(desk.header()));
    QCOMPARE(desk.window().findChild<QLabel*>("status")->toolTip(), replySays);
    QCOMPARE(desk.window().replyBar()->messageEdit()->placeholderText(), replySays);
    QVERIFY(!desk.window().replyBar()->messageEdit()->isEnabled());
    QVERIFY(!desk.window().button("resume")->isEnabled());
    QVERIFY(!desk.window().button("stop")->isEnabled());
    QVERIFY(!desk.move()->isEnabled());
    QVERIFY(desk.window().button("rerun")->isEnabled()); // again from the start, as a new task here
}

QTEST_MAIN(TestGuiMove)
#include "tst_gui_move.moc"
