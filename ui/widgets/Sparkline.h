#pragma once
// A small line chart of one resource of a running task (memory in bytes, CPU %): the recent samples as a
// line with a light fill under it, its name and its latest value. Scaled to the largest sample, from 0, so
// a flat line near the bottom means "little", not "constant". Painted from the widget's palette so it
// reads in light and dark themes.

#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

namespace warren::ui {

class Sparkline : public QWidget {
    Q_OBJECT

public:
    explicit Sparkline(QWidget* parent = nullptr);

    // The samples, oldest first. Negative and non-finite samples count as 0.
    void setSamples(std::vector<double> samples);
    const std::vector<double>& samples() const { return m_samples; }
    void setLabel(QString label);
    QString label() const { return m_label; }
    // How the latest value is written (e.g. "412 MiB", "37 %"); the default writes the number.
    void setValueFormatter(std::function<QString(double)> formatter);

    // The latest value as painted, or "—" without samples.
    QString displayText() const;
    // Where the line is drawn: below the text row, inside a small margin.
    QRect chartRect() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void updateAccessibleText();

    std::vector<double> m_samples;
    QString m_label;
    std::function<QString(double)> m_formatter;
};

} // namespace warren::ui
