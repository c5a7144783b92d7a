#pragma once
// A running task's snapshots, taken off the event loop: TaskRunner asks for one when the agent starts a
// step (step_started) and at the end, and holds the agent's next request (the step's model call) until the
// snapshot is taken or its time budget has passed, so that a snapshot before step N holds nothing step N
// did, and no snapshot holds the agent up for longer than the budget. One worker thread per task takes
// them in order; the shadow repository is ShadowRepo's.

#include "app/snapshots/SnapshotMeta.h"
#include "common/Result.h"

#include <QObject>
#include <QThread>
#include <QTimer>
#include <chrono>
#include <deque>
#include <filesystem>
#include <functional>
#include <string>

namespace warren::snapshots {

class TaskSnapshots : public QObject {
    Q_OBJECT
public:
    // checkpoint: the agent's checkpoint file, copied beside each step's snapshot
    // (ShadowRepo::checkpointCopy) so that a rewind of the conversation can put it back. heldPaths: the
    // sandbox's protected paths (SnapshotRules::heldPaths).
    TaskSnapshots(std::filesystem::path shadowDir, std::filesystem::path workspace,
                  std::filesystem::path checkpoint, std::vector<std::string> heldPaths,
                  std::chrono::milliseconds budget, QObject* parent = nullptr);
    ~TaskSnapshots() override; // waits for the snapshot being taken

    void take(SnapshotMeta::Kind kind, std::uint64_t step);
    // then runs now when no snapshot is pending, else when they are all taken or the budget since the
    // oldest pending one has passed, whichever is first; in the order given.
    void whenTaken(std::function<void()> then);
    // then runs once every snapshot asked for is taken, however long that takes (the task's end).
    void afterAll(std::function<void()> then);
    bool pending() const { return m_pending > 0; }

signals:
    // One per take(): "" when it was recorded, else why not.
    void taken(quint64 step, const QString& problem, qint64 elapsedMs);

private:
    void release();

    std::filesystem::path m_shadowDir, m_workspace, m_checkpoint;
    std::vector<std::string> m_heldPaths;
    QThread m_thread;
    QObject* m_worker = nullptr; // lives in m_thread
    int m_pending = 0;
    bool m_overBudget = false; // until none is pending, nothing more is held
    QTimer m_budget;
    std::deque<std::function<void()>> m_held;
    std::deque<std::function<void()>> m_afterAll;
};

} // namespace warren::snapshots
