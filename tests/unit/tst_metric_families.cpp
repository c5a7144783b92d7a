// MetricFamilies and EngineMetrics: counters by label values, histograms with cumulative buckets, their sum
// and count, counted from many threads at once without losing a count; EngineMetrics' methods land in the
// series they name (the closed sets shown at 0 before anything happens).
#include "app/metrics/EngineMetrics.h"
#include "app/metrics/MetricFamilies.h"

#include <QtTest>
#include <set>
#include <thread>

using namespace warren;
using namespace warren::control;

namespace {

// The value of the sample NAME+suffix with exactly these labels; -1 when there is none.
double sampleOf(const Metric& metric, const std::string& suffix,
                const std::vector<std::pair<std::string, std::string>>& labels) {
    for (const MetricSample& sample : metric.samples)
        if (sample.suffix == suffix && sample.labels == labels)
            return sample.value;
    return -1;
}

const Metric& named(const std::vector<Metric>& metrics, const std::string& name) {
    static const Metric none;
    for (const Metric& metric : metrics)
        if (metric.name == name)
            return metric;
    return none;
}

} // namespace

class TestMetricFamilies : public QObject {
    Q_OBJECT

private slots:
    void countersAddByLabelValues() {
        CounterFamily calls("calls_total", "Calls.", {"provider", "result"});
        calls.add({"openai", "answered"});
        calls.add({"openai", "answered"}, 2);
        calls.add({"anthropic", "failed"});
        calls.add({"openai", "answered"}, -5); // a counter never goes down
        QCOMPARE(calls.value({"openai", "answered"}), 3.0);
        QCOMPARE(calls.value({"scripted", "answered"}), 0.0);
        const Metric metric = calls.snapshot();
        QCOMPARE(metric.type, std::string("counter"));
        QCOMPARE(metric.samples.size(), std::size_t(2));
        QCOMPARE(sampleOf(metric, "", {{"provider", "anthropic"}, {"result", "failed"}}), 1.0);
        QCOMPARE(sampleOf(metric, "", {{"provider", "openai"}, {"result", "answered"}}), 3.0);
    }

    void histogramBucketsAreCumulative() {
        HistogramFamily lag("lag_seconds", "Lag.", {"backend"}, {0.1, 1, 10});
        for (const double seconds : {0.05, 0.1, 0.5, 2.0, 100.0})
            lag.observe({"bwrap"}, seconds);
        const Metric metric = lag.snapshot();
        QCOMPARE(metric.type, std::string("histogram"));
        QCOMPARE(sampleOf(metric, "_bucket", {{"backend", "bwrap"}, {"le", "0.1"}}), 2.0); // le: at or below
        QCOMPARE(sampleOf(metric, "_bucket", {{"backend", "bwrap"}, {"le", "1"}}), 3.0);
        QCOMPARE(sampleOf(metric, "_bucket", {{"backend", "bwrap"}, {"le", "10"}}), 4.0);
        QCOMPARE(sampleOf(metric, "_bucket", {{"backend", "bwrap"}, {"le", "+Inf"}}), 5.0);
        QCOMPARE(sampleOf(metric, "_count", {{"backend", "bwrap"}}), 5.0);
        QCOMPARE(sampleOf(metric, "_sum", {{"backend", "bwrap"}}), 102.65);
        QCOMPARE(lag.count({"bwrap"}), std::uint64_t(5));
        QCOMPARE(lag.count({"podman"}), std::uint64_t(0));
    }

    void manyThreadsLoseNoCount() {
        CounterFamily counter("c_total", "C.", {"kind"});
        HistogramFamily histogram("h_seconds", "H.", {}, {1});
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&] {
                for (int i = 0; i < 10000; ++i) {
                    counter.add({"x"});
                    histogram.observe({}, 0.5);
                }
            });
        for (auto& thread : threads)
            thread.join();
        QCOMPARE(counter.value({"x"}), 80000.0);
        QCOMPARE(histogram.count({}), std::uint64_t(80000));
    }

    void engineMetricsLandInTheirSeries() {
        EngineMetrics metrics;
        // Before anything happens: the events stored, their lag and each kind of database error, at 0.
        auto before = metrics.snapshot();
        QCOMPARE(sampleOf(named(before, "warrend_events_stored_total"), "", {}), 0.0);
        QCOMPARE(sampleOf(named(before, "warrend_event_commit_lag_seconds"), "_count", {}), 0.0);
        for (const char* kind : {"unavailable", "refused", "failed"})
            QCOMPARE(sampleOf(named(before, "warrend_database_errors_total"), "", {{"kind", kind}}), 0.0);

        metrics.sandboxStarted("bwrap", 0.2);
        metrics.sandboxFailed("podman");
        metrics.eventsCommitted({0.001, 0.002, 0.003});
        metrics.modelCall("scripted", true, 10, 4);
        metrics.modelCall("scripted", false, 99, 99); // a failed call's tokens are none
        metrics.quotaRefused("max_concurrent", "tenant");
        metrics.databaseError(ErrorCode::Unavailable);
        metrics.databaseError(ErrorCode::InvalidArgument);
        metrics.databaseError(ErrorCode::System);

        const auto after = metrics.snapshot();
        QCOMPARE(sampleOf(named(after, "warrend_sandbox_starts_total"), "",
                          {{"backend", "bwrap"}, {"result", "started"}}),
                 1.0);
        QCOMPARE(sampleOf(named(after, "warrend_sandbox_starts_total"), "",
                          {{"backend", "podman"}, {"result", "failed"}}),
                 1.0);
        QCOMPARE(sampleOf(named(after, "warrend_sandbox_start_seconds"), "_count",
                          {{"backend", "bwrap"}, {"start", "cold"}}),
                 1.0);
        QCOMPARE(sampleOf(named(after, "warrend_events_stored_total"), "", {}), 3.0);
        QCOMPARE(sampleOf(named(after, "warrend_event_commit_lag_seconds"), "_count", {}), 3.0);
        QCOMPARE(sampleOf(named(after, "warrend_model_calls_total"), "",
                          {{"provider", "scripted"}, {"result", "answered"}}),
                 1.0);
        QCOMPARE(sampleOf(named(after, "warrend_model_calls_total"), "",
                          {{"provider", "scripted"}, {"result", "failed"}}),
                 1.0);
        QCOMPARE(sampleOf(named(after, "warrend_model_tokens_total"), "",
                          {{"provider", "scripted"}, {"direction", "input"}}),
                 10.0);
        QCOMPARE(sampleOf(named(after, "warrend_model_tokens_total"), "",
                          {{"provider", "scripted"}, {"direction", "output"}}),
                 4.0);
        QCOMPARE(sampleOf(named(after, "warrend_quota_refusals_total"), "",
                          {{"quota", "max_concurrent"}, {"level", "tenant"}}),
                 1.0);
        for (const char* kind : {"unavailable", "refused", "failed"})
            QCOMPARE(sampleOf(named(after, "warrend_database_errors_total"), "", {{"kind", kind}}), 1.0);
        // Every metric is named once.
        std::set<std::string> names;
        for (const Metric& metric : after)
            QVERIFY2(names.insert(metric.name).second, metric.name.c_str());
    }
};

QTEST_GUILESS_MAIN(TestMetricFamilies)
#include "tst_metric_families.moc"
