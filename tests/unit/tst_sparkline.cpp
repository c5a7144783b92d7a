// Sparkline: rendered offscreen, the line lies where the samples put it (scaled to the largest, from 0), in
// the palette's highlight colour in light and dark themes; the latest value is written with the formatter.

#include "ui/widgets/Sparkline.h"

#include <QImage>
#include <QtTest>
#include <cmath>
#include <limits>

using namespace warren::ui;

namespace {

const QColor kLine(255, 0, 0);
const QColor kBaseline(0, 0, 255);

QPalette testPalette(bool dark) {
    QPalette palette;
    palette.setColor(QPalette::Window, dark ? QColor(0x20, 0x20, 0x20) : QColor(Qt::white));
    palette.setColor(QPalette::WindowText, dark ? QColor(Qt::white) : QColor(Qt::black));
    palette.setColor(QPalette::PlaceholderText, QColor(0x80, 0x80, 0x80));
    palette.setColor(QPalette::Highlight, kLine);
    palette.setColor(QPalette::Mid, kBaseline);
    return palette;
}

bool near(QColor pixel, const QColor& target) {
    return std::abs(pixel.red() - target.red()) < 60 && std::abs(pixel.green() - target.green()) < 60 &&
           std::abs(pixel.blue() - target.blue()) < 60;
}

// Pixels of the colour inside a part of the chart given as fractions of it: (0,0) top left, (1,1) bottom
// right.
int countPixels(const QImage& image, const QRect& chart, QRectF part, const QColor& color) {
    const QRect area(QPoint(chart.left() + int(part.left() * chart.width()),
                            chart.top() + int(part.top() * chart.height())),
                     QPoint(chart.left() + int(part.right() * (chart.width() - 1)),
                            chart.top() + int(part.bottom() * (chart.height() - 1))));
    int count = 0;
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x)
            count += near(image.pixelColor(x, y), color) ? 1 : 0;
    return count;
}

struct Rendered {
    QImage image;
    QRect chart;
};

Rendered render(std::vector<double> samples, bool dark = false) {
    Sparkline sparkline;
    sparkline.setPalette(testPalette(dark));
    sparkline.setAutoFillBackground(true);
    sparkline.setLabel("Memory");
    sparkline.setSamples(std::move(samples));
    sparkline.resize(sparkline.sizeHint());
    return {sparkline.grab().toImage(), sparkline.chartRect()};
}

const QRectF kTopLeft(0.0, 0.0, 0.3, 0.3);
const QRectF kTopRight(0.85, 0.0, 0.15, 0.3);
const QRectF kBottomLeft(0.0, 0.7, 0.15, 0.3);
const QRectF kBottomRight(0.7, 0.7, 0.3, 0.3);
const QRectF kWhole(0.0, 0.0, 1.0, 1.0);

} // namespace

class TestSparkline : public QObject {
    Q_OBJECT

private slots:
    void linePlacement_data() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light theme") << false;
        QTest::newRow("dark theme") << true;
    }

    void linePlacement() {
        QFETCH(bool, dark);
        const Rendered rising = render({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, dark);
        QVERIFY(rising.chart.height() >= 10);
        QVERIFY(countPixels(rising.image, rising.chart, kTopRight, kLine) > 0);
        QVERIFY(countPixels(rising.image, rising.chart, kBottomLeft, kLine) > 0);
        QCOMPARE(countPixels(rising.image, rising.chart, kTopLeft, kLine), 0);

        const Rendered falling = render({10, 8, 6, 4, 2, 0}, dark);
        QVERIFY(countPixels(falling.image, falling.chart, kTopLeft.adjusted(0, 0, -0.15, 0), kLine) > 0);
        QVERIFY(countPixels(falling.image, falling.chart, kBottomRight, kLine) > 0);
        QCOMPARE(countPixels(falling.image, falling.chart, kTopRight.adjusted(-0.15, 0, 0, 0), kLine), 0);
    }

    // Scaled to the largest sample from 0: a series that never moves from a high value is a line at the top.
    void constantSeriesAtTheTop() {
        const Rendered constant = render({500, 500, 500});
        QVERIFY(countPixels(constant.image, constant.chart, QRectF(0.0, 0.0, 1.0, 0.3), kLine) > 0);
        QCOMPARE(countPixels(constant.image, constant.chart, QRectF(0.0, 0.5, 1.0, 0.5), kLine), 0);
    }

    void zeroSeriesOnTheBaseline() {
        const Rendered zeros = render({0, 0, 0});
        QVERIFY(countPixels(zeros.image, zeros.chart, QRectF(0.0, 0.8, 1.0, 0.2), kLine) > 0);
        QCOMPARE(countPixels(zeros.image, zeros.chart, QRectF(0.0, 0.0, 1.0, 0.6), kLine), 0);
    }

    void singleSampleIsALine() {
        const Rendered single = render({7});
        QVERIFY(countPixels(single.image, single.chart, QRectF(0.0, 0.0, 0.2, 0.3), kLine) > 0);
        QVERIFY(countPixels(single.image, single.chart, QRectF(0.8, 0.0, 0.2, 0.3), kLine) > 0);
    }

    void emptySeriesDrawsABaseline() {
        const Rendered empty = render({});
        QCOMPARE(countPixels(empty.image, empty.chart, kWhole, kLine), 0);
        QVERIFY(countPixels(empty.image, empty.chart, QRectF(0.0, 0.8, 0.2, 0.2), kBaseline) > 0);
        QVERIFY(countPixels(empty.image, empty.chart, QRectF(0.8, 0.8, 0.2, 0.2), kBaseline) > 0);
        QCOMPARE(countPixels(empty.image, empty.chart, QRectF(0.0, 0.0, 1.0, 0.5), kBaseline), 0);
        Sparkline sparkline;
        QCOMPARE(sparkline.displayText(), QStringLiteral("—"));
    }

    void displayText_data() {
        QTest::addColumn<std::vector<double>>("samples");
        QTest::addColumn<bool>("useFormatter");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << std::vector<double>{} << true << QStringLiteral("—");
        QTest::newRow("formatter gets the latest")
            << std::vector<double>{1024, 4096, 2048} << true << QStringLiteral("2 KiB");
        QTest::newRow("default whole") << std::vector<double>{5, 42} << false << QStringLiteral("42");
        QTest::newRow("default fraction") << std::vector<double>{0.4} << false << QStringLiteral("0.4");
        QTest::newRow("default large") << std::vector<double>{1234.56} << false << QStringLiteral("1235");
        QTest::newRow("negative counts as 0") << std::vector<double>{3, -5} << false << QStringLiteral("0");
        QTest::newRow("nan counts as 0")
            << std::vector<double>{std::numeric_limits<double>::quiet_NaN()} << false << QStringLiteral("0");
    }

    void displayText() {
        QFETCH(std::vector<double>, samples);
        QFETCH(bool, useFormatter);
        QFETCH(QString, expected);
        Sparkline sparkline;
        sparkline.setLabel("Memory");
        if (useFormatter)
            sparkline.setValueFormatter([](double v) { return QString::number(v / 1024) + " KiB"; });
        sparkline.setSamples(samples);
        QCOMPARE(sparkline.displayText(), expected);
        QCOMPARE(sparkline.toolTip(), "Memory: " + expected);
    }

    // The value is painted in the text colour at the right of the text row, the label in the dimmer colour
    // at its left.
    void paintsText() {
        Sparkline sparkline;
        sparkline.setPalette(testPalette(false));
        sparkline.setAutoFillBackground(true);
        sparkline.setLabel("CPU");
        sparkline.setSamples({12, 37});
        sparkline.resize(sparkline.sizeHint());
        const QImage image = sparkline.grab().toImage();
        const int textBottom = sparkline.chartRect().top();
        const auto countIn = [&](int fromX, int toX, const QColor& color) {
            int count = 0;
            for (int y = 0; y < textBottom; ++y)
                for (int x = fromX; x < toX; ++x)
                    count += near(image.pixelColor(x, y), color) ? 1 : 0;
            return count;
        };
        const int w = image.width();
        QVERIFY(countIn(w * 3 / 4, w, QColor(Qt::black)) > 0);
        QCOMPARE(countIn(0, w / 2, QColor(Qt::black)), 0);
        QVERIFY(countIn(0, w / 2, QColor(0x80, 0x80, 0x80)) > 0);
    }

    void sizeHint() {
        Sparkline sparkline;
        QCOMPARE(sparkline.sizeHint().width(), 160);
        QVERIFY(sparkline.sizeHint().height() >= 40);
        QVERIFY(sparkline.sizeHint().height() <= 60);
    }
};

QTEST_MAIN(TestSparkline)
#include "tst_sparkline.moc"
