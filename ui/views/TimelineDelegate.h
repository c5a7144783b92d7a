#pragma once
// Paints the timeline's cards (TimelineModel) and answers their sizes: the model's text wrapped, tool
// output and diffs in a monospace font with their colours, the last lines of a long output (the first of
// a long diff) with "show all", and room under a waiting approval for its buttons. Only the lines inside
// the viewport are painted, so a card of 100,000 lines costs what a screenful does.

#include "ui/models/TimelineItem.h"

#include <QHash>
#include <QStyledItemDelegate>

namespace warren::ui {

class TimelineDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    static constexpr int kCollapsedOutputLines = 12;
    static constexpr int kCollapsedDiffLines = 40;
    static constexpr int kApprovalBarHeight = 36;

    explicit TimelineDelegate(QObject* parent = nullptr);

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    // Where the "show all / show less" link of the card is, or an empty rect.
    QRect toggleRect(const QStyleOptionViewItem& option, const QModelIndex& index) const;
    // A waiting approval's buttons (ApprovalBar, an index widget) go into the room left for them.
    void updateEditorGeometry(QWidget* editor, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const override;
    // The lines of the body shown now: [first, first + count).
    static std::pair<qsizetype, qsizetype> shownLines(const TimelineItem& item);

    void forgetLayouts(); // the model was reset: the cards are gone

signals:
    void toggleClicked(const QModelIndex& index);

protected:
    bool editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                     const QModelIndex& index) override;

private:
    struct Geometry {
        QRect card;
        QRect title;
        QRect detail; // empty when none
        QRect prose;  // empty when none
        QRect body;   // empty when none
        QRect toggle; // empty when the body is shown whole and short
        QRect approvalBar;
    };
    // Line heights for the view's font, measured once per font: sizeHint runs for every card at each layout.
    struct Heights {
        QFont font;
        int text = 0;      // the view's font
        int title = 0;     // bold
        int monoTitle = 0; // bold monospace
        int small = 0;     // details
        int monoLine = 0;  // output and diff lines
        qreal monoAdvance = 0; // one character of the monospace font
    };
    const Heights& heights(const QFont& font) const;
    Geometry geometry(const TimelineItem& item, const QRect& rect, const QFont& font) const;
    int proseHeight(const TimelineItem& item, const QFont& font, int width) const;
    void paintBody(QPainter* painter, const TimelineItem& item, const QRect& body, const QRect& visible,
                   const QPalette& palette) const;
    // An approval's body is shown whole: its long lines wrap at the card's width (a command cut at the edge
    // is not one a person can judge). Columns of the monospace font that fit in a body width.
    int wrapColumns(int bodyWidth) const;

    QFont m_mono;
    struct ProseLayout {
        int width = -1;
        qsizetype length = -1;
        int height = 0;
    };
    mutable QHash<const TimelineItem*, ProseLayout> m_prose;
    struct CachedHeight {
        int width = -1;
        std::uint32_t version = 0;
        int height = 0;
    };
    mutable QHash<const TimelineItem*, CachedHeight> m_heightsOf; // a layout of 40,000 cards asks each
    mutable Heights m_heights;
    mutable QHash<int, QColor> m_colours; // xterm colour -> readable on the current base colour
    mutable QColor m_coloursFor;
};

} // namespace warren::ui
