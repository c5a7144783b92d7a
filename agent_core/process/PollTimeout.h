#pragma once
// poll()'s timeout until wake: -1 for never, 0 when it has passed, else the milliseconds left rounded up (so
// a wait does not end a moment early and spin).

#include <algorithm>
#include <chrono>
#include <climits>

namespace warren::agent {

inline int pollTimeout(std::chrono::steady_clock::time_point wake, std::chrono::steady_clock::time_point now) {
    if (wake == std::chrono::steady_clock::time_point::max())
        return -1;
    if (wake <= now)
        return 0;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(wake - now) + std::chrono::milliseconds(1);
    return static_cast<int>(std::min<std::chrono::milliseconds::rep>(left.count(), INT_MAX));
}

} // namespace warren::agent
