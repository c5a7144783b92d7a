#pragma once
// The live timeline of one task for the desktop: the events are folded by timeline::TimelineFold (pure,
// shared with every face), and this model only adapts its cards to Qt, styling bodies as they grow. A
// batch of events costs one insertion and one change notification, however many events it holds. Events
// are taken once, by their store seq.

#include "app/timeline/TaskCounters.h"
#include "app/timeline/TimelineFold.h"
#include "ui/models/TimelineItem.h"

#include <QAbstractListModel>
#include <deque>
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
    // Events in seq order; those at or below the last seq taken are skipped, and so are those the
    // protocol's readers refuse.
    void append(const std::vector<nlohmann::json>& events);
    void setExpanded(int row, bool expanded);

    const QString& taskId() const { return m_taskId; }
    std::uint64_t lastSeq() const { return m_lastSeq; }
    const TimelineItem* item(int row) const;
    const timeline::TaskCounters& activity() const { return m_fold.counters(); }
    // The row of the last card about path (its latest diff), or -1.
    int lastChangeOf(const QString& path) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

signals:
    void activityChanged();

private:
    void sync(std::size_t index); // the item from its card

    QString m_taskId;
    timeline::TimelineFold m_fold;
    std::deque<TimelineItem> m_items; // one per card; deque: an item stays where it is while others are added
    std::size_t m_committed = 0;      // rows the view knows of; the rest are being built by append()
    std::uint64_t m_lastSeq = 0;
};

} // namespace warren::ui
