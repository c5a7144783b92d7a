#pragma once
// The two kinds of metric the engine counts with, each one metric's samples by their label values:
// CounterFamily (a number that only grows) and HistogramFamily (observations counted into buckets, with their
// sum and count). Thread-safe: the event writer's thread, the runners and the server's requests add to them
// while a scrape reads them (snapshot). Label values must come from closed sets (a backend's name, a
// provider's kind, a quota's name): every distinct set of values is a series kept for the process's life.

#include "app/metrics/MetricsText.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace warren::control {

class CounterFamily {
public:
    CounterFamily(std::string name, std::string help, std::vector<std::string> labelNames);

    // values: one per label name, in their order.
    void add(const std::vector<std::string>& values, double amount = 1);
    // A series shown as 0 before anything is counted in it (the closed set's members a scraper expects).
    void declare(const std::vector<std::string>& values) { add(values, 0); }
    double value(const std::vector<std::string>& values) const; // 0 for a series never counted
    Metric snapshot() const;

private:
    std::string m_name;
    std::string m_help;
    std::vector<std::string> m_labelNames;
    mutable std::mutex m_mutex;
    std::map<std::vector<std::string>, double> m_values;
};

class HistogramFamily {
public:
    // bounds: the buckets' upper bounds, increasing (the +Inf bucket is added).
    HistogramFamily(std::string name, std::string help, std::vector<std::string> labelNames,
                    std::vector<double> bounds);

    void observe(const std::vector<std::string>& values, double observation);
    void observe(const std::vector<std::string>& values, const std::vector<double>& observations); // one lock
    void declare(const std::vector<std::string>& values) { observe(values, std::vector<double>{}); }
    std::uint64_t count(const std::vector<std::string>& values) const;
    Metric snapshot() const; // NAME_bucket{...,le} cumulative, NAME_sum, NAME_count per series

private:
    struct Series {
        std::vector<std::uint64_t> inBucket; // per bound, then +Inf; not cumulative
        double sum = 0;
        std::uint64_t count = 0;
    };
    void observeLocked(Series& series, double observation);

    std::string m_name;
    std::string m_help;
    std::vector<std::string> m_labelNames;
    std::vector<double> m_bounds;
    mutable std::mutex m_mutex;
    std::map<std::vector<std::string>, Series> m_series;
};

} // namespace warren::control
