#include "ui/views/TaskListDelegate.h"

#include "ui/models/TaskListModel.h"

#include <QApplication>
#include <QDir>
#include <QPainter>

namespace warren::ui {

using control::TaskStatus;

QColor statusColour(int status, const QPalette& palette) {
    switch (static_cast<TaskStatus>(status)) {
    case TaskStatus::Running:
        return palette.color(QPalette::Highlight);
    case TaskStatus::Succeeded:
        return QColor(0x2e, 0x9e, 0x5b);
    case TaskStatus::Failed:
        return QColor(0xd0, 0x3b, 0x3b);
    case TaskStatus::Paused:
    case TaskStatus::Interrupted:
        return QColor(0xd9, 0x8c, 0x1f);
    case TaskStatus::Waiting:  // the agent asked the user
    case TaskStatus::Sleeping: // it waits for the user's answer, its sandbox released
        return QColor(0x8a, 0x5c, 0xd6);
    case TaskStatus::Queued:
    case TaskStatus::Cancelled:
    case TaskStatus::Moved: // it goes on elsewhere
        break;
    }
    return palette.color(QPalette::Mid);
}

QSize TaskListDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex&) const {
    return {option.rect.width(), 2 * option.fontMetrics.height() + 14};
}

void TaskListDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    const bool selected = option.state & QStyle::State_Selected;
    const QPalette& palette = option.palette;
    const int status = index.data(TaskListModel::StatusRole).toInt();
    const bool asking = index.data(TaskListModel::AskingRole).toBool();
    const QRect rect = option.rect.adjusted(10, 6, -8, -6);
    const int lineHeight = option.fontMetrics.height();

    painter->setPen(Qt::NoPen);
    // A task waiting for the user's answer is marked as one waiting for their reply is: its turn is theirs.
    painter->setBrush(statusColour(asking ? static_cast<int>(TaskStatus::Waiting) : status, palette));
    painter->drawEllipse(QRect(rect.left(), rect.top() + lineHeight / 2 - 4, 8, 8));

    const QRect text = rect.adjusted(16, 0, 0, 0);
    QFont bold = option.font;
    bold.setBold(true);
    painter->setFont(bold);
    painter->setPen(palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(QRect(text.left(), text.top(), text.width(), lineHeight), Qt::AlignLeft | Qt::AlignVCenter,
                      QFontMetrics(bold).elidedText(index.data().toString(), Qt::ElideRight, text.width()));

    const auto tokens = index.data(TaskListModel::TokensRole).toULongLong();
    // The workspace by its folder's name; the whole path is in the task's tooltip and header.
    const QString workspace = QDir(index.data(TaskListModel::WorkspaceRole).toString()).dirName();
    const QString facts = QStringLiteral("%1 · %2 · %3 · %4")
                              .arg(listedStatus(static_cast<TaskStatus>(status), asking),
                                   elapsedText(index.data(TaskListModel::ElapsedRole).toLongLong()),
                                   tr("%1 tokens").arg(tokens), workspace);
    QFont small = option.font;
    small.setPointSizeF(option.font.pointSizeF() * 0.9);
    painter->setFont(small);
    painter->setPen(palette.color(selected ? QPalette::HighlightedText : QPalette::PlaceholderText));
    // Cut at the end: the status, first, stays in sight in a narrow list.
    painter->drawText(QRect(text.left(), text.top() + lineHeight + 2, text.width(), lineHeight),
                      Qt::AlignLeft | Qt::AlignVCenter,
                      QFontMetrics(small).elidedText(facts, Qt::ElideRight, text.width()));
    painter->restore();
}

} // namespace warren::ui
