#pragma once
// The tasks of the control plane, newest first, for the list on the left. Rows are re-read from the
// control plane when told a task changed; refreshes of one task are coalesced by the caller.

#include "app/control/ControlPlane.h"

#include <QAbstractListModel>
#include <QSortFilterProxyModel>
#include <map>
#include <set>
#include <vector>

namespace warren::ui {

class TaskListModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        IdRole = Qt::UserRole + 1,
        StatusRole,
        WorkspaceRole,
        ElapsedRole,
        TokensRole,
        DemoRole,
        StepsRole,
        AskingRole, // bool: a question of the task waits for the user's answer (an approval, a network
                    // question)
    };

    explicit TaskListModel(control::ControlPlane& plane, QObject* parent = nullptr);

    // Reads every task again; then runs once they are in (or with why not).
    void reload(std::function<void(Status)> then);
    // Re-reads one task (adds it when new); then runs once it is in, if it still exists.
    void refresh(const std::string& taskId, std::function<void()> then = {});
    void put(const control::TaskRecord& task); // one task's record as the caller has it
    int rowOf(const std::string& taskId) const;
    const control::TaskRecord* record(int row) const;
    // The questions of running tasks that wait for the user (ControlPlane::approvalNeeded, answered by an
    // approval_resolved event); a task that ended has none.
    void questionAsked(const std::string& taskId, const std::string& callId);
    void questionAnswered(const std::string& taskId, const std::string& callId);
    void questionsEnded(const std::string& taskId);
    bool asking(const std::string& taskId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

private:
    control::ControlPlane& m_plane;
    std::vector<control::TaskRecord> m_tasks;
    std::vector<bool> m_demo;
    std::map<std::string, std::set<std::string>> m_questions; // task -> its questions waiting
    void changed(const std::string& taskId);
};

// Which tasks the list shows.
class TaskFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    // WaitingForYou: a question waits for the user's answer, or the agent waits for their reply.
    enum class Filter { All, Active, WaitingForYou, NeedsAttention, Finished };
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setFilter(Filter filter);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    Filter m_filter = Filter::All;
};

QString statusText(control::TaskStatus status); // "running", "waiting", ...
// What the list says of a task: "waits for your answer" while a question waits, else statusText.
QString listedStatus(control::TaskStatus status, bool asking);
QString elapsedText(qint64 ms);                  // "4 s", "2 min 5 s", "1 h 3 min"

} // namespace warren::ui
