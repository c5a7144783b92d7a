#pragma once
// The live timeline: a list view of TimelineModel's cards that follows the newest card unless the user
// scrolled up, lays out again only when a card's height really changed, and puts the Approve / Deny bar
// into each waiting approval card. A task shown from its end asks for earlier events (earlierWanted) when
// the user reaches the top, and keeps the card at the top where it was when they are put above it. A
// sub-agent's work is folded into its Agent card (hidden rows) until the user expands that card.

#include "ui/views/ApprovalBar.h"

#include <QListView>
#include <cstdint>
#include <utility>
#include <vector>

namespace warren::ui {

class TimelineDelegate;
class TimelineModel;

class TimelineView : public QListView {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    void setTimeline(TimelineModel* model);
    bool following() const { return m_follow; }
    // Scrolls to the row, expanding the Agent cards it is folded into.
    void reveal(int row);

signals:
    void approvalAnswered(const warren::ui::ApprovalAnswer& answer);
    // The top is reached (or the cards do not fill the view) and the model has earlier events to page in.
    void earlierWanted();

protected:
    void dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>& roles) override;
    void rowsInserted(const QModelIndex& parent, int start, int end) override;
    void updateGeometries() override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void syncApprovalBars(int first, int last);
    void syncFolded(int first, int last); // hides the rows of sub-agents' work that is folded
    void askForEarlier(); // once per turn of the event loop, when the top shows and there is more
    void rememberTopCard();
    void restoreTopCard();

    TimelineModel* m_model = nullptr;
    TimelineDelegate* m_delegate;
    bool m_follow = true;
    bool m_askQueued = false;
    // The cards in the viewport before a prepend (the event that made each) and where each began, top
    // first: the first of them still there afterwards is put back where the user saw it. (A card made by
    // an output whose call is on the new page is gone: the output joined its call's card.)
    std::vector<std::pair<std::uint64_t, int>> m_anchors;
};

} // namespace warren::ui
