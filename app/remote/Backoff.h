#pragma once
// The pause before the next try to reach a server: doubling from 500 ms to 30 s, so a server that is
// restarting is found again within a second or two and one that is down for long is not hammered; a success
// starts over. Pure.

#include <algorithm>
#include <chrono>

namespace warren::remote {

class Backoff {
public:
    static constexpr std::chrono::milliseconds kFirst{500};
    static constexpr std::chrono::milliseconds kMost{30'000};

    std::chrono::milliseconds next() {
        const auto pause = m_pause;
        m_pause = std::min(m_pause * 2, kMost);
        return pause;
    }
    void reset() { m_pause = kFirst; }

private:
    std::chrono::milliseconds m_pause = kFirst;
};

} // namespace warren::remote
