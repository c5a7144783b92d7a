#pragma once
// The window: tasks on the left, the selected task's live timeline in the centre with its controls, its
// files and resources on the right, and the new-task bar on top. Everything it shows comes from a
// ControlPlane; events for the selected task are buffered and applied in batches, so a task that floods
// output costs the window a few model updates a second, not one per line.

#include "app/control/ControlPlane.h"
#include "app/control/PlaneChooser.h"
#include "ui/windows/NewTaskBar.h"
#include "ui/windows/QuitQuestion.h"

#include <QMainWindow>
#include <QPointer>
#include <QTimer>
#include <set>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QListView;
class QPushButton;
class QStackedWidget;
class QSystemTrayIcon;

namespace warren::ui {

class ReplyBar;
class SecretsDialog;
class SettingsDialog;
class SidePanel;
class TaskFilterModel;
class TaskListModel;
class TimelineModel;
class TimelineView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    static constexpr int kEventBatchMs = 50;
    static constexpr int kTaskRefreshMs = 250;
    // A task opens at its end with this many events; as many more come in each time the user reaches
    // the top (see docs/BENCHMARKS.md, "The desktop window", for why this many).
    static constexpr std::size_t kPageEvents = 500;
    // The earlier events are counted for the side panel this many a turn of the event loop, none kept.
    static constexpr std::size_t kCountPageEvents = 2000;

    explicit MainWindow(control::ControlPlane& plane, QWidget* parent = nullptr);
    ~MainWindow() override;

    void selectTask(const QString& taskId);
    QString selectedTask() const { return m_selected; }
    void bringToFront();
    void runDemo();
    void showSettings();
    // "Set up a model…": Settings at the model, the focus in the first field to fill.
    void showModelSettings();
    void showAbout(); // Help > About Warren
    // Settings then offer the choice of control plane, and a refused key asks for a new one there; Task >
    // Move offers the move of a task to the other side, when there is one (a server named in Settings).
    // opened: the plane this window has (kind and server).
    void setPlaneChooser(control::PlaneChooser* chooser, control::PlaneChoice opened);
    // Task > Move to …: asks, then moves the selected task to the other side (PlaneChooser::moveTask).
    void moveSelected();
    QAction* moveAction() const { return m_moveAction; }

    // For tests and benchmarks: what the window shows.
    TaskListModel* taskList() const { return m_tasks; }
    TimelineModel* timeline() const { return m_timeline; }
    TimelineView* timelineView() const { return m_timelineView; }
    NewTaskBar* newTaskBar() const { return m_newTask; }
    ReplyBar* replyBar() const { return m_reply; }
    SidePanel* sidePanel() const { return m_side; }
    QPushButton* button(const QString& name) const; // "stop", "resume", "rerun", "review", "export", "apply", "open"
    void rewindToStep(std::uint64_t step); // "Rewind to here" on a step of the timeline: asks, then rewinds
    void forkFromStep(std::uint64_t step); // "Fork from here": asks, then makes the new task and selects it
    void undoRewind(); // "Undo the last rewind": lists what it puts back (files, conversation), asks, undoes
    SettingsDialog* settingsDialog() const; // while it is open
    SecretsDialog* showSecrets();           // Warren > Secrets…: opens it (or raises it) and returns it
    void flushEvents(); // applies the buffered events now (the batch timer calls it)
    void loadEarlier(); // the page before the first event shown (the timeline asks when its top shows)
    // For tests: whether the selected task's earlier events are still being counted for the side panel.
    bool countingEarlier() const { return m_counting; }

protected:
    // Quitting (the window closed, or Quit) while this computer's tasks run asks first, saying what
    // happens to them (QuitQuestion).
    void closeEvent(QCloseEvent* event) override;

signals:
    void taskSubmitted(const QString& taskId);
    void tasksListed(); // the task list was read (again) from the plane
    // Settings saved another control plane (or a new key for the server): the desktop opens it again.
    void controlPlaneChosen();

private:
    void buildControls();
    void buildMenus();
    void connectPlane();
    void showSubmitted(const control::TaskRecord& task); // selects the new task
    void refreshShown(const std::string& taskId);        // its row, and the header when it is selected
    void countPage(const Result<std::vector<nlohmann::json>>& events);
    void submit(const NewTaskBar::Request& request);
    void focusReplyIfWaiting();
    void sendReply(const QString& message);
    void onEventStored(const std::string& taskId, const nlohmann::json& event);
    void countEarlier(); // one page of the events before those the timeline counted itself
    void refreshDirtyTasks();
    void updateHeader();
    void updateWelcome();
    void notify(const QString& title, const QString& message, const QString& taskId);
    void showPlaceholders();
    void showProblem(const QString& message);
    void openSettings(const QString& keyProblem, bool atModel = false);
    void askToQuit(const TasksAtQuit& tasks); // closes at once when none runs
    void onKeyRejected(const QString& message);
    void applyChanges();
    void updateMoveAction(); // where Task > Move goes, if anywhere (Settings may have named a server)
    void review();
    void timelineMenu(const QPoint& position);
    void applySettings();
    const control::TaskRecord* selectedRecord() const;
    qint64 selectedElapsedMs() const;

    control::ControlPlane& m_plane;
    TaskListModel* m_tasks;
    TaskFilterModel* m_filtered;
    TimelineModel* m_timeline;

    NewTaskBar* m_newTask;
    ReplyBar* m_reply = nullptr;
    QListView* m_taskView;
    QComboBox* m_filter;
    QStackedWidget* m_centre;
    QWidget* m_welcome;
    QLabel* m_welcomeText;
    QPushButton* m_demoButton;
    QLabel* m_title;
    QLabel* m_status;
    std::map<QString, QPushButton*> m_buttons;
    TimelineView* m_timelineView;
    SidePanel* m_side;
    QSystemTrayIcon* m_tray = nullptr;
    QString m_notifiedTask;
    QLabel* m_planeLabel;  // which control plane this is, always in the status bar
    QLabel* m_connection;  // the server's connection problem, while there is one
    control::PlaneChooser* m_chooser = nullptr;
    control::PlaneChoice m_opened;
    QPointer<SettingsDialog> m_settingsDialog;
    QPointer<SecretsDialog> m_secretsDialog;
    QAction* m_stopAction = nullptr; // Task > Stop, enabled with the Stop button
    QAction* m_moveAction = nullptr; // Task > Move to …, shown when the chooser names the other side
    std::optional<control::MoveDestination> m_moveTo;
    bool m_moving = false;           // a move runs: one at a time
    bool m_quitConfirmed = false;    // the user answered the quit question: close for real
    bool m_askedForKey = false; // a refused key opens Settings once; afterwards the status bar says it

    QString m_selected;
    std::vector<nlohmann::json> m_pending; // the selected task's events not yet in the timeline
    bool m_pageLoading = false;            // a page of its events is asked for: m_pending waits for it
    std::uint64_t m_shownGeneration = 0;   // counts selections: an answer for an earlier one is dropped
    std::set<std::string> m_dirty;         // tasks whose row should be read again
    QTimer m_eventTimer;
    QTimer m_refreshTimer;
    QTimer m_clock; // elapsed times of running tasks
    bool m_counting = false; // the events before the page are being counted
    std::uint64_t m_countBefore = 0; // the earlier events still to count are those before this seq
};

} // namespace warren::ui
