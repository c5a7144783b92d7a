#pragma once
// The live timeline of one task for the desktop: the events are folded by timeline::TimelineFold (pure,
// shared with every face), and this model only adapts its cards to Qt, styling bodies as they grow. A
// batch of events costs one insertion and one change notification, however many events it holds. Events
// are taken once, by their store seq.
//
// A long task is shown from its end: the window appends the latest page, then prepends earlier pages as
// the user scrolls up. A prepend folds again from the new first event (a call's output then joins its
// call) over the events the window reads again for it, so it costs what is shown and the model keeps no
// events, only cards; it is one model reset during which prepending() is true (the view keeps its place). The counters (activity) are the whole task's: the fold's once it starts at the
// task's first event, else those of the appended events with the earlier ones the window counted
// (addEarlierCounts) in front.

#include "app/timeline/TaskCounters.h"
#include "app/timeline/TimelineFold.h"
#include "ui/models/TimelineItem.h"

#include <QAbstractListModel>
#include <deque>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace warren::ui {

class TimelineModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role { KindRole = Qt::UserRole + 1, StateRole, CallIdRole, StepRole };

    using QAbstractListModel::QAbstractListModel;

    // The task's prompt, shown as its first card.
    // How the approvals still waiting read the file an edit would change, to show the change against it
    // (TimelineFold::previewWaitingApprovals, after each batch of events); none: a server's task.
    void setFileReader(timeline::FileReader readFile) { m_readFile = std::move(readFile); }
    void reset(const QString& taskId, const QString& prompt);
    // Events in seq order; those at or below the last seq taken are skipped, and so are those the
    // protocol's readers refuse.
    void append(const std::vector<nlohmann::json>& events);
    // Shows the task from an earlier event: events, in seq order, are a page before the first one shown
    // followed by every event shown (up to lastSeq(); newer ones are taken too). reachesStart: there are
    // none before them. Events that do not reach lastSeq() change nothing: cards would be lost.
    void prepend(const std::vector<nlohmann::json>& events, bool reachesStart);
    // The counters of events before the first appended one, a page at a time, each page earlier than the
    // last; complete: the task's first event is counted.
    void addEarlierCounts(const timeline::TaskCounters& page, bool complete);
    void setExpanded(int row, bool expanded);
    // Whether the row is a sub-agent's work whose Agent card (or one above it) is not expanded: the view
    // hides it. Never an approval: a question to the user stays in sight.
    bool folded(int row) const;

    const QString& taskId() const { return m_taskId; }
    std::uint64_t lastSeq() const { return m_lastSeq; }
    std::uint64_t firstSeq() const { return m_firstSeq; } // of the first event taken; 0: none yet
    std::size_t eventCount() const { return m_eventCount; } // events taken since the first
    bool hasEarlier() const { return !foldHasAll(); } // events before the first shown, to page in
    bool prepending() const { return m_prepending; }
    // What the appended events did not count: the window counts the events before them.
    bool needsEarlierCounts() const { return !foldHasAll() && m_appendedFrom > 1 && !m_earlierComplete; }
    std::uint64_t appendedFrom() const { return m_appendedFrom; }
    const TimelineItem* item(int row) const;
    const timeline::TaskCounters& activity() const;
    // The row of the last card about path (its latest diff), or -1.
    int lastChangeOf(const QString& path) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

signals:
    void activityChanged();

private:
    bool foldHasAll() const { return m_reachesStart || m_firstSeq <= 1; } // from the task's first event
    void sync(std::size_t index); // the item from its card
    void previewWaiting(std::set<std::size_t>* changed);
    // One event past lastSeq() into the fold and the items; changed collects the items it changed,
    // counters (when given) count it too.
    void take(const nlohmann::json& event, std::set<std::size_t>* changed, timeline::TaskCounters* counters);

    QString m_taskId;
    std::string m_prompt;
    timeline::TimelineFold m_fold;
    timeline::FileReader m_readFile;
    std::deque<TimelineItem> m_items; // one per card; deque: an item stays where it is while others are added
    std::size_t m_committed = 0;      // rows the view knows of; the rest are being built by append()
    std::uint64_t m_lastSeq = 0;
    std::uint64_t m_firstSeq = 0;
    std::size_t m_eventCount = 0;
    bool m_reachesStart = false;
    bool m_prepending = false;

    // The whole task's counters while the fold does not start at its first event: those of the appended
    // events (from m_appendedFrom on; a prepend does not change them) with the earlier ones in front.
    std::uint64_t m_appendedFrom = 0;
    timeline::TaskCounters m_appended;
    timeline::TaskCounters m_earlier;
    bool m_earlierComplete = false;
    mutable timeline::TaskCounters m_whole;
    mutable bool m_wholeStale = true;
};

} // namespace warren::ui
