#include "server/api/MetricsText.h"

#include <cmath>
#include <cstdio>

namespace warren::server {

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

std::string number(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    if (value == std::floor(value) && std::fabs(value) < 1e15)
        return std::to_string(static_cast<long long>(value));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return buffer;
}

} // namespace

std::string exposition(const std::vector<Metric>& metrics) {
    std::string text;
    for (const Metric& metric : metrics) {
        text += "# HELP " + metric.name + " " + escaped(metric.help, false) + "\n";
        text += "# TYPE " + metric.name + " " + metric.type + "\n";
        for (const MetricSample& sample : metric.samples) {
            text += metric.name;
            if (!sample.labels.empty()) {
                text += "{";
                for (std::size_t i = 0; i < sample.labels.size(); ++i)
                    text += (i ? "," : "") + sample.labels[i].first + "=\"" + escaped(sample.labels[i].second, true) + "\"";
                text += "}";
            }
            text += " " + number(sample.value) + "\n";
        }
    }
    return text;
}

} // namespace warren::server
