#pragma once
// The live timeline: a list view of TimelineModel's cards that follows the newest card unless the user
// scrolled up, lays out again only when a card's height really changed, and puts the Approve / Deny bar
// into each waiting approval card.

#include "ui/views/ApprovalBar.h"

#include <QListView>

namespace warren::ui {

class TimelineDelegate;
class TimelineModel;

class TimelineView : public QListView {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    void setTimeline(TimelineModel* model);
    bool following() const { return m_follow; }

signals:
    void approvalAnswered(const warren::ui::ApprovalAnswer& answer);

protected:
    void dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>& roles) override;
    void rowsInserted(const QModelIndex& parent, int start, int end) override;
    void updateGeometries() override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void syncApprovalBars(int first, int last);

    TimelineModel* m_model = nullptr;
    TimelineDelegate* m_delegate;
    bool m_follow = true;
};

} // namespace warren::ui
