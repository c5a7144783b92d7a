#pragma once
// Text shown in a monospace view with colours: a tool's output (ANSI colours kept), a diff. Built by
// appending, in arrival order; lines are indexed as they complete, so a view of the last lines or of the
// lines in a scrolled-to window never walks the whole text.

#include "ui/text/AnsiText.h"

#include <QString>
#include <QStringView>
#include <vector>

namespace warren::ui {

class StyledText {
public:
    struct Span {
        qsizetype start = 0; // into text()
        qsizetype length = 0;
        TextStyle style;
    };
    struct Line {
        QStringView text;             // without the newline
        std::vector<Span> spans;      // styled parts, start relative to the line
    };

    void append(const std::vector<StyledRun>& runs);
    void append(const QString& text, const TextStyle& style = {});
    void clear();

    const QString& text() const { return m_text; }
    bool isEmpty() const { return m_text.isEmpty(); }
    // Lines, the last one counted only when it has text: "a\nb" and "a\nb\n" both have two.
    qsizetype lineCount() const;
    Line line(qsizetype index) const;

private:
    QString m_text;
    std::vector<Span> m_spans;         // non-default styles only, in order, not overlapping
    std::vector<qsizetype> m_lineStarts{0};
};

} // namespace warren::ui
