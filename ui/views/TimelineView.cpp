#include "ui/views/TimelineView.h"

#include "ui/models/TimelineModel.h"
#include "ui/views/ApprovalBar.h"
#include "ui/views/TimelineDelegate.h"

#include <QScrollBar>
#include <QTimer>
#include <algorithm>

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
        if (value <= verticalScrollBar()->minimum() + kFollowSlack)
            askForEarlier();
    });
    connect(m_delegate, &TimelineDelegate::toggleClicked, this, [this](const QModelIndex& index) {
        if (const TimelineItem* item = m_model ? m_model->item(index.row()) : nullptr) {
            m_model->setExpanded(index.row(), !item->expanded);
            if (item->kind == TimelineItem::Kind::Agent) {
                m_follow = false; // the user reads the card they opened, not the newest one below
                syncFolded(index.row() + 1, m_model->rowCount() - 1);
            }
            scheduleDelayedItemsLayout();
        }
    });
}

void TimelineView::setTimeline(TimelineModel* model) {
    m_model = model;
    setModel(model);
    connect(model, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        if (m_model->prepending())
            rememberTopCard();
    });
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        m_delegate->forgetLayouts();
        syncFolded(0, m_model->rowCount() - 1);
        if (m_model->prepending()) {
            restoreTopCard();
            syncApprovalBars(0, m_model->rowCount() - 1);
        } else {
            m_follow = true;
        }
    });
}

void TimelineView::askForEarlier() {
    if (m_askQueued || !m_model || !m_model->hasEarlier())
        return;
    // Not from inside a scroll or a layout: the answer resets the model.
    m_askQueued = true;
    QTimer::singleShot(0, this, [this] {
        m_askQueued = false;
        executeDelayedItemsLayout(); // a model just reset has no scroll range until its rows are laid out
        const QScrollBar* bar = verticalScrollBar();
        if (m_model && m_model->hasEarlier() && bar->value() <= bar->minimum() + kFollowSlack)
            emit earlierWanted();
    });
}

void TimelineView::reveal(int row) {
    if (!m_model || !m_model->item(row))
        return;
    for (const TimelineItem* at = m_model->item(row); at->agentRow != 0;) {
        const int agentRow = static_cast<int>(at->agentRow);
        at = m_model->item(agentRow);
        if (!at)
            return;
        if (!at->expanded)
            m_model->setExpanded(agentRow, true);
    }
    syncFolded(0, m_model->rowCount() - 1);
    executeDelayedItemsLayout();
    scrollTo(m_model->index(row), QAbstractItemView::PositionAtTop);
}

void TimelineView::syncFolded(int first, int last) {
    for (int row = first; row <= last; ++row) {
        const bool folded = m_model->folded(row);
        if (isRowHidden(row) != folded)
            setRowHidden(row, folded);
    }
}

void TimelineView::rememberTopCard() {
    m_anchors.clear();
    // Row 0 is the prompt, which stays first: the cards below it are the ones the user was reading.
    for (int row = std::max(indexAt(QPoint(1, 1)).row(), 1); row < m_model->rowCount(); ++row) {
        if (isRowHidden(row))
            continue;
        const QRect rect = visualRect(m_model->index(row));
        if (rect.top() >= viewport()->height())
            break;
        m_anchors.emplace_back(m_model->item(row)->firstSeq, rect.top());
    }
}

void TimelineView::restoreTopCard() {
    m_follow = false;
    // Cards are made in event order: below the prompt, their first seqs grow with the row.
    const auto rowOf = [this](std::uint64_t seq) {
        int low = 1, high = m_model->rowCount();
        while (low < high) {
            const int middle = (low + high) / 2;
            if (m_model->item(middle)->firstSeq < seq)
                low = middle + 1;
            else
                high = middle;
        }
        return low < m_model->rowCount() && m_model->item(low)->firstSeq == seq ? low : -1;
    };
    for (const auto& [seq, top] : m_anchors) {
        const int row = rowOf(seq);
        if (row < 0 || isRowHidden(row)) // folded into an Agent card: the refold shows it collapsed
            continue;
        executeDelayedItemsLayout(); // the rows' positions now, not at the next layout
        verticalScrollBar()->setValue(verticalScrollBar()->value() + visualRect(m_model->index(row)).top() - top);
        break;
    }
    m_anchors.clear();
    askForEarlier(); // the page added nothing that shows: the top is still in view
}

void TimelineView::rowsInserted(const QModelIndex& parent, int start, int end) {
    QListView::rowsInserted(parent, start, end);
    syncFolded(start, end);
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
    if (verticalScrollBar()->maximum() == 0)
        askForEarlier(); // the cards do not fill the view: no scrolling would ever reach for more
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
            auto* bar = new ApprovalBar(item->callId, item->commandPrefix, item->networkTarget);
            connect(bar, &ApprovalBar::answered, this, &TimelineView::approvalAnswered);
            setIndexWidget(index, bar);
        } else if (!waiting && indexWidget(index)) {
            setIndexWidget(index, nullptr);
        }
    }
}

} // namespace warren::ui
