#include "ui/models/StyledText.h"

#include <algorithm>

namespace warren::ui {

void StyledText::append(const std::vector<StyledRun>& runs) {
    for (const StyledRun& run : runs)
        append(QString::fromUtf8(run.text.data(), static_cast<qsizetype>(run.text.size())), run.style);
}

void StyledText::append(const QString& text, const TextStyle& style) {
    if (text.isEmpty())
        return;
    const qsizetype start = m_text.size();
    m_text += text;
    if (style != TextStyle{}) {
        if (!m_spans.empty() && m_spans.back().style == style && m_spans.back().start + m_spans.back().length == start)
            m_spans.back().length += text.size();
        else
            m_spans.push_back({start, text.size(), style});
    }
    for (qsizetype at = text.indexOf(u'\n'); at >= 0; at = text.indexOf(u'\n', at + 1))
        m_lineStarts.push_back(start + at + 1);
}

void StyledText::clear() {
    m_text.clear();
    m_spans.clear();
    m_lineStarts.assign(1, 0);
}

qsizetype StyledText::lineCount() const {
    const auto starts = static_cast<qsizetype>(m_lineStarts.size());
    return m_lineStarts.back() == m_text.size() ? starts - 1 : starts;
}

StyledText::Line StyledText::line(qsizetype index) const {
    Line line;
    if (index < 0 || index >= lineCount())
        return line;
    const qsizetype start = m_lineStarts[static_cast<std::size_t>(index)];
    qsizetype end = index + 1 < static_cast<qsizetype>(m_lineStarts.size())
                        ? m_lineStarts[static_cast<std::size_t>(index + 1)] - 1
                        : m_text.size();
    line.text = QStringView(m_text).mid(start, end - start);
    // The first span that ends after the line starts; spans are sorted and disjoint.
    auto it = std::lower_bound(m_spans.begin(), m_spans.end(), start,
                               [](const Span& span, qsizetype at) { return span.start + span.length <= at; });
    for (; it != m_spans.end() && it->start < end; ++it) {
        const qsizetype from = std::max(it->start, start);
        const qsizetype to = std::min(it->start + it->length, end);
        if (to > from)
            line.spans.push_back({from - start, to - from, it->style});
    }
    return line;
}

} // namespace warren::ui
