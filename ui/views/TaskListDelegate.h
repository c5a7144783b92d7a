#pragma once
// A row of the task list: a status dot, the task's prompt, and under it the workspace, the elapsed time
// and the tokens used.

#include <QStyledItemDelegate>

namespace warren::ui {

class TaskListDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

QColor statusColour(int status, const QPalette& palette); // a control::TaskStatus

} // namespace warren::ui
