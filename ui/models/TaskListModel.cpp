#include "ui/models/TaskListModel.h"

#include "app/tasks/TaskSpec.h"

#include <QDateTime>
#include <algorithm>

namespace warren::ui {

using control::TaskRecord;
using control::TaskStatus;

namespace {

// "2026-11-29T10:52:03.123Z" -> milliseconds since the epoch; -1 when it does not parse.
std::int64_t parseTimestampMs(const std::string& text) {
    const QDateTime time = QDateTime::fromString(QString::fromStdString(text), Qt::ISODateWithMs);
    return time.isValid() ? time.toMSecsSinceEpoch() : -1;
}

bool isDemo(const TaskRecord& task) {
    const auto spec = control::TaskSpec::fromText(task.spec);
    return spec && spec->demo;
}

qint64 elapsedMs(const TaskRecord& task) {
    const std::int64_t started = parseTimestampMs(task.startedAt);
    if (started < 0)
        return 0;
    const std::int64_t finished = parseTimestampMs(task.finishedAt);
    const std::int64_t end = finished >= 0 && task.status != TaskStatus::Running ? finished
                                                                                  : QDateTime::currentMSecsSinceEpoch();
    return std::max<qint64>(0, end - started);
}

} // namespace

QString statusText(TaskStatus status) { return QString::fromUtf8(control::taskStatusName(status)); }

QString listedStatus(TaskStatus status, bool asking) {
    if (asking && !control::isFinal(status)) // the record read before the question may still say queued
        return TaskListModel::tr("waits for your answer");
    if (status == TaskStatus::Waiting)
        return TaskListModel::tr("waits for your reply");
    if (status == TaskStatus::Sleeping)
        return TaskListModel::tr("asleep, waits for your answer");
    return statusText(status);
}

QString elapsedText(qint64 ms) {
    const qint64 seconds = ms / 1000;
    if (seconds < 60)
        return QStringLiteral("%1 s").arg(seconds);
    if (seconds < 3600)
        return QStringLiteral("%1 min %2 s").arg(seconds / 60).arg(seconds % 60);
    return QStringLiteral("%1 h %2 min").arg(seconds / 3600).arg((seconds % 3600) / 60);
}

TaskListModel::TaskListModel(control::ControlPlane& plane, QObject* parent)
    : QAbstractListModel(parent), m_plane(plane) {}

void TaskListModel::reload(std::function<void(Status)> then) {
    m_plane.tasks(control::within(this, [this, then = std::move(then)](Result<std::vector<TaskRecord>> tasks) {
        if (!tasks)
            return then(tasks.error());
        beginResetModel();
        m_tasks = std::move(*tasks);
        std::stable_sort(m_tasks.begin(), m_tasks.end(),
                         [](const TaskRecord& a, const TaskRecord& b) { return a.createdAt > b.createdAt; });
        m_demo.clear();
        for (const auto& task : m_tasks)
            m_demo.push_back(isDemo(task));
        endResetModel();
        then(Ok{});
    }));
}

void TaskListModel::refresh(const std::string& taskId, std::function<void()> then) {
    m_plane.task(taskId, control::within(this, [this, then = std::move(then)](Result<std::optional<TaskRecord>> task) {
        if (!task || !*task)
            return;
        put(**task);
        if (then)
            then();
    }));
}

void TaskListModel::put(const TaskRecord& task) {
    const int row = rowOf(task.id);
    if (row < 0) {
        beginInsertRows({}, 0, 0); // the newest task goes on top
        m_tasks.insert(m_tasks.begin(), task);
        m_demo.insert(m_demo.begin(), isDemo(task));
        endInsertRows();
        return;
    }
    m_tasks[static_cast<std::size_t>(row)] = task;
    emit dataChanged(index(row), index(row));
}

void TaskListModel::questionAsked(const std::string& taskId, const std::string& callId) {
    if (m_questions[taskId].insert(callId).second)
        changed(taskId);
}

void TaskListModel::questionAnswered(const std::string& taskId, const std::string& callId) {
    const auto it = m_questions.find(taskId);
    if (it == m_questions.end() || it->second.erase(callId) == 0)
        return;
    if (it->second.empty())
        m_questions.erase(it);
    changed(taskId);
}

void TaskListModel::questionsEnded(const std::string& taskId) {
    if (m_questions.erase(taskId) > 0)
        changed(taskId);
}

bool TaskListModel::asking(const std::string& taskId) const {
    return m_questions.count(taskId) > 0;
}

void TaskListModel::changed(const std::string& taskId) {
    if (const int row = rowOf(taskId); row >= 0)
        emit dataChanged(index(row), index(row));
}

int TaskListModel::rowOf(const std::string& taskId) const {
    const auto it = std::find_if(m_tasks.begin(), m_tasks.end(), [&](const TaskRecord& task) { return task.id == taskId; });
    return it == m_tasks.end() ? -1 : static_cast<int>(it - m_tasks.begin());
}

const TaskRecord* TaskListModel::record(int row) const {
    return row >= 0 && static_cast<std::size_t>(row) < m_tasks.size() ? &m_tasks[static_cast<std::size_t>(row)] : nullptr;
}

int TaskListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_tasks.size());
}

QVariant TaskListModel::data(const QModelIndex& index, int role) const {
    const TaskRecord* task = record(index.row());
    if (!task)
        return {};
    switch (role) {
    case Qt::DisplayRole: {
        const QString prompt = QString::fromStdString(task->prompt).simplified();
        return m_demo[static_cast<std::size_t>(index.row())] ? tr("Demo: %1").arg(prompt) : prompt;
    }
    case Qt::ToolTipRole:
        return QString::fromStdString(task->prompt + "\n\n" + task->workspace +
                                      (task->error.empty() ? "" : "\n\n" + task->error));
    case IdRole:
        return QString::fromStdString(task->id);
    case StatusRole:
        return static_cast<int>(task->status);
    case WorkspaceRole:
        return QString::fromStdString(task->workspace);
    case ElapsedRole:
        return elapsedMs(*task);
    case TokensRole:
        return static_cast<qulonglong>(task->tokensIn + task->tokensOut);
    case StepsRole:
        return static_cast<qulonglong>(task->steps);
    case DemoRole:
        return m_demo[static_cast<std::size_t>(index.row())];
    case AskingRole:
        return asking(task->id) && !control::isFinal(task->status);
    default:
        return {};
    }
}

void TaskFilterModel::setFilter(Filter filter) {
    m_filter = filter;
    invalidateFilter();
}

bool TaskFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    const auto status = static_cast<TaskStatus>(index.data(TaskListModel::StatusRole).toInt());
    const bool waitsForYou = status == TaskStatus::Waiting || status == TaskStatus::Sleeping ||
                             index.data(TaskListModel::AskingRole).toBool();
    switch (m_filter) {
    case Filter::All:
        return true;
    case Filter::Active:
        return status == TaskStatus::Queued || status == TaskStatus::Running;
    case Filter::WaitingForYou:
        return waitsForYou;
    case Filter::NeedsAttention:
        return waitsForYou || status == TaskStatus::Paused || status == TaskStatus::Interrupted ||
               status == TaskStatus::Failed;
    case Filter::Finished:
        return control::isFinal(status);
    }
    return true;
}

} // namespace warren::ui
