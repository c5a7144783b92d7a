#include "app/metrics/MetricFamilies.h"

#include <algorithm>
#include <utility>

namespace warren::control {

namespace {

std::vector<std::pair<std::string, std::string>> labelled(const std::vector<std::string>& names,
                                                          const std::vector<std::string>& values) {
    std::vector<std::pair<std::string, std::string>> labels;
    for (std::size_t i = 0; i < names.size() && i < values.size(); ++i)
        labels.emplace_back(names[i], values[i]);
    return labels;
}

} // namespace

CounterFamily::CounterFamily(std::string name, std::string help, std::vector<std::string> labelNames)
    : m_name(std::move(name)), m_help(std::move(help)), m_labelNames(std::move(labelNames)) {}

void CounterFamily::add(const std::vector<std::string>& values, double amount) {
    if (amount < 0) // a counter never goes down
        return;
    const std::lock_guard lock(m_mutex);
    m_values[values] += amount;
}

double CounterFamily::value(const std::vector<std::string>& values) const {
    const std::lock_guard lock(m_mutex);
    const auto found = m_values.find(values);
    return found == m_values.end() ? 0 : found->second;
}

Metric CounterFamily::snapshot() const {
    Metric metric{m_name, m_help, "counter", {}};
    const std::lock_guard lock(m_mutex);
    for (const auto& [values, value] : m_values)
        metric.samples.push_back({labelled(m_labelNames, values), value, ""});
    return metric;
}

HistogramFamily::HistogramFamily(std::string name, std::string help, std::vector<std::string> labelNames,
                                 std::vector<double> bounds)
    : m_name(std::move(name)), m_help(std::move(help)), m_labelNames(std::move(labelNames)),
      m_bounds(std::move(bounds)) {}

void HistogramFamily::observeLocked(Series& series, double observation) {
    if (series.inBucket.empty())
        series.inBucket.assign(m_bounds.size() + 1, 0);
    // The first bound at or above the observation (le: less than or equal); past the last, +Inf.
    const auto bucket = std::lower_bound(m_bounds.begin(), m_bounds.end(), observation) - m_bounds.begin();
    ++series.inBucket[std::size_t(bucket)];
    series.sum += observation;
    ++series.count;
}

void HistogramFamily::observe(const std::vector<std::string>& values, double observation) {
    const std::lock_guard lock(m_mutex);
    observeLocked(m_series[values], observation);
}

void HistogramFamily::observe(const std::vector<std::string>& values,
                              const std::vector<double>& observations) {
    const std::lock_guard lock(m_mutex);
    Series& series = m_series[values];
    if (series.inBucket.empty())
        series.inBucket.assign(m_bounds.size() + 1, 0);
    for (const double observation : observations)
        observeLocked(series, observation);
}

std::uint64_t HistogramFamily::count(const std::vector<std::string>& values) const {
    const std::lock_guard lock(m_mutex);
    const auto found = m_series.find(values);
    return found == m_series.end() ? 0 : found->second.count;
}

Metric HistogramFamily::snapshot() const {
    Metric metric{m_name, m_help, "histogram", {}};
    const std::lock_guard lock(m_mutex);
    for (const auto& [values, series] : m_series) {
        const auto labels = labelled(m_labelNames, values);
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i <= m_bounds.size(); ++i) {
            cumulative += series.inBucket[i];
            auto bucketLabels = labels;
            bucketLabels.emplace_back("le", i < m_bounds.size() ? metricNumber(m_bounds[i]) : "+Inf");
            metric.samples.push_back({std::move(bucketLabels), double(cumulative), "_bucket"});
        }
        metric.samples.push_back({labels, series.sum, "_sum"});
        metric.samples.push_back({labels, double(series.count), "_count"});
    }
    return metric;
}

} // namespace warren::control
