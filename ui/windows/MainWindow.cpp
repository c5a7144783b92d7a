#include "ui/windows/MainWindow.h"

#include "agent_core/protocol/EventTypes.h"
#include "app/timeline/CallDescription.h"
#include "app/wire/TaskMoveOut.h"
#include "common/FileBeneath.h"
#include "sandbox/PlaceholderRecord.h"
#include "ui/models/TaskListModel.h"
#include "ui/models/TimelineModel.h"
#include "ui/views/TaskListDelegate.h"
#include "ui/views/TimelineView.h"
#include "ui/widgets/FlowLayout.h"
#include "ui/windows/ApplyChangesDialog.h"
#include "ui/windows/ControlPlaneBox.h"
#include "ui/windows/ForkDialog.h"
#include "ui/windows/QuitQuestion.h"
#include "ui/windows/ReplyBar.h"
#include "ui/windows/ReviewDialog.h"
#include "ui/windows/RewindDialog.h"
#include "ui/windows/SecretsDialog.h"
#include "ui/windows/SettingsDialog.h"
#include "ui/windows/SidePanel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDesktopServices>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QUrl>
#include <QVBoxLayout>
#include <cstring>

namespace warren::ui {

using control::TaskRecord;
using control::TaskStatus;

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

QString shortTitle(const TaskRecord& task) {
    const QString prompt = qs(task.prompt).simplified();
    return prompt.size() > 60 ? prompt.left(57) + QStringLiteral("…") : prompt;
}

// Where a move goes, as the menu and its question name it.
QString destinationName(const control::MoveDestination& destination) {
    return destination.kind == control::PlaneKind::Local ? MainWindow::tr("this computer")
                                                         : qs(destination.url);
}

// Where a moved task went: the server's URL, or this computer for a server's task brought home.
QString movedWhere(const TaskRecord& task) {
    return task.movedTo == wire::kMoveHome ? MainWindow::tr("this computer") : qs(task.movedTo);
}

QString movedText(const TaskRecord& task) {
    return MainWindow::tr("Moved to %1 as %2; it goes on there").arg(movedWhere(task), qs(task.movedAs));
}

// The file an edit waiting for approval would change, read where this computer's agent works (a server's
// task works on its own copy: none is read for it): beneath the workspace, no link followed, no special file
// opened, at most kPreviewFileBytes.
constexpr std::size_t kPreviewFileBytes = 1 << 20;

timeline::FileReader workspaceFiles(const std::string& workspace) {
    return [workspace](const std::string& path) {
        using State = timeline::CurrentFile::State;
        std::string relative = path;
        if (relative.starts_with("/workspace/")) // as a CLI agent names it
            relative.erase(0, std::string_view("/workspace/").size());
        while (relative.starts_with("./"))
            relative.erase(0, 2);
        BeneathRead read = readFileBeneath(workspace, relative, kPreviewFileBytes);
        switch (read.outcome) {
        case BeneathRead::Outcome::Read:
            return timeline::CurrentFile{State::Text, std::move(read.data), {}};
        case BeneathRead::Outcome::Missing:
            return timeline::CurrentFile{State::Absent, {}, {}};
        case BeneathRead::Outcome::NotRegular:
            return timeline::CurrentFile{State::Unreadable,
                                         {},
                                         read.mode ? std::string("it is ") + fileKindName(read.mode) + " now"
                                                   : "it is, or goes through, a link or a special file now"};
        case BeneathRead::Outcome::Outside:
            return timeline::CurrentFile{
                State::Unreadable, {}, "it lies outside the workspace: the call will fail"};
        case BeneathRead::Outcome::TooLarge:
            return timeline::CurrentFile{State::Unreadable, {}, "the file is over 1 MiB: not read for this"};
        case BeneathRead::Outcome::Failed:
            break;
        }
        return timeline::CurrentFile{
            State::Unreadable, {}, std::string("the file cannot be read: ") + std::strerror(read.error)};
    };
}

} // namespace

MainWindow::MainWindow(control::ControlPlane& plane, QWidget* parent)
    : QMainWindow(parent), m_plane(plane), m_tasks(new TaskListModel(plane, this)),
      m_filtered(new TaskFilterModel(this)), m_timeline(new TimelineModel(this)) {
    setWindowTitle(tr("Warren"));
    setWindowIcon(QIcon::fromTheme(QStringLiteral("warren"), QIcon(QStringLiteral(":/warren/icons/warren.png"))));
    // Its usual size, but never larger than the screen it opens on.
    resize(screen() ? QSize(1280, 800).boundedTo(screen()->availableGeometry().size()) : QSize(1280, 800));
    m_filtered->setSourceModel(m_tasks);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_newTask = new NewTaskBar(m_plane.presetNames(), central);
    layout->addWidget(m_newTask);

    auto* splitter = new QSplitter(Qt::Horizontal, central);
    layout->addWidget(splitter, 1);

    auto* left = new QWidget(splitter);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(4, 4, 0, 4);
    m_filter = new QComboBox(left);
    m_filter->setObjectName("filter");
    // As wide as the list, not as its longest choice: the window must fit a small screen.
    m_filter->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_filter->setMinimumContentsLength(12);
    m_filter->addItem(tr("All tasks"), static_cast<int>(TaskFilterModel::Filter::All));
    m_filter->addItem(tr("Queued and running"), static_cast<int>(TaskFilterModel::Filter::Active));
    m_filter->addItem(tr("Waiting for you"), static_cast<int>(TaskFilterModel::Filter::WaitingForYou));
    m_filter->addItem(tr("Waiting for you, paused, interrupted or failed"), static_cast<int>(TaskFilterModel::Filter::NeedsAttention));
    m_filter->addItem(tr("Ended"), static_cast<int>(TaskFilterModel::Filter::Finished));
    connect(m_filter, &QComboBox::currentIndexChanged, this, [this] {
        m_filtered->setFilter(static_cast<TaskFilterModel::Filter>(m_filter->currentData().toInt()));
    });
    m_taskView = new QListView(left);
    m_taskView->setObjectName("tasks");
    m_taskView->setModel(m_filtered);
    m_taskView->setItemDelegate(new TaskListDelegate(m_taskView));
    m_taskView->setUniformItemSizes(true);
    connect(m_taskView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    selectTask(current.data(TaskListModel::IdRole).toString());
            });
    leftLayout->addWidget(m_filter);
    leftLayout->addWidget(m_taskView, 1);

    auto* centre = new QWidget(splitter);
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(4, 4, 4, 4);
    auto* header = new QHBoxLayout();
    m_title = new QLabel(centre);
    m_title->setObjectName("title");
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true); // a long title takes a second line rather than widening the window
    m_status = new QLabel(centre);
    m_status->setObjectName("status");
    header->addWidget(m_title, 1);
    header->addWidget(m_status);
    centreLayout->addLayout(header);
    buildControls();
    auto* controls = new FlowLayout();
    for (const char* name : {"stop", "resume", "rerun", "review", "export", "apply", "open"})
        controls->addWidget(m_buttons[name]);
    centreLayout->addLayout(controls);

    m_centre = new QStackedWidget(centre);
    m_welcome = new QWidget(m_centre);
    auto* welcomeLayout = new QVBoxLayout(m_welcome);
    welcomeLayout->addStretch(1);
    m_welcomeText = new QLabel(m_welcome);
    m_welcomeText->setObjectName("welcome");
    m_welcomeText->setWordWrap(true);
    m_welcomeText->setAlignment(Qt::AlignCenter);
    m_demoButton = new QPushButton(tr("Run the scripted demo"), m_welcome);
    m_demoButton->setObjectName("demo");
    connect(m_demoButton, &QPushButton::clicked, this, &MainWindow::runDemo);
    auto* setUp = new QPushButton(tr("Set up a model…"), m_welcome);
    setUp->setObjectName("setUpModel");
    connect(setUp, &QPushButton::clicked, this, &MainWindow::showModelSettings);
    auto* welcomeButtons = new QHBoxLayout();
    welcomeButtons->addStretch(1);
    welcomeButtons->addWidget(m_demoButton);
    welcomeButtons->addWidget(setUp);
    welcomeButtons->addStretch(1);
    welcomeLayout->addWidget(m_welcomeText);
    welcomeLayout->addLayout(welcomeButtons);
    welcomeLayout->addStretch(2);
    m_timelineView = new TimelineView(m_centre);
    m_timelineView->setObjectName("timeline");
    m_timelineView->setTimeline(m_timeline);
    connect(m_timelineView, &TimelineView::earlierWanted, this, &MainWindow::loadEarlier);
    connect(m_timelineView, &TimelineView::approvalAnswered, this, [this](const ApprovalAnswer& answer) {
        const std::string task = m_selected.toStdString();
        if (answer.alwaysInWorkspace) {
            const std::string callId = answer.callId.toStdString();
            m_plane.allowHostInWorkspace(task, callId, control::within(this, [this, task, callId](Status allowed) {
                if (allowed)
                    return;
                showProblem(qs(allowed.error().message)); // still allowed for the rest of this task
                m_plane.answerApproval(task, callId, true, "", true);
            }));
            return;
        }
        if (!answer.alwaysCommands.isEmpty())
            m_plane.allowCommands(task, answer.alwaysCommands.toStdString(), control::within(this, [this](Status allowed) {
                if (!allowed)
                    showProblem(qs(allowed.error().message)); // the call itself is still approved, once
            }));
        m_plane.answerApproval(task, answer.callId.toStdString(), answer.approved, answer.note.toStdString(),
                               answer.alwaysInTask);
    });
    m_centre->addWidget(m_welcome);
    m_centre->addWidget(m_timelineView);
    centreLayout->addWidget(m_centre, 1);
    m_reply = new ReplyBar(centre);
    connect(m_reply, &ReplyBar::replyRequested, this, &MainWindow::sendReply);
    centreLayout->addWidget(m_reply);

    m_side = new SidePanel(splitter);
    connect(m_side, &SidePanel::changedFileActivated, this, [this](const QString& path) {
        m_timelineView->reveal(m_timeline->lastChangeOf(path));
    });
    splitter->addWidget(left);
    splitter->addWidget(centre);
    splitter->addWidget(m_side);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 6);
    splitter->setStretchFactor(2, 2);
    splitter->setSizes({300, 720, 260});
    setCentralWidget(central);

    buildMenus();
    connectPlane();

    m_eventTimer.setSingleShot(true);
    m_eventTimer.setInterval(kEventBatchMs);
    connect(&m_eventTimer, &QTimer::timeout, this, &MainWindow::flushEvents);
    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(kTaskRefreshMs);
    connect(&m_refreshTimer, &QTimer::timeout, this, &MainWindow::refreshDirtyTasks);
    m_clock.setInterval(1000);
    connect(&m_clock, &QTimer::timeout, this, [this] {
        m_taskView->viewport()->update();
        if (const TaskRecord* task = selectedRecord(); task && task->status == TaskStatus::Running)
            updateHeader();
    });
    m_clock.start();
    // Only where a task's change lands elsewhere is there anything to bring home.
    m_buttons["apply"]->setVisible(m_plane.changesComeHome());
    // Review and rewind where the plane keeps snapshots of the workspace (this computer's).
    m_buttons["review"]->setVisible(m_plane.keepsSnapshots());
    if (m_plane.keepsSnapshots()) {
        m_timelineView->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(m_timelineView, &QWidget::customContextMenuRequested, this, &MainWindow::timelineMenu);
    }

    m_tasks->reload(control::within(this, [this](Status loaded) {
        if (!loaded)
            showProblem(qs(loaded.error().message));
        updateHeader();
        emit tasksListed();
    }));
    applySettings();
    updateHeader();
    updateWelcome();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&Warren"));
    QAction* newTask = file->addAction(tr("&New task"), QKeySequence::New, this, [this] {
        bringToFront();
        m_newTask->promptEdit()->setFocus(Qt::ShortcutFocusReason);
    });
    newTask->setObjectName("newTaskAction");
    file->addAction(tr("Run the &demo"), this, &MainWindow::runDemo);
    QAction* settings = file->addAction(tr("&Settings…"), this, &MainWindow::showSettings);
    settings->setObjectName("settingsAction");
    // Ctrl+, as in most desktop apps; the platform's own key for preferences too, where it has one.
    QList<QKeySequence> settingsKeys{QKeySequence(Qt::CTRL | Qt::Key_Comma)};
    for (const QKeySequence& key : QKeySequence::keyBindings(QKeySequence::Preferences))
        if (!settingsKeys.contains(key))
            settingsKeys << key;
    settings->setShortcuts(settingsKeys);
    file->addAction(tr("S&ecrets for hosts…"), this, &MainWindow::showSecrets);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close); // asks first while tasks run here
    quit->setObjectName("quitAction");
    quit->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Q)});

    QMenu* task = menuBar()->addMenu(tr("&Task"));
    m_stopAction = task->addAction(tr("&Stop"), this, [this] { m_buttons["stop"]->click(); });
    m_stopAction->setObjectName("stopAction");
    m_stopAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    m_stopAction->setEnabled(m_buttons["stop"]->isEnabled());
    task->addSeparator();
    // Its text says where (updateMoveAction); shown only once the chooser names the other side.
    m_moveAction = task->addAction(tr("Move…"), this, &MainWindow::moveSelected);
    m_moveAction->setObjectName("moveAction");
    m_moveAction->setVisible(false);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Warren"), this, &MainWindow::showAbout)->setObjectName("aboutAction");

    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(windowIcon(), this);
        m_tray->setToolTip(tr("Warren"));
        connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] {
            bringToFront();
            if (!m_notifiedTask.isEmpty())
                selectTask(m_notifiedTask);
        });
        connect(m_tray, &QSystemTrayIcon::activated, this, &MainWindow::bringToFront);
        m_tray->show();
    }
}

// What the plane says reaches the window here; and the status bar says which plane it is.
void MainWindow::connectPlane() {
    connect(m_newTask, &NewTaskBar::runRequested, this, &MainWindow::submit);
    connect(&m_plane, &control::ControlPlane::eventStored, this, &MainWindow::onEventStored);
    connect(&m_plane, &control::ControlPlane::approvalNeeded, this, [this](const control::ApprovalRecord& approval) {
        m_dirty.insert(approval.taskId);
        m_tasks->questionAsked(approval.taskId, approval.callId);
        if (qs(approval.taskId) == m_selected)
            updateHeader(); // "waits for your answer"
        m_plane.task(approval.taskId, control::within(this, [this, approval](Result<std::optional<TaskRecord>> task) {
            const QString title = task && *task ? shortTitle(**task) : qs(approval.taskId);
            const auto call = timeline::describeCall(approval.tool, nlohmann::json::parse(approval.arguments, nullptr, false));
            notify(tr("Approval needed"), tr("%1 waits for you: %2").arg(title, qs(call.title)), qs(approval.taskId));
        }));
    });
    connect(&m_plane, &control::ControlPlane::taskFinished, this, [this](const std::string& taskId) {
        m_tasks->questionsEnded(taskId);
        flushEvents();
        m_tasks->refresh(taskId, [this, taskId] {
            if (qs(taskId) == m_selected) {
                updateHeader();
                focusReplyIfWaiting();
            }
        });
        m_plane.task(taskId, control::within(this, [this, taskId](Result<std::optional<TaskRecord>> task) {
            if (task && *task)
                notify(tr("Task %1").arg(statusText((*task)->status)), shortTitle(**task), qs(taskId));
        }));
    });
    connect(&m_plane, &control::ControlPlane::taskChanged, this, [this](const std::string& taskId) {
        m_tasks->refresh(taskId, [this, taskId] {
            if (qs(taskId) == m_selected)
                updateHeader(); // "files removed"
        });
    });
    connect(&m_plane, &control::ControlPlane::storeProblem, this, &MainWindow::showProblem);

    // Which control plane this window talks to, always; and the server's connection while it fails.
    m_planeLabel = new QLabel(qs(m_plane.describe()), this);
    m_planeLabel->setObjectName("controlPlane");
    m_planeLabel->setToolTip(tr("The control plane this window drives; Settings switch it"));
    m_connection = new QLabel(this);
    m_connection->setObjectName("connection");
    m_connection->setStyleSheet(QStringLiteral("color: #d03b3b"));
    m_connection->setWordWrap(true);
    m_connection->hide();
    statusBar()->addPermanentWidget(m_connection, 1);
    statusBar()->addPermanentWidget(m_planeLabel);
    connect(&m_plane, &control::ControlPlane::connectionProblem, this, [this](const QString& message) {
        m_connection->setText(message);
        m_connection->show();
    });
    connect(&m_plane, &control::ControlPlane::connectionRestored, this, [this] {
        m_connection->clear();
        m_connection->hide();
        statusBar()->showMessage(tr("Connected to the server again"), 10000);
    });
    connect(&m_plane, &control::ControlPlane::keyRejected, this, &MainWindow::onKeyRejected);
}

void MainWindow::buildControls() {
    auto make = [this](const char* name, const QString& text, const QString& tip) {
        auto* button = new QPushButton(text);
        button->setObjectName(name);
        button->setToolTip(tip);
        m_buttons[name] = button;
        return button;
    };
    connect(make("stop", tr("Stop"), tr("Cancel the task: its sandbox is stopped (Ctrl+.)")),
            &QPushButton::clicked, this, [this] {
                const std::string taskId = m_selected.toStdString();
                m_plane.cancel(taskId, control::within(this, [this, taskId](Status stopped) {
                                   if (!stopped)
                                       showProblem(qs(stopped.error().message));
                                   m_dirty.insert(taskId);
                                   m_refreshTimer.start();
                               }));
            });
    connect(make("resume", tr("Resume"), tr("Continue from the last checkpoint")), &QPushButton::clicked, this, [this] {
        const std::string taskId = m_selected.toStdString();
        m_plane.resume(taskId, {}, control::within(this, [this, taskId](Status resumed) {
            if (!resumed)
                showProblem(qs(resumed.error().message));
            refreshShown(taskId);
        }));
    });
    connect(make("rerun", tr("Rerun"), tr("Run the same task again, from the start, as a new task")),
            &QPushButton::clicked, this, [this] {
                const TaskRecord* task = selectedRecord();
                if (!task)
                    return;
                auto spec = control::TaskSpec::fromText(task->spec);
                if (!spec)
                    return showProblem(qs(spec.error().message));
                auto shown = control::within(this, [this](Result<TaskRecord> rerun) {
                    if (!rerun)
                        return showProblem(qs(rerun.error().message));
                    m_tasks->put(*rerun);
                    selectTask(qs(rerun->id));
                });
                if (spec->demo)
                    m_plane.submitDemo(*spec, shown);
                else
                    m_plane.submit(task->prompt, task->workspace, *spec, shown);
            });
    connect(make("review", tr("Review…"),
                 tr("Every file the task changed, its shell commands' changes too, with its diff; revert a file")),
            &QPushButton::clicked, this, &MainWindow::review);
    connect(make("export", tr("Export…"), tr("Save the task's record, its event log (JSON lines) and its output files")),
            &QPushButton::clicked, this, [this] {
                const QString parent = QFileDialog::getExistingDirectory(this, tr("Export the task into"));
                if (parent.isEmpty())
                    return;
                const QString directory = parent + QStringLiteral("/warren-") + m_selected;
                statusBar()->showMessage(tr("Exporting into %1…").arg(directory));
                m_plane.exportTask(m_selected.toStdString(), directory.toStdString(),
                                   control::within(this, [this, directory](Status exported) {
                                       if (!exported)
                                           return showProblem(qs(exported.error().message));
                                       statusBar()->showMessage(tr("Exported to %1").arg(directory), 10000);
                                   }));
            });
    connect(make("apply", tr("Apply changes…"),
                 tr("Bring the task's change from the server into your workspace; files you changed since "
                    "are left alone")),
            &QPushButton::clicked, this, &MainWindow::applyChanges);
    connect(make("open", tr("Open workspace"), tr("Open the task's workspace in the file manager")),
            &QPushButton::clicked, this, [this] {
                if (const TaskRecord* task = selectedRecord())
                    QDesktopServices::openUrl(QUrl::fromLocalFile(qs(task->workspace)));
            });
}

void MainWindow::review() {
    if (m_selected.isEmpty())
        return;
    auto* dialog = new ReviewDialog(m_plane, m_selected, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ReviewDialog::workspaceChanged, this, [this](const QString& taskId) {
        statusBar()->showMessage(tr("Reverted in the workspace of task %1; `warren rewind %1 --undo` takes it back")
                                     .arg(taskId),
                                 10000);
    });
    dialog->open();
}

void MainWindow::timelineMenu(const QPoint& position) {
    const QModelIndex index = m_timelineView->indexAt(position);
    if (!index.isValid() ||
        index.data(TimelineModel::KindRole).toInt() != static_cast<int>(timeline::TimelineCard::Kind::Step))
        return;
    const std::uint64_t step = index.data(TimelineModel::StepRole).toULongLong();
    const TaskRecord* task = selectedRecord();
    QMenu menu(this);
    QAction* rewind = menu.addAction(tr("Rewind to here…"));
    rewind->setObjectName("rewindToHere");
    const bool active = task && (task->status == TaskStatus::Running || task->status == TaskStatus::Queued);
    rewind->setEnabled(task && !active);
    if (active)
        rewind->setToolTip(tr("Stop the task first"));
    connect(rewind, &QAction::triggered, this, [this, step] { rewindToStep(step); });
    QAction* fork = menu.addAction(tr("Fork from here…"));
    fork->setObjectName("forkFromHere");
    fork->setEnabled(task && !active);
    fork->setToolTip(active ? tr("Stop the task first")
                            : tr("A new task from before this step, in a workspace of its own; this one stays"));
    connect(fork, &QAction::triggered, this, [this, step] { forkFromStep(step); });
    menu.addSeparator();
    QAction* undo = menu.addAction(tr("Undo the last rewind…"));
    undo->setObjectName("undoRewind");
    undo->setEnabled(task && !active);
    connect(undo, &QAction::triggered, this, &MainWindow::undoRewind);
    menu.exec(m_timelineView->viewport()->mapToGlobal(position));
}

void MainWindow::rewindToStep(std::uint64_t step) {
    control::RewindRequest request;
    request.toStep = step;
    const QString taskId = m_selected;
    m_plane.previewRewind(taskId.toStdString(), request, control::within(this, [this, request, taskId](Result<control::RewindSummary> preview) {
        if (!preview)
            return showProblem(qs(preview.error().message));
        auto* dialog = new RewindDialog(taskId, *preview, true, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QDialog::accepted, this, [this, dialog, request, taskId]() mutable {
            request.conversation = dialog->conversationChosen();
            m_plane.rewind(taskId.toStdString(), request, control::within(this, [this, request, taskId](Result<control::RewindSummary> done) {
                if (!done)
                    return showProblem(qs(done.error().message));
                refreshShown(taskId.toStdString());
                statusBar()->showMessage(request.conversation
                                             ? tr("Rewound to before step %1; Resume continues from there").arg(*request.toStep)
                                             : tr("Rewound the workspace to before step %1").arg(*request.toStep),
                                         10000);
            }));
        });
        dialog->open();
    }));
}

void MainWindow::undoRewind() {
    const QString taskId = m_selected;
    const control::RewindRequest request; // no step: the last rewind, whatever it took back
    m_plane.previewRewind(taskId.toStdString(), request, control::within(this, [this, request, taskId](Result<control::RewindSummary> preview) {
        if (!preview)
            return showProblem(qs(preview.error().message));
        auto* dialog = new RewindDialog(taskId, *preview, false, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QDialog::accepted, this, [this, request, taskId] {
            m_plane.rewind(taskId.toStdString(), request, control::within(this, [this, taskId](Result<control::RewindSummary> done) {
                if (!done)
                    return showProblem(qs(done.error().message));
                refreshShown(taskId.toStdString());
                statusBar()->showMessage(tr("Undid the last rewind of task %1").arg(taskId), 10000);
            }));
        });
        dialog->open();
    }));
}

void MainWindow::forkFromStep(std::uint64_t step) {
    const QString taskId = m_selected;
    auto* dialog = new ForkDialog(taskId, step, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, step, taskId] {
        const control::ForkRequest request{step, dialog->workspace().toStdString()};
        m_plane.fork(taskId.toStdString(), request, control::within(this, [this, step, taskId](Result<control::ForkSummary> fork) {
            if (!fork)
                return showProblem(qs(fork.error().message));
            m_tasks->put(fork->task);
            selectTask(qs(fork->task.id));
            statusBar()->showMessage(tr("Forked task %1 from before step %2 into task %3, in %4; Resume runs it")
                                         .arg(taskId)
                                         .arg(step)
                                         .arg(qs(fork->task.id), qs(fork->task.workspace)),
                                     15000);
        }));
    });
    dialog->open();
}

QPushButton* MainWindow::button(const QString& name) const {
    const auto it = m_buttons.find(name);
    return it == m_buttons.end() ? nullptr : it->second;
}

const TaskRecord* MainWindow::selectedRecord() const {
    return m_tasks->record(m_tasks->rowOf(m_selected.toStdString()));
}

qint64 MainWindow::selectedElapsedMs() const {
    return m_tasks->index(m_tasks->rowOf(m_selected.toStdString())).data(TaskListModel::ElapsedRole).toLongLong();
}

void MainWindow::selectTask(const QString& taskId) {
    const int row = m_tasks->rowOf(taskId.toStdString());
    if (row < 0)
        return;
    const QModelIndex proxied = m_filtered->mapFromSource(m_tasks->index(row));
    if (proxied.isValid() && m_taskView->currentIndex() != proxied)
        m_taskView->setCurrentIndex(proxied); // comes back here through currentChanged
    if (taskId == m_selected)
        return;
    m_selected = taskId;
    m_pending.clear();
    m_counting = false;
    const TaskRecord* task = m_tasks->record(row);
    m_timeline->setFileReader(m_plane.changesComeHome() || task->workspace.empty()
                                  ? timeline::FileReader()
                                  : workspaceFiles(task->workspace));
    m_timeline->reset(taskId, qs(task->prompt));
    // The latest page only: opening costs the same for any task, and earlier pages come in as the user
    // scrolls up. Live events that come meanwhile wait in m_pending and follow the page (the timeline drops
    // what the page already holds).
    const std::uint64_t shown = ++m_shownGeneration;
    m_pageLoading = true;
    m_plane.eventsBefore(task->id, 0, kPageEvents, control::within(this, [this, shown](Result<std::vector<nlohmann::json>> events) {
        if (shown != m_shownGeneration)
            return; // another task was selected meanwhile
        m_pageLoading = false;
        if (!events)
            return showProblem(qs(events.error().message));
        m_timeline->append(*events);
        if (events->size() < kPageEvents)
            m_timeline->prepend({}, true); // the whole task is there
        flushEvents();
        m_side->setActivity(m_timeline->activity(), selectedElapsedMs()); // an ended task's has no live events
        // What the side panel counts (tokens, calls, changed files, samples) is the whole task's: the events
        // before the page are counted a page at a time, after the window has shown the task.
        if (m_timeline->needsEarlierCounts()) {
            m_countBefore = m_timeline->appendedFrom();
            countEarlier();
        }
    }));
    m_side->setWorkspace(qs(task->workspace));
    showPlaceholders();
    m_centre->setCurrentWidget(m_timelineView);
    updateHeader();
    focusReplyIfWaiting();
}

// The agent asked the user: the turn is theirs, so their typing goes to the reply.
void MainWindow::focusReplyIfWaiting() {
    if (const TaskRecord* task = selectedRecord(); task && task->status == TaskStatus::Waiting)
        m_reply->messageEdit()->setFocus();
}

void MainWindow::loadEarlier() {
    if (!m_timeline->hasEarlier() || m_selected.isEmpty() || m_pageLoading)
        return;
    flushEvents(); // the page is read up to the last event shown: none may be waiting to be shown
    // The page before the first event shown and every event shown, read again for the fold to start
    // earlier: the model keeps cards, not events, and this costs what the window shows. Live events wait
    // in m_pending until it is in.
    const std::size_t wanted = m_timeline->eventCount() + kPageEvents;
    const std::uint64_t shown = m_shownGeneration;
    m_pageLoading = true;
    m_plane.eventsBefore(m_selected.toStdString(), m_timeline->lastSeq() + 1, wanted,
                         control::within(this, [this, shown, wanted](Result<std::vector<nlohmann::json>> events) {
                             if (shown != m_shownGeneration)
                                 return;
                             m_pageLoading = false;
                             if (!events)
                                 return showProblem(qs(events.error().message));
                             m_timeline->prepend(*events, events->size() < wanted);
                             flushEvents();
                             m_side->setActivity(m_timeline->activity(), selectedElapsedMs());
                         }));
}

void MainWindow::countEarlier() {
    m_counting = m_timeline->needsEarlierCounts(); // paged in to the start meanwhile: the fold counts them all
    if (!m_counting)
        return;
    const std::uint64_t shown = m_shownGeneration;
    m_plane.eventsBefore(m_selected.toStdString(), m_countBefore, kCountPageEvents,
                         control::within(this, [this, shown](Result<std::vector<nlohmann::json>> events) {
                             if (shown == m_shownGeneration)
                                 countPage(events);
                         }));
}

// One page of countEarlier's, then the next, between other events: the window answers while a long task is
// counted.
void MainWindow::countPage(const Result<std::vector<nlohmann::json>>& events) {
    m_counting = false;
    if (!m_timeline->needsEarlierCounts())
        return;
    if (!events)
        return showProblem(qs(events.error().message));
    timeline::TaskCounters page;
    for (const auto& event : *events) {
        if (auto read = timeline::readEvent(event))
            page.add(read->payload, read->envelope.step, read->envelope.tokenUsage,
                     read->envelope.ts ? static_cast<std::int64_t>(read->envelope.ts) : -1,
                     read->envelope.agent.has_value());
    }
    const bool complete = events->size() < kCountPageEvents || events->front().value("seq", std::uint64_t{0}) <= 1;
    if (!events->empty())
        m_countBefore = events->front().value("seq", std::uint64_t{0});
    m_timeline->addEarlierCounts(page, complete);
    m_side->setActivity(m_timeline->activity(), selectedElapsedMs());
    if (!complete)
        countEarlier();
}

void MainWindow::onEventStored(const std::string& taskId, const nlohmann::json& event) {
    if (m_dirty.insert(taskId).second && !m_refreshTimer.isActive())
        m_refreshTimer.start();
    // A question answered (here, in another window, by a rule) no longer waits for the user.
    const auto type = event.is_object() ? event.find("type") : event.end();
    if (type != event.end() && type->is_string() &&
        type->get_ref<const std::string&>() == protocol::event_type::kApprovalResolved)
        if (const auto payload = event.find("data"); payload != event.end() && payload->is_object())
            if (const auto id = payload->find("id"); id != payload->end() && id->is_string())
                m_tasks->questionAnswered(taskId, id->get<std::string>());
    if (qs(taskId) != m_selected)
        return;
    m_pending.push_back(event);
    if (!m_eventTimer.isActive())
        m_eventTimer.start();
}

void MainWindow::flushEvents() {
    m_eventTimer.stop();
    if (m_pending.empty() || m_pageLoading)
        return;
    std::vector<nlohmann::json> batch;
    batch.swap(m_pending);
    m_timeline->append(batch);
    m_side->setActivity(m_timeline->activity(), selectedElapsedMs());
}

void MainWindow::refreshDirtyTasks() {
    std::set<std::string> dirty;
    dirty.swap(m_dirty);
    for (const auto& id : dirty)
        refreshShown(id);
}

void MainWindow::updateHeader() {
    const TaskRecord* task = selectedRecord();
    if (!task) {
        m_title->setText(tr("No task selected"));
        m_status->clear();
        for (auto& [name, button] : m_buttons)
            button->setEnabled(false);
        if (m_stopAction)
            m_stopAction->setEnabled(false);
        if (m_moveAction)
            m_moveAction->setEnabled(false);
        m_reply->setRepliable(false, tr("Select a task to reply to it"));
        return;
    }
    m_title->setText(shortTitle(*task));
    m_title->setToolTip(qs(task->prompt));
    const qint64 elapsed = selectedElapsedMs();
    QString status =
        listedStatus(task->status, m_tasks->asking(task->id)) + QStringLiteral(" · ") + elapsedText(elapsed);
    if (!task->error.empty())
        status += QStringLiteral(" · ") + tr("see the error below");
    // The retention period took its checkpoints, snapshots and artifacts: its timeline is all that is left.
    const QString removedOn = qs(task->removedAt.substr(0, 10));
    const bool removed = !removedOn.isEmpty();
    if (removed)
        status += QStringLiteral(" · ") + tr("files removed %1").arg(removedOn);
    // It goes on elsewhere: the header says where, short (a long URL would widen the window); its tooltip
    // and the reply bar say it whole.
    const bool moved = task->status == TaskStatus::Moved;
    if (moved)
        status +=
            QStringLiteral(" · ") +
            tr("now at %1")
                .arg(task->movedTo == wire::kMoveHome ? tr("this computer") : QUrl(qs(task->movedTo)).host());
    m_status->setText(status);
    if (moved)
        m_status->setToolTip(movedText(*task));
    else
        m_status->setToolTip(
            removed ? tr("Its checkpoints, step snapshots and artifacts were removed on %1, when its "
                         "retention period ended; its timeline is kept. Rerun it to do "
                         "it again.")
                              .arg(removedOn) +
                          (task->error.empty() ? QString() : QStringLiteral("\n\n") + qs(task->error))
                    : qs(task->error));
    const bool active = task->status == TaskStatus::Running || task->status == TaskStatus::Queued;
    m_buttons["stop"]->setEnabled(active);
    if (m_stopAction)
        m_stopAction->setEnabled(active);
    m_buttons["resume"]->setEnabled(
        !removed && (task->status == TaskStatus::Paused || task->status == TaskStatus::Interrupted ||
                     task->status == TaskStatus::Sleeping || task->status == TaskStatus::Failed));
    m_buttons["rerun"]->setEnabled(!active);
    m_buttons["export"]->setEnabled(true);
    m_buttons["review"]->setEnabled(!removed);
    // A task moved home from a server had its change applied by the move.
    m_buttons["apply"]->setEnabled(!removed && !moved && control::isFinal(task->status));
    m_buttons["open"]->setEnabled(true);
    if (m_moveAction) {
        auto spec = control::TaskSpec::fromText(task->spec);
        const bool warrensAgent = spec && spec->agent == protocol::AgentKind::Warren;
        m_moveAction->setEnabled(!m_moving && !removed && warrensAgent && control::canMove(task->status));
        m_moveAction->setToolTip(
            m_moving ? tr("A move runs: wait for it")
            : !warrensAgent
                ? tr("Only a task of Warren's own agent moves: a CLI agent's session lives in its own files")
            : control::canMove(task->status)
                ? tr("It goes on there from where it stopped")
                : tr("Only a paused, interrupted, waiting or sleeping task moves"));
    }
    if (m_tasks->index(m_tasks->rowOf(task->id)).data(TaskListModel::DemoRole).toBool())
        m_reply->setRepliable(false, tr("The demo is a recorded agent: it takes no reply"));
    else if (moved)
        m_reply->setRepliable(false, movedText(*task));
    else if (removed)
        m_reply->setRepliable(false, tr("Its files went on %1 (retention period): rerun it").arg(removedOn));
    else
        m_reply->setRepliable(!active,
                              task->status == TaskStatus::Queued
                                  ? tr("The task waits for a free slot: wait for it, or Stop it, then reply")
                                  : tr("The agent is working: wait for it, or Stop it, then reply"));
    m_side->setActivity(m_timeline->activity(), elapsed);
}

void MainWindow::updateWelcome() {
    auto settings = m_plane.settings();
    const bool noModel = settings && settings->provider.empty();
    if (noModel)
        m_welcomeText->setText(
            tr("<h2>Welcome to Warren</h2><p>Warren runs AI agents in a sandbox %1 and shows everything they "
               "do.</p><p>No model is set up yet. The <b>scripted demo</b> plays a recorded agent fixing a failing "
               "test in a copy of a small demo workspace, inside the real sandbox: no model is called and none of "
               "your files are touched.</p>")
                .arg(m_plane.changesComeHome() ? tr("on the server (%1)").arg(qs(m_plane.describe()).toHtmlEscaped())
                                               : tr("on this computer")));
    else
        m_welcomeText->setText(tr("<h2>Warren</h2><p>Choose a task on the left, or describe a new one above and "
                                  "press Enter.</p>"));
    m_demoButton->setVisible(noModel);
}

void MainWindow::applySettings() {
    auto settings = m_plane.settings();
    if (!settings)
        return showProblem(qs(settings.error().message));
    QStringList recent;
    for (const auto& workspace : settings->recentWorkspaces)
        recent << qs(workspace);
    m_newTask->setRecentWorkspaces(recent);
    NewTaskBar::Defaults defaults{{}, qs(settings->model), QString::fromUtf8(protocol::agentKindName(settings->agent)),
                                 qs(sandbox::backendName(settings->backend)), qs(settings->network)};
    for (const auto& preset : settings->presets)
        defaults.presets << qs(preset);
    m_newTask->setDefaults(defaults);
    m_plane.hostSecrets(control::within(this, [this](Result<std::vector<wire::HostSecretEntry>> listed) {
        QStringList names;
        for (const auto& entry : listed ? *listed : std::vector<wire::HostSecretEntry>{})
            if (!names.contains(qs(entry.name))) // a user's own and their tenant's of one name: one choice
                names << qs(entry.name);
        m_newTask->setSecretNames(names); // none listed (or the list failed): no Secrets choice
    }));
}

SecretsDialog* MainWindow::showSecrets() {
    SecretsDialog* dialog = m_secretsDialog.data();
    if (!dialog) {
        dialog = new SecretsDialog(m_plane, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &SecretsDialog::changed, m_newTask, &NewTaskBar::setSecretNames);
        m_secretsDialog = dialog;
    }
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
}

// The selected task goes on with the message; its new events reach the timeline as they come.
void MainWindow::sendReply(const QString& message) {
    if (m_selected.isEmpty())
        return;
    const std::string task = m_selected.toStdString();
    m_plane.reply(task, message.toStdString(), control::within(this, [this, task](Status replied) {
        if (!replied)
            return showProblem(qs(replied.error().message));
        m_reply->clearMessage();
        refreshShown(task);
    }));
}

void MainWindow::refreshShown(const std::string& taskId) {
    m_tasks->refresh(taskId, [this, taskId] {
        if (qs(taskId) == m_selected) {
            updateHeader();
            showPlaceholders(); // a sandbox started or ended
        }
    });
}

// The placeholders a sandbox on this computer holds (or a killed one left, until the sweep) in the selected
// task's workspace are not listed as its files (sandbox/PlaceholderRecord.h: a few small files of this
// computer, read at once). The records name the canonical path; the panel shows the path the task has.
void MainWindow::showPlaceholders() {
    const TaskRecord* task = selectedRecord();
    if (!task)
        return;
    const QString workspace = qs(task->workspace);
    const QString canonical = QFileInfo(workspace).canonicalFilePath();
    QStringList paths;
    if (!canonical.isEmpty())
        for (const std::string& placeholder : sandbox::recordedPlaceholders(canonical.toStdString()))
            paths << workspace + qs(placeholder).mid(canonical.size());
    m_side->setPlaceholders(paths);
}

void MainWindow::submit(const NewTaskBar::Request& request) {
    auto settings = m_plane.settings();
    if (!settings)
        return showProblem(qs(settings.error().message));
    if (settings->provider.empty()) {
        statusBar()->showMessage(tr("Set up a model first (or run the scripted demo from the Warren menu)."), 10000);
        showModelSettings();
        return;
    }
    control::TaskSpec spec;
    spec.attended = true; // the window shows the agent's replies and takes the user's
    spec.provider = settings->provider;
    spec.model = request.model.isEmpty() ? settings->model : request.model.toStdString();
    for (const QString& preset : request.presets)
        spec.presets.push_back(preset.toStdString());
    spec.approval = control::ApprovalMode::Ask;
    auto backend = sandbox::parseBackend(request.backend.toStdString());
    if (!backend)
        return showProblem(qs(backend.error().message));
    spec.backend = *backend;
    spec.image = settings->image;
    spec.network = request.network.toStdString();
    for (const QString& secret : request.secrets)
        spec.secrets.push_back(secret.toStdString());
    auto agent = protocol::parseAgentKind(request.agent.toStdString());
    if (!agent)
        return showProblem(qs(agent.error().message));
    spec.agent = *agent;
    if (!settings->mcpServers.empty()) // the user's MCP servers, besides the workspace's .mcp.json
        spec.overrides["mcp_servers"] = settings->mcpServers;
    if (auto valid = control::validateSpec(spec); !valid)
        return showProblem(qs(valid.error().message));
    // One submission at a time from the bar: sending a workspace to a server takes a while, and a second
    // Enter meanwhile would make a second task.
    m_newTask->setEnabled(false);
    statusBar()->showMessage(m_plane.changesComeHome() ? tr("Sending the workspace to the server…")
                                                       : tr("Starting the task…"));
    m_plane.submit(request.prompt.toStdString(), request.workspace.toStdString(), spec,
                   control::within(this, [this](Result<TaskRecord> task) {
                       m_newTask->setEnabled(true);
                       if (!task)
                           return showProblem(qs(task.error().message));
                       statusBar()->clearMessage();
                       if (auto stored = m_plane.settings()) {
                           stored->recentWorkspaces = control::rememberWorkspace(stored->recentWorkspaces, task->workspace);
                           (void)m_plane.saveSettings(*stored);
                       }
                       applySettings();
                       m_newTask->clearPrompt();
                       showSubmitted(*task);
                   }));
}

void MainWindow::showSubmitted(const TaskRecord& task) {
    m_tasks->put(task);
    selectTask(qs(task.id));
    emit taskSubmitted(qs(task.id));
}

void MainWindow::runDemo() {
    control::TaskSpec spec;
    spec.attended = true;
    spec.approval = control::ApprovalMode::Ask;
    if (auto settings = m_plane.settings()) { // the demo runs in the sandbox the user chose
        spec.backend = settings->backend;
        spec.image = settings->image;
    }
    m_plane.submitDemo(spec, control::within(this, [this](Result<TaskRecord> task) {
        if (!task)
            return showProblem(qs(task.error().message));
        showSubmitted(*task);
    }));
}

void MainWindow::showSettings() { openSettings({}); }

void MainWindow::showModelSettings() {
    openSettings({}, /*atModel=*/true);
}

void MainWindow::showAbout() {
    if (auto* shown = findChild<QMessageBox*>("aboutWarren"))
        return shown->raise();
    auto* about =
        new QMessageBox(QMessageBox::NoIcon, tr("About Warren"), QString(), QMessageBox::Close, this);
    about->setObjectName("aboutWarren");
    about->setAttribute(Qt::WA_DeleteOnClose);
    about->setIconPixmap(windowIcon().pixmap(64, 64));
    about->setTextFormat(Qt::RichText);
    about->setTextInteractionFlags(Qt::TextBrowserInteraction);
    QString text = tr("<h3>Warren %1</h3><p>Runs AI agents in a sandbox and shows everything they do.</p>"
                      "<p>This window drives: %2</p>")
                       .arg(QStringLiteral(WARREN_VERSION), qs(m_plane.describe()).toHtmlEscaped());
    // Only what this installation has: the manual the package installs, the home page the build names.
    const QString manual =
        QApplication::applicationDirPath() + QStringLiteral("/../share/man/man1/warren.1.gz");
    if (QFileInfo::exists(manual))
        text += tr("<p>The manual: run <code>man warren</code> in a terminal.</p>");
    if (const QString home = QStringLiteral(WARREN_HOMEPAGE); !home.isEmpty())
        text += tr("<p>Documentation: <a href=\"%1\">%1</a></p>").arg(home.toHtmlEscaped());
    about->setText(text);
    about->open();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_quitConfirmed || !m_plane.runsTasksHere())
        return QMainWindow::closeEvent(event);
    event->ignore();
    // The tasks as the plane has them now (the list may be a refresh behind).
    m_plane.tasks(control::within(this, [this](Result<std::vector<TaskRecord>> listed) {
        std::vector<TaskStatus> statuses;
        if (!listed) // not known: asked as if one ran, rather than stopping one unasked
            statuses.push_back(TaskStatus::Running);
        for (const TaskRecord& task : listed ? *listed : std::vector<TaskRecord>{})
            statuses.push_back(task.status);
        askToQuit(tasksAtQuit(statuses));
    }));
}

void MainWindow::askToQuit(const TasksAtQuit& tasks) {
    if (!tasks.any()) {
        m_quitConfirmed = true;
        return (void)close();
    }
    if (auto* asked = findChild<QMessageBox*>("quitQuestion"))
        return asked->raise();
    auto* question = new QMessageBox(QMessageBox::Question, tr("Quit Warren?"), quitQuestionText(tasks),
                                     QMessageBox::NoButton, this);
    question->setObjectName("quitQuestion");
    question->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton* quit = question->addButton(tr("Quit anyway"), QMessageBox::DestructiveRole);
    quit->setObjectName("quitAnyway");
    QPushButton* stay = question->addButton(tr("Keep Warren open"), QMessageBox::RejectRole);
    stay->setObjectName("keepOpen");
    question->setDefaultButton(stay);
    connect(quit, &QPushButton::clicked, this, [this] {
        m_quitConfirmed = true;
        close();
    });
    question->open(); // window-modal, no loop of its own
}

void MainWindow::setPlaneChooser(control::PlaneChooser* chooser, control::PlaneChoice opened) {
    m_chooser = chooser;
    m_opened = std::move(opened);
    updateMoveAction();
}

void MainWindow::updateMoveAction() {
    m_moveTo = m_chooser ? m_chooser->moveDestination(m_plane) : std::nullopt;
    m_moveAction->setVisible(m_moveTo.has_value());
    if (m_moveTo) // a menu's & marks its key: one in a URL is shown as it is
        m_moveAction->setText(
            tr("Move to %1…").arg(destinationName(*m_moveTo).replace('&', QStringLiteral("&&"))));
    updateHeader();
}

void MainWindow::moveSelected() {
    const TaskRecord* task = selectedRecord();
    if (!task || !m_chooser || !m_moveTo || m_moving || !m_moveAction->isEnabled())
        return;
    if (auto* asked = findChild<QMessageBox*>("moveQuestion"))
        return asked->raise();
    const QString taskId = qs(task->id);
    const QString where = destinationName(*m_moveTo);
    const bool home = m_moveTo->kind == control::PlaneKind::Local;
    const QString text =
        home ? tr("<p>Task %1 comes to this computer and goes on here.</p>"
                  "<p>Its events and its conversation come from the server, and its change is applied to the "
                  "workspace it was submitted from; if you changed a file there that it changed too, nothing "
                  "moves and you are told which.</p>"
                  "<p>Here it waits for you: switch to this computer in Settings → Control plane, then "
                  "Resume it (or reply, if it asked you). The server's record of it says where it went.</p>")
                   .arg(taskId.toHtmlEscaped())
             : tr("<p>Task %1 moves to %2 and goes on there, from where it stopped.</p>"
                  "<p>Its workspace, its events and its conversation are sent to the server, which runs it "
                  "from now on; when it ends, Apply changes on the server's side brings its change "
                  "here.</p>"
                  "<p>Here its record stays, saying where it went; it can no longer be resumed or answered "
                  "here.</p>")
                   .arg(taskId.toHtmlEscaped(), where.toHtmlEscaped());
    auto* question = new QMessageBox(QMessageBox::Question, tr("Move the task to %1?").arg(where), text,
                                     QMessageBox::NoButton, this);
    question->setObjectName("moveQuestion");
    question->setAttribute(Qt::WA_DeleteOnClose);
    question->setTextFormat(Qt::RichText);
    QPushButton* move = question->addButton(tr("Move to %1").arg(where), QMessageBox::AcceptRole);
    move->setObjectName("confirmMove");
    QPushButton* cancel = question->addButton(QMessageBox::Cancel);
    question->setDefaultButton(cancel);
    connect(move, &QPushButton::clicked, this, [this, taskId, where, home] {
        if (m_moving)
            return;
        m_moving = true;
        updateHeader();
        statusBar()->showMessage(tr("Moving task %1 to %2…").arg(taskId, where));
        const std::string id = taskId.toStdString();
        m_chooser->moveTask(m_plane, id, this, [this, id, taskId, where, home](Result<TaskRecord> moved) {
            m_moving = false;
            refreshShown(id); // moved: its record says where; refused: as it was
            updateHeader();
            if (!moved) {
                statusBar()->clearMessage();
                auto* failed = new QMessageBox(QMessageBox::Warning, tr("The task was not moved"),
                                               qs(moved.error().message), QMessageBox::Close, this);
                failed->setObjectName("moveFailed");
                failed->setAttribute(Qt::WA_DeleteOnClose);
                failed->open();
                return;
            }
            statusBar()->showMessage(home ? tr("Task %1 moved to this computer (%2); Settings → Control "
                                               "plane → This computer shows it")
                                                .arg(taskId, statusText(moved->status))
                                          : tr("Task %1 moved to %2 as %3 (%4); it goes on there")
                                                .arg(taskId, where, qs(moved->id), statusText(moved->status)),
                                     30000);
        });
    });
    question->open(); // window-modal, no loop of its own
}

SettingsDialog* MainWindow::settingsDialog() const { return m_settingsDialog.data(); }

void MainWindow::openSettings(const QString& keyProblem, bool atModel) {
    SettingsDialog* dialog = m_settingsDialog.data();
    if (dialog) {
        dialog->raise();
        dialog->activateWindow();
    } else {
        // Window-modal without a nested loop of its own, so the window's events go on while it is open.
        dialog = new SettingsDialog(m_plane, this, PlaneContext{m_chooser, m_opened});
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QDialog::accepted, this, [this, dialog] {
            applySettings();
            updateWelcome();
            updateMoveAction(); // a server named (or no longer) while this computer's plane stays
            if (dialog->reopenNeeded())
                emit controlPlaneChosen();
        });
        m_settingsDialog = dialog;
        dialog->open();
    }
    if (ControlPlaneBox* box = dialog->controlPlaneBox(); box && !keyProblem.isEmpty())
        box->askForKey(keyProblem);
    else if (atModel)
        dialog->showModelSection();
}

void MainWindow::onKeyRejected(const QString& message) {
    m_connection->setText(message);
    m_connection->show();
    if (!m_chooser || m_askedForKey)
        return;
    m_askedForKey = true;
    openSettings(message);
}

void MainWindow::applyChanges() {
    const TaskRecord* task = selectedRecord();
    if (!task)
        return;
    const std::string taskId = task->id;
    QString workspace = qs(task->workspace);
    if (!QFileInfo(workspace).isDir()) {
        // Submitted from elsewhere (another computer, another data directory): the user says where it goes.
        workspace = QFileDialog::getExistingDirectory(this, tr("Apply the change of %1 to which workspace?").arg(qs(taskId)));
        if (workspace.isEmpty())
            return;
    }
    m_plane.planChanges(taskId, workspace.toStdString(), control::within(this, [this, taskId, workspace](Result<control::ChangesPlan> plan) {
        if (!plan)
            return showProblem(qs(plan.error().message));
        auto* dialog = new ApplyChangesDialog(qs(taskId), workspace, *plan, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QDialog::accepted, this, [this, taskId, workspace] {
            m_plane.applyChanges(taskId, workspace.toStdString(), control::within(this, [this, workspace](Result<control::ChangesPlan> applied) {
                if (!applied)
                    return showProblem(qs(applied.error().message));
                statusBar()->showMessage(appliedText(workspace, *applied), 30000);
            }));
        });
        dialog->open();
    }));
}

void MainWindow::notify(const QString& title, const QString& message, const QString& taskId) {
    statusBar()->showMessage(title + QStringLiteral(": ") + message, 10000);
    if (m_tray && !isActiveWindow()) {
        m_notifiedTask = taskId;
        m_tray->showMessage(title, message, QSystemTrayIcon::Information, 8000);
    }
}

void MainWindow::showProblem(const QString& message) {
    statusBar()->showMessage(message); // stays until the next message
}

void MainWindow::bringToFront() {
    if (isMinimized())
        showNormal();
    show();
    raise();
    activateWindow();
}

} // namespace warren::ui
