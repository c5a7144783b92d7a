#include "ui/views/TimelineDelegate.h"

#include "ui/models/TimelineModel.h"

#include <QAbstractItemView>
#include <QFontDatabase>
#include <QMouseEvent>
#include <QPainter>
#include <QTextLayout>
#include <algorithm>
#include <cmath>

namespace warren::ui {

namespace {

using Kind = TimelineItem::Kind;
using State = TimelineItem::State;

constexpr int kMargin = 4;  // between cards
constexpr int kPad = 8;     // inside a card
constexpr int kNestIndent = 24; // a sub-agent's cards, per level of nesting
constexpr int kBar = 4;     // the state colour on a card's left edge
constexpr int kGap = 3;     // between a card's parts

const TimelineItem* itemOf(const QModelIndex& index) {
    const auto* model = qobject_cast<const TimelineModel*>(index.model());
    return model ? model->item(index.row()) : nullptr;
}

QColor stateColour(State state, const QPalette& palette) {
    switch (state) {
    case State::Running:
        return palette.color(QPalette::Highlight);
    case State::Succeeded:
    case State::Approved:
        return QColor(0x2e, 0x9e, 0x5b);
    case State::Failed:
    case State::Denied:
        return QColor(0xd0, 0x3b, 0x3b);
    case State::Waiting:
    case State::Warning:
        return QColor(0xd9, 0x8c, 0x1f);
    case State::Plain:
        break;
    }
    return palette.color(QPalette::Mid);
}

// A plain notice without output (checkpoint, resumed) is one quiet line, not a card.
bool isCompact(const TimelineItem& item) {
    return item.kind == Kind::Notice && item.state == State::Plain && item.body.isEmpty();
}

bool monospaceTitle(Kind kind) { return kind == Kind::ToolCall || kind == Kind::Approval || kind == Kind::FileChange; }

QFont titleFont(const QFont& base, const QFont& mono, Kind kind) {
    QFont font = monospaceTitle(kind) ? mono : base;
    font.setBold(true);
    return font;
}

QFont smallFont(const QFont& base) {
    QFont font = base;
    font.setPointSizeF(base.pointSizeF() * 0.9);
    return font;
}

// Where each visual row of a wrapped line starts (a tab takes four columns, as it is drawn): after the last
// space of a full row when there is one in its second half, else where the row is full.
std::vector<qsizetype> rowStarts(QStringView text, int columns) {
    const auto widthOf = [text](qsizetype from, qsizetype to) {
        int width = 0;
        for (qsizetype i = from; i < to; ++i)
            width += text[i] == u'\t' ? 4 : 1;
        return width;
    };
    std::vector<qsizetype> starts{0};
    int column = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const int width = text[i] == u'\t' ? 4 : 1;
        if (column + width > columns && column > 0) {
            qsizetype next = i;
            for (qsizetype space = i - 1; space > starts.back() + columns / 2; --space)
                if (text[space] == u' ') {
                    next = space + 1;
                    break;
                }
            starts.push_back(next);
            column = widthOf(next, i);
        }
        column += width;
    }
    return starts;
}

qsizetype wrappedRows(const StyledText& body, int columns) {
    qsizetype rows = 0;
    for (qsizetype i = 0; i < body.lineCount(); ++i)
        rows += static_cast<qsizetype>(rowStarts(body.line(i).text, columns).size());
    return rows;
}

// Text wrapped at words, and inside a word longer than the line: how prose and a question's reason wrap.
QTextOption wrapped() {
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    return option;
}

int wrappedHeight(const QString& text, const QFont& font, int width) {
    QTextLayout layout(text, font);
    layout.setTextOption(wrapped());
    layout.beginLayout();
    qreal height = 0;
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        line.setPosition(QPointF(0, height));
        height += line.height();
    }
    layout.endLayout();
    return static_cast<int>(std::ceil(height));
}

qsizetype collapsedLimit(const TimelineItem& item) {
    return item.kind == Kind::FileChange ? TimelineDelegate::kCollapsedDiffLines
                                         : TimelineDelegate::kCollapsedOutputLines;
}

} // namespace

TimelineDelegate::TimelineDelegate(QObject* parent)
    : QStyledItemDelegate(parent), m_mono(QFontDatabase::systemFont(QFontDatabase::FixedFont)) {}

void TimelineDelegate::forgetLayouts() {
    m_prose.clear();
    m_heightsOf.clear();
}

std::pair<qsizetype, qsizetype> TimelineDelegate::shownLines(const TimelineItem& item) {
    const qsizetype total = item.body.lineCount();
    const qsizetype limit = collapsedLimit(item);
    if (item.expanded || total <= limit || item.kind == Kind::Approval || item.kind == Kind::Plan)
        return {0, total};
    // Output: its end, where the errors and the summary are. A diff: its start.
    return item.kind == Kind::FileChange ? std::pair{qsizetype{0}, limit} : std::pair{total - limit, limit};
}

int TimelineDelegate::proseHeight(const TimelineItem& item, const QFont& font, int width) const {
    ProseLayout& cached = m_prose[&item];
    if (cached.width == width && cached.length == item.prose.size())
        return cached.height;
    cached = {width, item.prose.size(), wrappedHeight(item.prose, font, width)};
    return cached.height;
}

const TimelineDelegate::Heights& TimelineDelegate::heights(const QFont& font) const {
    if (m_heights.text == 0 || m_heights.font != font) {
        m_heightsOf.clear(); // measured with the old font
        m_prose.clear();
        m_heights.font = font;
        m_heights.text = QFontMetrics(font).height();
        m_heights.title = QFontMetrics(titleFont(font, m_mono, Kind::Notice)).height();
        m_heights.monoTitle = QFontMetrics(titleFont(font, m_mono, Kind::ToolCall)).height();
        m_heights.small = QFontMetrics(smallFont(font)).height();
        m_heights.monoLine = QFontMetrics(m_mono).lineSpacing();
        // Measured over many characters: one character's advance, rounded, may be a fraction short.
        m_heights.monoAdvance =
            std::max(0.5, QFontMetricsF(m_mono).horizontalAdvance(QString(100, u'M')) / 100.0);
    }
    return m_heights;
}

TimelineDelegate::Geometry TimelineDelegate::geometry(const TimelineItem& item, const QRect& row,
                                                      const QFont& font) const {
    Geometry g;
    // A sub-agent's work nests under the task's, as deep as it was started (at most four levels shown).
    const QRect rect = row.adjusted(kNestIndent * static_cast<int>(std::min<std::uint64_t>(item.depth, 4)), 0, 0, 0);
    const Heights& h = heights(font);
    if (item.kind == Kind::Step || isCompact(item)) {
        g.card = rect.adjusted(kMargin, item.kind == Kind::Step ? kMargin + 4 : 1, -kMargin, 0);
        g.title = QRect(g.card.left(), g.card.top(), g.card.width(), h.text);
        g.card.setBottom(g.title.bottom());
        return g;
    }
    g.card = rect.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const int left = g.card.left() + kBar + kPad;
    const int width = std::max(40, g.card.right() - kPad - left);
    int y = g.card.top() + kPad;
    if (!item.title.isEmpty()) {
        g.title = QRect(left, y, width, monospaceTitle(item.kind) ? h.monoTitle : h.title);
        y = g.title.bottom() + 1;
    } else {
        y -= kGap; // the model's text needs no title
    }
    if (!item.detail.isEmpty()) {
        // A question's reason is read before answering it: wrapped whole, where other cards cut theirs.
        const int detailHeight =
            item.kind == Kind::Approval ? wrappedHeight(item.detail, smallFont(font), width) : h.small;
        g.detail = QRect(left, y + kGap, width, std::max(h.small, detailHeight));
        y = g.detail.bottom() + 1;
    }
    if (!item.prose.isEmpty()) {
        g.prose = QRect(left, y + kGap, width, proseHeight(item, font, width));
        y = g.prose.bottom() + 1;
    }
    if (!item.body.isEmpty()) {
        const qsizetype count = item.kind == Kind::Approval ? wrappedRows(item.body, wrapColumns(width))
                                                            : shownLines(item).second;
        g.body = QRect(left, y + kGap, width, static_cast<int>(count) * h.monoLine + 2 * kGap);
        y = g.body.bottom() + 1;
        if (item.kind != Kind::Approval && item.kind != Kind::Plan && item.body.lineCount() > collapsedLimit(item)) {
            g.toggle = QRect(left, y + kGap, width, h.text);
            y = g.toggle.bottom() + 1;
        }
    }
    if (item.kind == Kind::Agent && item.members > 0) { // its work, folded into it
        g.toggle = QRect(left, y + kGap, width, h.text);
        y = g.toggle.bottom() + 1;
    }
    if (item.kind == Kind::Approval && item.state == State::Waiting) {
        g.approvalBar = QRect(left, y + kGap, width, kApprovalBarHeight);
        y = g.approvalBar.bottom() + 1;
    }
    g.card.setBottom(y + kPad);
    return g;
}

QSize TimelineDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const TimelineItem* item = itemOf(index);
    if (!item)
        return {};
    const int width = option.rect.width() > 0 ? option.rect.width() : 600;
    heights(option.font); // first: a new font empties the cache
    const auto found = m_heightsOf.constFind(item);
    if (found != m_heightsOf.cend() && found->width == width && found->version == item->version)
        return {option.rect.width(), found->height};
    const Geometry g = geometry(*item, QRect(0, 0, width, 0), option.font);
    const int height = g.card.bottom() + 1 + kMargin;
    m_heightsOf.insert(item, {width, item->version, height});
    return {option.rect.width(), height};
}

QRect TimelineDelegate::toggleRect(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const TimelineItem* item = itemOf(index);
    return item ? geometry(*item, option.rect, option.font).toggle : QRect();
}

void TimelineDelegate::updateEditorGeometry(QWidget* editor, const QStyleOptionViewItem& option,
                                            const QModelIndex& index) const {
    if (const TimelineItem* item = itemOf(index))
        editor->setGeometry(geometry(*item, option.rect, option.font).approvalBar);
}

void TimelineDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const TimelineItem* item = itemOf(index);
    if (!item)
        return;
    const QPalette& palette = option.palette;
    const Geometry g = geometry(*item, option.rect, option.font);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);

    if (item->kind == Kind::Step) {
        QFont font = smallFont(option.font);
        font.setBold(true);
        painter->setFont(font);
        painter->setPen(palette.color(QPalette::PlaceholderText));
        const int textWidth = QFontMetrics(font).horizontalAdvance(item->title);
        painter->drawText(g.title, Qt::AlignLeft | Qt::AlignVCenter, item->title);
        const int lineY = g.title.center().y();
        painter->setPen(palette.color(QPalette::Midlight));
        painter->drawLine(g.title.left() + textWidth + 8, lineY, g.title.right(), lineY);
        painter->restore();
        return;
    }
    if (isCompact(*item)) {
        painter->setFont(smallFont(option.font));
        painter->setPen(palette.color(QPalette::PlaceholderText));
        const QString line = item->detail.isEmpty() ? item->title : item->title + QStringLiteral(" · ") + item->detail;
        painter->drawText(g.title.adjusted(kBar + kPad, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                          QFontMetrics(painter->font()).elidedText(line, Qt::ElideRight, g.title.width()));
        painter->restore();
        return;
    }

    QColor cardColour = palette.color(QPalette::Base);
    if (item->kind == Kind::Notice || item->kind == Kind::Step)
        cardColour = palette.color(QPalette::Window);
    painter->setPen(QPen(palette.color(QPalette::Midlight), 1));
    painter->setBrush(cardColour);
    painter->drawRoundedRect(QRectF(g.card).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
    painter->setPen(Qt::NoPen);
    painter->setBrush(stateColour(item->state, palette));
    painter->drawRoundedRect(QRectF(g.card.left(), g.card.top(), kBar + 2, g.card.height()), 3, 3);

    if (!g.title.isEmpty()) {
        painter->setPen(palette.color(QPalette::Text));
        painter->setFont(titleFont(option.font, m_mono, item->kind));
        const QString title = QFontMetrics(painter->font()).elidedText(item->title, Qt::ElideRight, g.title.width());
        painter->drawText(g.title, Qt::AlignLeft | Qt::AlignVCenter, title);
    }

    if (!g.detail.isEmpty()) {
        painter->setFont(smallFont(option.font));
        painter->setPen(item->state == State::Failed || item->state == State::Denied ? stateColour(item->state, palette)
                                                                                      : palette.color(QPalette::PlaceholderText));
        if (item->kind == Kind::Approval)
            painter->drawText(QRectF(g.detail), item->detail, wrapped());
        else
            painter->drawText(g.detail, Qt::AlignLeft | Qt::AlignVCenter,
                              QFontMetrics(painter->font())
                                  .elidedText(item->detail.simplified(), Qt::ElideRight, g.detail.width()));
    }
    if (!g.prose.isEmpty()) {
        painter->setFont(option.font);
        painter->setPen(palette.color(QPalette::Text));
        painter->drawText(QRectF(g.prose), item->prose, wrapped()); // as proseHeight measured it
    }
    if (!g.body.isEmpty()) {
        QRect visible = option.rect;
        if (const auto* view = qobject_cast<const QAbstractItemView*>(option.widget))
            visible = view->viewport()->rect();
        paintBody(painter, *item, g.body, visible, palette);
    }
    if (!g.toggle.isEmpty()) {
        painter->setFont(option.font);
        painter->setPen(palette.color(QPalette::Link));
        const qsizetype count = shownLines(*item).second;
        const QString text = item->kind == Kind::Agent
                                 ? (item->expanded      ? tr("Hide its work")
                                    : item->members == 1 ? tr("Show its work (1 card)")
                                                         : tr("Show its work (%1 cards)").arg(item->members))
                             : item->expanded ? tr("Show less")
                                              : tr("Show all %1 lines (%2 hidden)")
                                                    .arg(item->body.lineCount())
                                                    .arg(item->body.lineCount() - count);
        painter->drawText(g.toggle, Qt::AlignLeft | Qt::AlignVCenter, text);
    }
    painter->restore();
}

void TimelineDelegate::paintBody(QPainter* painter, const TimelineItem& item, const QRect& body, const QRect& visible,
                                 const QPalette& palette) const {
    const QColor base = palette.color(QPalette::AlternateBase);
    painter->setPen(Qt::NoPen);
    painter->setBrush(base);
    painter->drawRoundedRect(body, 4, 4);
    if (m_coloursFor != base) {
        m_colours.clear();
        m_coloursFor = base;
    }
    auto colour = [&](int xterm) {
        auto it = m_colours.find(xterm);
        if (it == m_colours.end())
            it = m_colours.insert(xterm, paletteColor(xterm, base));
        return *it;
    };

    painter->save();
    painter->setClipRect(body.adjusted(kGap, 0, -kGap, 0));
    QFontMetrics metrics(m_mono);
    const int lineHeight = metrics.lineSpacing();
    const bool wraps = item.kind == Kind::Approval;
    const int columns = wrapColumns(body.width());
    const auto [first, count] = shownLines(item);
    const int top = body.top() + kGap;
    // Only the lines the viewport shows (an approval's few wrapped rows are all laid out).
    const qsizetype from = wraps ? 0 : std::max<qsizetype>(0, (visible.top() - top) / lineHeight);
    const qsizetype to =
        wraps ? count : std::min<qsizetype>(count, (visible.bottom() - top) / lineHeight + 1);
    QFont font = m_mono;
    int row = wraps ? 0 : static_cast<int>(from); // the visual row being drawn
    for (qsizetype i = from; i < to; ++i) {
        const StyledText::Line line = item.body.line(first + i);
        const std::vector<qsizetype> starts =
            wraps ? rowStarts(line.text, columns) : std::vector<qsizetype>{0};
        std::size_t rowIndex = 0;
        qsizetype rowEnd = starts.size() > 1 ? starts[1] : line.text.size();
        int baseline = top + row * lineHeight + metrics.ascent();
        qreal x = body.left() + 2 * kGap;
        qsizetype at = 0;
        auto drawPiece = [&](qsizetype start, qsizetype length, const TextStyle* style) {
            if (length <= 0)
                return;
            QString text = line.text.mid(start, length).toString();
            text.replace(u'\t', QStringLiteral("    "));
            font.setBold(style && style->bold);
            font.setItalic(style && style->italic);
            font.setUnderline(style && style->underline);
            painter->setFont(font);
            const QFontMetrics styled(font);
            const qreal width = styled.horizontalAdvance(text);
            int fg = style ? style->fg : kDefaultColor;
            int bg = style ? style->bg : kDefaultColor;
            if (style && style->inverse)
                std::swap(fg, bg);
            if (bg != kDefaultColor)
                painter->fillRect(QRectF(x, baseline - metrics.ascent(), width, lineHeight), xtermColor(bg));
            QColor pen = fg != kDefaultColor ? colour(fg) : palette.color(QPalette::Text);
            if (style && style->inverse && fg == kDefaultColor)
                pen = base;
            if (style && style->dim)
                pen.setAlphaF(0.6f);
            painter->setPen(pen);
            painter->drawText(QPointF(x, baseline), text);
            x += width;
        };
        auto draw = [&](qsizetype start, qsizetype length, const TextStyle* style) {
            // A piece that crosses the end of a wrapped row continues at the start of the next.
            while (length > 0 && start + length > rowEnd && rowIndex + 1 < starts.size()) {
                const qsizetype head = std::max<qsizetype>(0, rowEnd - start);
                if (head > 0)
                    drawPiece(start, head, style);
                start += head;
                length -= head;
                ++rowIndex;
                ++row;
                rowEnd = rowIndex + 1 < starts.size() ? starts[rowIndex + 1] : line.text.size();
                baseline += lineHeight;
                x = body.left() + 2 * kGap;
            }
            drawPiece(start, length, style);
        };
        for (const StyledText::Span& span : line.spans) {
            draw(at, span.start - at, nullptr);
            draw(span.start, span.length, &span.style);
            at = span.start + span.length;
        }
        draw(at, line.text.size() - at, nullptr);
        row += 1;
    }
    painter->restore();
}

int TimelineDelegate::wrapColumns(int bodyWidth) const {
    return std::max(
        8, static_cast<int>(std::floor((bodyWidth - 4 * kGap) / std::max(0.5, m_heights.monoAdvance))));
}

bool TimelineDelegate::editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                                   const QModelIndex& index) {
    if (event->type() == QEvent::MouseButtonRelease) {
        const auto* mouse = static_cast<QMouseEvent*>(event);
        if (mouse->button() == Qt::LeftButton && toggleRect(option, index).contains(mouse->position().toPoint())) {
            emit toggleClicked(index);
            return true;
        }
    }
    return QStyledItemDelegate::editorEvent(event, model, option, index);
}

} // namespace warren::ui
