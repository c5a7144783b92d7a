#pragma once
// Metrics in Prometheus' text exposition format (version 0.0.4): each metric's HELP and TYPE lines, then its
// samples, label values escaped. Pure: GET /metrics (server/api/MetricsApi) gathers the numbers (the engine's
// EngineMetrics and the server's own), this writes them.

#include <string>
#include <utility>
#include <vector>

namespace warren::control {

struct MetricSample {
    std::vector<std::pair<std::string, std::string>> labels;
    double value = 0;
    std::string suffix{}; // after the metric's name: a histogram's "_bucket", "_sum", "_count"; else empty
};

struct Metric {
    std::string name; // [a-zA-Z_:][a-zA-Z0-9_:]*
    std::string help;
    std::string type; // "gauge", "counter", "histogram"
    std::vector<MetricSample> samples;
};

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string exposition(const std::vector<Metric>& metrics);

// A sample's value as the format writes it: an integer without a point, NaN, +Inf, -Inf, else the shortest
// decimal that reads back as the same double.
std::string metricNumber(double value);

} // namespace warren::control
