#pragma once
// The live timeline of one task, built incrementally from its events: a run of output chunks grows one
// card, a streamed reply grows another, and a batch of events costs one insertion and one change
// notification, however many events it holds. Events are taken once, by their store seq.

#include "TaskActivity.h"
#include "TimelineItem.h"

#include <QAbstractListModel>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

namespace warren::ui {

class TimelineModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role { KindRole = Qt::UserRole + 1, StateRole, CallIdRole };

    using QAbstractListModel::QAbstractListModel;

    // The task's prompt, shown as its first card.
    void reset(const QString& taskId, const QString& prompt);
    // Events in seq order; those at or below the last seq taken are skipped.
    void append(const std::vector<nlohmann::json>& events);
    void setExpanded(int row, bool expanded);

    const QString& taskId() const { return m_taskId; }
    std::uint64_t lastSeq() const { return m_lastSeq; }
    const TimelineItem* item(int row) const;
    const TaskActivity& activity() const { return m_activity; }
    // The row of the last card about path (its latest diff), or -1.
    int lastChangeOf(const QString& path) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

signals:
    void activityChanged();

private:
    class Batch;
    void take(const nlohmann::json& event, Batch& batch);
    TimelineItem& newItem(TimelineItem::Kind kind, std::uint64_t step, std::uint64_t seq);

    QString m_taskId;
    std::deque<TimelineItem> m_items;   // deque: a pending item stays where it is while others are added
    std::size_t m_committed = 0;        // rows the view knows of; the rest are being built by append()
    std::uint64_t m_lastSeq = 0;
    std::map<QString, std::size_t> m_calls;     // tool call or approval id -> item
    std::map<QString, std::size_t> m_approvals; // call id -> its approval card
    std::map<QString, std::size_t> m_lastChange;
    std::optional<std::size_t> m_streaming; // the reply being streamed in the current step
    TaskActivity m_activity;
};

} // namespace warren::ui
