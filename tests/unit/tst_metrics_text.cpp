// MetricsText: Prometheus' text format as GET /metrics writes it: HELP and TYPE lines, samples with their
// labels, label values and help escaped, numbers as Prometheus reads them, a histogram's suffixed samples.
#include "app/metrics/MetricsText.h"

#include <QtTest>
#include <cmath>
#include <limits>

using namespace warren::control;

class TestMetricsText : public QObject {
    Q_OBJECT

private slots:
    void writesNumbers_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << 0.0 << "0";
        QTest::newRow("an integer") << 42.0 << "42";
        QTest::newRow("a negative integer") << -3.0 << "-3";
        QTest::newRow("a fraction, shortest") << 0.1 << "0.1";
        QTest::newRow("a small bound") << 0.0025 << "0.0025";
        QTest::newRow("beyond integers") << 1e20 << "1e+20";
        QTest::newRow("positive infinity") << std::numeric_limits<double>::infinity() << "+Inf";
        QTest::newRow("negative infinity") << -std::numeric_limits<double>::infinity() << "-Inf";
        QTest::newRow("not a number") << std::nan("") << "NaN";
    }
    void writesNumbers() {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(metricNumber(value)), text);
    }

    void writesHelpTypeAndSamples() {
        const std::vector<Metric> metrics{
            {"up", "One line\nand a back\\slash.", "gauge", {{{}, 1}}},
            {"calls_total", "Calls.", "counter", {{{{"provider", "a\"b\\c\nd"}, {"result", "ok"}}, 3}}},
        };
        QCOMPARE(QString::fromStdString(exposition(metrics)),
                 QString("# HELP up One line\\nand a back\\\\slash.\n"
                         "# TYPE up gauge\n"
                         "up 1\n"
                         "# HELP calls_total Calls.\n"
                         "# TYPE calls_total counter\n"
                         "calls_total{provider=\"a\\\"b\\\\c\\nd\",result=\"ok\"} 3\n"));
    }

    void writesAHistogramsSuffixes() {
        const std::vector<Metric> metrics{{"lag_seconds",
                                           "Lag.",
                                           "histogram",
                                           {{{{"le", "0.5"}}, 1, "_bucket"},
                                            {{{"le", "+Inf"}}, 2, "_bucket"},
                                            {{}, 1.25, "_sum"},
                                            {{}, 2, "_count"}}}};
        QCOMPARE(QString::fromStdString(exposition(metrics)), QString("# HELP lag_seconds Lag.\n"
                                                                      "# TYPE lag_seconds histogram\n"
                                                                      "lag_seconds_bucket{le=\"0.5\"} 1\n"
                                                                      "lag_seconds_bucket{le=\"+Inf\"} 2\n"
                                                                      "lag_seconds_sum 1.25\n"
                                                                      "lag_seconds_count 2\n"));
    }
};

QTEST_GUILESS_MAIN(TestMetricsText)
#include "tst_metrics_text.moc"
