#include "ui/views/TimelineView.h"

#include "ui/models/TimelineModel.h"
#include "ui/views/ApprovalBar.h"
#include "ui/views/TimelineDelegate.h"

#include <QScrollBar>

namespace warren::ui {

namespace {
constexpr int kFollowSlack = 8; // pixels from the end that still count as "at the end"
}

TimelineView::TimelineView(QWidget* parent) : QListView(parent), m_delegate(new TimelineDelegate(this)) {
    setItemDelegate(m_delegate);
    setVerticalScrollMode(ScrollPerPixel);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Always there, so the cards' width does not change when a long timeline first needs it: that
    // would lay out every card a second time at the new width.
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setUniformItemSizes(false);
    setResizeMode(Adjust);
    setSelectionMode(NoSelection);
    setFocusPolicy(Qt::StrongFocus);
    setFrameShape(QFrame::NoFrame);
    setEditTriggers(NoEditTriggers);
    verticalScrollBar()->setSingleStep(24);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        m_follow = value >= verticalScrollBar()->maximum() - kFollowSlack;
    });
    connect(m_delegate, &TimelineDelegate::toggleClicked, this, [this](const QModelIndex& index) {
        if (const TimelineItem* item = m_model ? m_model->item(index.row()) : nullptr) {
            m_model->setExpanded(index.row(), !item->expanded);
            scheduleDelayedItemsLayout();
        }
    });
}

void TimelineView::setTimeline(TimelineModel* model) {
    m_model = model;
    setModel(model);
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        m_delegate->forgetLayouts();
        m_follow = true;
    });
}

void TimelineView::rowsInserted(const QModelIndex& parent, int start, int end) {
    QListView::rowsInserted(parent, start, end);
    syncApprovalBars(start, end);
}

void TimelineView::dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>& roles) {
    // Not QListView's: in list mode it lays out every row again on any change. A growing output keeps its
    // height once it shows its last lines; only a real change of height lays out again.
    QAbstractItemView::dataChanged(topLeft, bottomRight, roles);
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
        const QModelIndex index = model()->index(row, 0);
        option.rect = visualRect(index);
        if (m_delegate->sizeHint(option, index).height() != option.rect.height()) {
            scheduleDelayedItemsLayout();
            break;
        }
    }
    syncApprovalBars(topLeft.row(), bottomRight.row());
}

void TimelineView::updateGeometries() {
    QListView::updateGeometries();
    if (m_follow)
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

void TimelineView::resizeEvent(QResizeEvent* event) {
    QListView::resizeEvent(event);
    if (m_follow)
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

void TimelineView::syncApprovalBars(int first, int last) {
    if (!m_model)
        return;
    for (int row = first; row <= last; ++row) {
        const TimelineItem* item = m_model->item(row);
        if (!item || item->kind != TimelineItem::Kind::Approval)
            continue;
        const QModelIndex index = m_model->index(row);
        const bool waiting = item->state == TimelineItem::State::Waiting;
        if (waiting && !indexWidget(index)) {
            auto* bar = new ApprovalBar(item->callId, item->commandPrefix);
            connect(bar, &ApprovalBar::answered, this, &TimelineView::approvalAnswered);
            setIndexWidget(index, bar);
        } else if (!waiting && indexWidget(index)) {
            setIndexWidget(index, nullptr);
        }
    }
}

} // namespace warren::ui
