// Review and rewind in the window, over the real control plane: a scripted task in the real sandbox changes
// its workspace through the shell and a file tool; Review lists every file with its diff and reverts one
// after listing what that does; "Rewind to here" on a step puts the workspace (and, when chosen, the
// conversation) back, "Undo the last rewind" brings both back, and Resume continues the task from that step to
// the same end; "Fork from here" makes a
// new task from a step, in a workspace of its own, that Resume runs to the same end while the original's
// workspace and events stay as they were.

#include "tests/gui/DesktopFixture.h"
#include "ui/windows/ForkDialog.h"
#include "ui/windows/MainWindow.h"
#include "ui/windows/NewTaskBar.h"
#include "ui/windows/ReviewDialog.h"
#include "ui/windows/RewindDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using warren::test::DesktopFixture;
using warren::test::turn;

namespace {

QString runFromBar(DesktopFixture& desk, const QString& workspace, const QString& prompt) {
    QSignalSpy submitted(&desk.window(), &warren::ui::MainWindow::taskSubmitted);
    desk.window().newTaskBar()->findChild<QComboBox*>("workspace")->setEditText(workspace);
    QLineEdit* promptEdit = desk.window().newTaskBar()->promptEdit();
    promptEdit->setText(prompt);
    QTest::keyClick(promptEdit, Qt::Key_Return);
    if (submitted.isEmpty() && !submitted.wait(30000))
        return {};
    return submitted.first().first().toString();
}

// The rewind dialog parent shows, once the plane's preview came (nullptr after 10 s).
warren::ui::RewindDialog* shownRewind(QObject* parent) {
    warren::ui::RewindDialog* shown = nullptr;
    (void)QTest::qWaitFor([&] {
        for (auto* dialog : parent->findChildren<warren::ui::RewindDialog*>("rewindDialog"))
            if (dialog->isVisible())
                shown = dialog;
        return shown != nullptr;
    }, 10000);
    return shown;
}

QByteArray read(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(absent)");
}

QStringList rows(const QListWidget* list) {
    QStringList out;
    for (int i = 0; i < list->count(); ++i)
        out << list->item(i)->text();
    return out;
}

} // namespace

class TestGuiReview : public QObject {
    Q_OBJECT
private slots:
    void reviewRevertAndRewindToHere();
};

void TestGuiReview::reviewRevertAndRewindToHere() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir workspace;
    {
        QFile notes(workspace.filePath("notes.txt"));
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("my notes\n");
    }
    desk.useScript({turn("", "shell", {{"command", "echo made > made.txt && rm notes.txt"}}),
                    turn("", "write_file", {{"path", "b.txt"}, {"content", "b\n"}}),
                    turn("", "finish", {{"summary", "done"}})});
    const QString id = runFromBar(desk, workspace.path(), "Change things");
    QVERIFY(!id.isEmpty());
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());

    // Review: the shell's changes as well as the tool's.
    QPushButton* reviewButton = desk.window().button("review");
    QVERIFY(reviewButton && reviewButton->isVisible() && reviewButton->isEnabled());
    reviewButton->click();
    auto* review = desk.window().findChild<warren::ui::ReviewDialog*>("reviewDialog");
    QVERIFY(review);
    auto* files = review->findChild<QListWidget*>("reviewFiles");
    QTRY_COMPARE(rows(files), (QStringList{"added     b.txt", "added     made.txt", "deleted   notes.txt"}));
    files->setCurrentRow(2);
    QVERIFY(review->findChild<QPlainTextEdit*>("reviewDiff")->toPlainText().contains("-my notes"));

    // Revert one file: listed first, then done.
    review->findChild<QPushButton*>("reviewRevert")->click();
    auto* revert = shownRewind(review);
    QVERIFY(revert);
    QCOMPARE(rows(revert->findChild<QListWidget*>("rewindChanges")), (QStringList{"restore  notes.txt"}));
    QCOMPARE(read(workspace.filePath("notes.txt")), QByteArray("(absent)"));
    revert->accept();
    QTRY_COMPARE(rows(files), (QStringList{"added     b.txt", "added     made.txt"})); // reverted and read again
    QCOMPARE(read(workspace.filePath("notes.txt")), QByteArray("my notes\n"));
    QCOMPARE(read(workspace.filePath("made.txt")), QByteArray("made\n"));
    review->reject();

    // Rewind to here, on step 2, with the conversation: before step 2 is what step 1 left.
    desk.window().rewindToStep(2);
    auto* rewind = shownRewind(&desk.window());
    QVERIFY(rewind);
    QVERIFY(rewind->findChild<QLabel*>("rewindLimits")->text().contains("cannot take back"));
    QCOMPARE(rows(rewind->findChild<QListWidget*>("rewindChanges")),
             (QStringList{"delete   b.txt", "delete   notes.txt"}));
    rewind->findChild<QCheckBox*>("rewindConversation")->setChecked(true);
    rewind->accept();
    QTRY_COMPARE(desk.status(id), warren::control::TaskStatus::Paused);
    QCOMPARE(read(workspace.filePath("b.txt")), QByteArray("(absent)"));
    QCOMPARE(read(workspace.filePath("notes.txt")), QByteArray("(absent)"));

    // Undo the last rewind: both come back (the files step 2 wrote, the finished conversation), listed first;
    // then the same rewind again.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete); // the accepted dialog goes
    desk.window().undoRewind();
    auto* undo = shownRewind(&desk.window());
    QVERIFY(undo);
    QCOMPARE(rows(undo->findChild<QListWidget*>("rewindChanges")),
             (QStringList{"restore  b.txt", "restore  notes.txt"}));
    QVERIFY(undo->findChild<QLabel*>("rewindConversationNote")->text().contains("before that rewind"));
    undo->accept();
    QTRY_COMPARE(desk.status(id), warren::control::TaskStatus::Succeeded);
    QCOMPARE(read(workspace.filePath("b.txt")), QByteArray("b\n"));
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    desk.window().rewindToStep(2);
    rewind = shownRewind(&desk.window());
    QVERIFY(rewind);
    rewind->findChild<QCheckBox*>("rewindConversation")->setChecked(true);
    rewind->accept();
    QTRY_COMPARE(desk.status(id), warren::control::TaskStatus::Paused);
    QCOMPARE(read(workspace.filePath("b.txt")), QByteArray("(absent)"));

    // Resume continues from step 2: the tool writes b.txt again, and the task ends as before.
    QPushButton* resume = desk.window().button("resume");
    QTRY_VERIFY(resume->isEnabled());
    resume->click();
    QVERIFY(desk.waitFinished(id));
    QVERIFY2(desk.status(id) == warren::control::TaskStatus::Succeeded, desk.describe(id).constData());
    QCOMPARE(read(workspace.filePath("b.txt")), QByteArray("b\n"));

    // Fork from here, on step 2: a new task, selected, whose workspace holds what step 1 left; Resume runs
    // it to the same end there, and the original's workspace and events stay as they were.
    const auto eventsOf = [&desk](const QString& taskId) {
        std::string out;
        if (auto all = desk.plane().events(taskId.toStdString()))
            for (const auto& event : *all)
                out += event.dump() + "\n";
        return out;
    };
    const std::string eventsBefore = eventsOf(id);
    QVERIFY(!eventsBefore.empty());
    QTemporaryDir forkParent;
    const QString forkWorkspace = forkParent.filePath("fork");
    desk.window().forkFromStep(2);
    auto* fork = desk.window().findChild<warren::ui::ForkDialog*>("forkDialog");
    QVERIFY(fork);
    QVERIFY(fork->findChild<QLabel*>("forkLimits")->text().contains("outside its workspace"));
    fork->findChild<QLineEdit*>("forkWorkspace")->setText(forkWorkspace);
    fork->accept();
    QTRY_VERIFY(desk.window().selectedTask() != id);
    const QString forkId = desk.window().selectedTask();
    QVERIFY(forkId.startsWith("t-"));
    QCOMPARE(desk.status(forkId), warren::control::TaskStatus::Paused);
    QCOMPARE(read(forkWorkspace + "/made.txt"), QByteArray("made\n"));
    QCOMPARE(read(forkWorkspace + "/b.txt"), QByteArray("(absent)"));
    QCOMPARE(read(forkWorkspace + "/notes.txt"), QByteArray("(absent)"));
    resume->click();
    QVERIFY(desk.waitFinished(forkId));
    QVERIFY2(desk.status(forkId) == warren::control::TaskStatus::Succeeded, desk.describe(forkId).constData());
    QCOMPARE(read(forkWorkspace + "/b.txt"), QByteArray("b\n"));
    QCOMPARE(read(workspace.filePath("b.txt")), QByteArray("b\n"));
    QCOMPARE(read(workspace.filePath("made.txt")), QByteArray("made\n"));
    QVERIFY(eventsOf(id) == eventsBefore);
    QCOMPARE(desk.status(id), warren::control::TaskStatus::Succeeded);
}

QTEST_MAIN(TestGuiReview)
#include "tst_gui_review.moc"
