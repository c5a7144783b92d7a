#include "app/metrics/MetricsText.h"

#include <charconv>
#include <cmath>

namespace warren::control {

namespace {

// A label value: backslash, double quote and line feed escaped. HELP text: backslash and line feed.
std::string escaped(const std::string& text, bool quotes) {
    std::string out;
    for (const char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '"' && quotes)
            out += "\\\"";
        else
            out += c;
    }
    return out;
}

} // namespace

std::string metricNumber(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    if (value == std::floor(value) && std::fabs(value) < 1e15)
        return std::to_string(static_cast<long long>(value));
    char buffer[32];
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, value); // the shortest that reads back
    return std::string(buffer, written.ptr);
}

std::string exposition(const std::vector<Metric>& metrics) {
    std::string text;
    for (const Metric& metric : metrics) {
        text += "# HELP " + metric.name + " " + escaped(metric.help, false) + "\n";
        text += "# TYPE " + metric.name + " " + metric.type + "\n";
        for (const MetricSample& sample : metric.samples) {
            text += metric.name + sample.suffix;
            if (!sample.labels.empty()) {
                text += "{";
                for (std::size_t i = 0; i < sample.labels.size(); ++i)
                    text += (i ? "," : "") + sample.labels[i].first + "=\"" +
                            escaped(sample.labels[i].second, true) + "\"";
                text += "}";
            }
            text += " " + metricNumber(sample.value) + "\n";
        }
    }
    return text;
}

} // namespace warren::control
