#include "app/timeline/SleepDescription.h"

namespace warren::timeline {

namespace {

std::string duration(std::uint64_t ms) {
    const std::uint64_t seconds = (ms + 500) / 1000;
    if (seconds < 120)
        return std::to_string(seconds) + " s";
    return std::to_string((seconds + 30) / 60) + " min";
}

} // namespace

std::string describeSleep(const protocol::TaskSleptData& data) {
    const std::string what = data.questions.size() == 1 ? "your answer" : "your answers";
    return "Asleep after " + duration(data.idleMs) + " waiting for " + what +
           ": its sandbox was released; answering wakes it";
}

} // namespace warren::timeline
