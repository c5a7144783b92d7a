#pragma once
// What every benchmark measures with: elapsed milliseconds and percentiles of a series.

#include <algorithm>
#include <chrono>
#include <vector>

namespace warren::bench {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The p-quantile (0..1) by the nearest rank below; 0 for no values.
inline double percentile(std::vector<double> values, double p) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}

} // namespace warren::bench
