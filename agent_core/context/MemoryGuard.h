#pragma once
// memory_threshold_mb / max_memory_mb: the agent samples its own resident set size. Above the threshold
// it sheds (fires on_low_memory, drops caches, cuts history) once; still above the hard maximum after
// shedding, the task stops. Reaching the maximum without having shed sheds first: memory that can be
// given back should be before the task is given up.

#include <cstdint>
#include <optional>
#include <string_view>

namespace warren::agent {

enum class MemoryVerdict { Ok, Shed, Stop };

// VmRSS from the text of /proc/self/status, in bytes; nullopt when the line is missing or malformed.
std::optional<std::uint64_t> parseRssBytes(std::string_view procSelfStatus);

// This process's RSS, read from /proc/self/status; nullopt where that cannot be read.
std::optional<std::uint64_t> currentRssBytes();

// thresholdMb and maxMb of 0 are off. alreadyShed: the caller has shed since RSS was last at or below
// the threshold (it clears the flag when the verdict is Ok, so a later rise sheds again).
MemoryVerdict memoryVerdict(std::uint64_t rssBytes, std::uint64_t thresholdMb, std::uint64_t maxMb,
                            bool alreadyShed);

} // namespace warren::agent
