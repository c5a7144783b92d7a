#pragma once
// loop_detection: a model stuck in a loop repeats the same call with the same arguments. The same call
// loop_threshold times in a row warns the model (the loop tells it it is repeating itself); one more
// repeat after that warning stops the task. Any different call resets the count and the warning.

#include "agent_core/protocol/ToolCall.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warren::agent {

enum class LoopVerdict { None, Warn, Stop };

// What a checkpoint keeps so that a resumed task still sees the run it was in.
struct LoopDetectorState {
    std::vector<std::string> recentKeys; // the latest run of identical call keys, oldest first
    bool warned = false;
    friend bool operator==(const LoopDetectorState&, const LoopDetectorState&) = default;
};

class LoopDetector {
public:
    // A threshold below 2 would warn on every call; it counts as 2.
    explicit LoopDetector(std::uint64_t threshold);

    LoopVerdict observe(const protocol::ToolCall& call);

    LoopDetectorState state() const { return m_state; }
    // Keys that do not form one run (a checkpoint from elsewhere) are reduced to the latest run.
    void restore(LoopDetectorState state);

    // The tool name and the arguments as canonical JSON (keys sorted): the id does not count.
    static std::string callKey(const protocol::ToolCall& call);

private:
    std::uint64_t m_threshold;
    LoopDetectorState m_state;
};

} // namespace warren::agent
