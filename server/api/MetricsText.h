#pragma once
// Metrics in Prometheus' text exposition format (version 0.0.4): each metric's HELP and TYPE lines, then its
// samples, label values escaped. Pure: GET /metrics (MetricsApi) gathers the numbers, this writes them.

#include <string>
#include <utility>
#include <vector>

namespace warren::server {

struct MetricSample {
    std::vector<std::pair<std::string, std::string>> labels;
    double value = 0;
};

struct Metric {
    std::string name; // [a-zA-Z_:][a-zA-Z0-9_:]*
    std::string help;
    std::string type; // "gauge", "counter"
    std::vector<MetricSample> samples;
};

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string exposition(const std::vector<Metric>& metrics);

} // namespace warren::server
