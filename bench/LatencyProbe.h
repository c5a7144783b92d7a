#pragma once
// An event loop's latency: a 5 ms one-shot timer, re-armed in its handler; each sample is how late it ran
// (the time the loop was busy or the thread waited for a CPU).

#include "bench/BenchStats.h"

#include <QObject>
#include <QTimer>
#include <vector>

namespace warren::bench {

inline constexpr int kProbeMs = 5;

class LatencyProbe {
public:
    LatencyProbe() {
        m_timer.setSingleShot(true);
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            m_samples.push_back(msSince(m_armed) - kProbeMs);
            if (m_running)
                arm();
        });
    }
    void start() {
        m_samples.clear();
        m_running = true;
        arm();
    }
    std::vector<double> stop() {
        m_running = false;
        m_timer.stop();
        return m_samples;
    }

private:
    void arm() {
        m_armed = Clock::now();
        m_timer.start(kProbeMs);
    }
    QTimer m_timer;
    Clock::time_point m_armed;
    bool m_running = false;
    std::vector<double> m_samples;
};

} // namespace warren::bench
