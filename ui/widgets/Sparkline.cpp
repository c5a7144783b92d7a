#include "ui/widgets/Sparkline.h"

#include <QPainter>
#include <QPolygonF>
#include <algorithm>
#include <cmath>

namespace warren::ui {

namespace {

constexpr int kMargin = 2;
constexpr int kTextGap = 2; // between the text row and the chart

double sanitized(double sample) {
    return std::isfinite(sample) && sample > 0.0 ? sample : 0.0;
}

QString defaultFormat(double value) {
    // Whole numbers stay whole; small fractions (a load of 0.4) keep one decimal.
    const bool whole = std::abs(value - std::round(value)) < 1e-9 || std::abs(value) >= 100.0;
    return QString::number(value, 'f', whole ? 0 : 1);
}

} // namespace

Sparkline::Sparkline(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    updateAccessibleText();
}

void Sparkline::setSamples(std::vector<double> samples) {
    m_samples = std::move(samples);
    for (double& sample : m_samples)
        sample = sanitized(sample);
    updateAccessibleText();
    update();
}

void Sparkline::setLabel(QString label) {
    m_label = std::move(label);
    updateAccessibleText();
    update();
}

void Sparkline::setValueFormatter(std::function<QString(double)> formatter) {
    m_formatter = std::move(formatter);
    updateAccessibleText();
    update();
}

QString Sparkline::displayText() const {
    if (m_samples.empty())
        return QStringLiteral("—");
    const double latest = m_samples.back();
    return m_formatter ? m_formatter(latest) : defaultFormat(latest);
}

QRect Sparkline::chartRect() const {
    const int top = kMargin + fontMetrics().height() + kTextGap;
    return QRect(QPoint(kMargin, top), QPoint(width() - 1 - kMargin, height() - 1 - kMargin));
}

QSize Sparkline::sizeHint() const {
    return QSize(160, std::max(40, fontMetrics().height() + 24));
}

QSize Sparkline::minimumSizeHint() const {
    return QSize(60, fontMetrics().height() + 12);
}

void Sparkline::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette& colors = palette();

    const QString value = displayText();
    const QRect textRow(kMargin, kMargin, width() - 2 * kMargin, fontMetrics().height());
    const int valueWidth = fontMetrics().horizontalAdvance(value);
    painter.setPen(colors.color(QPalette::WindowText));
    painter.drawText(textRow, Qt::AlignRight | Qt::AlignVCenter, value);
    painter.setPen(colors.color(QPalette::PlaceholderText));
    const int labelWidth = std::max(0, textRow.width() - valueWidth - 6);
    painter.drawText(textRow.adjusted(0, 0, -(textRow.width() - labelWidth), 0),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     fontMetrics().elidedText(m_label, Qt::ElideRight, labelWidth));

    // Inset so the line at the top and the baseline are not clipped, and lie on pixel centres (crisp, not
    // smeared over two rows).
    const QRectF chart = QRectF(chartRect()).adjusted(1.5, 1.5, -1.5, -1.5);
    if (chart.width() <= 0 || chart.height() <= 0)
        return;
    if (m_samples.empty()) {
        painter.setPen(QPen(colors.color(QPalette::Mid), 1.0));
        painter.drawLine(QPointF(chart.left(), chart.bottom()), QPointF(chart.right(), chart.bottom()));
        return;
    }

    const double maximum = *std::max_element(m_samples.begin(), m_samples.end());
    const auto yFor = [&](double sample) {
        return maximum > 0.0 ? chart.bottom() - sample / maximum * chart.height() : chart.bottom();
    };
    QPolygonF line;
    if (m_samples.size() == 1) {
        line << QPointF(chart.left(), yFor(m_samples.front()))
             << QPointF(chart.right(), yFor(m_samples.front()));
    } else {
        const double step = chart.width() / static_cast<double>(m_samples.size() - 1);
        line.reserve(static_cast<qsizetype>(m_samples.size()));
        for (std::size_t i = 0; i < m_samples.size(); ++i)
            line << QPointF(chart.left() + step * static_cast<double>(i), yFor(m_samples[i]));
    }

    const QColor lineColor = colors.color(QPalette::Highlight);
    QColor fillColor = lineColor;
    fillColor.setAlphaF(0.18f);
    QPolygonF area = line;
    area << QPointF(chart.right(), chart.bottom()) << QPointF(chart.left(), chart.bottom());
    painter.setPen(Qt::NoPen);
    painter.setBrush(fillColor);
    painter.drawPolygon(area);

    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(lineColor, 1.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.drawPolyline(line);
}

void Sparkline::updateAccessibleText() {
    // The label may be elided when space is short; the tooltip and screen readers get it whole.
    const QString text = m_label.isEmpty() ? displayText() : m_label + QStringLiteral(": ") + displayText();
    setToolTip(text);
    setAccessibleName(m_label);
    setAccessibleDescription(text);
}

} // namespace warren::ui
