#pragma once
// Event timestamps: RFC 3339 in UTC with milliseconds, "2026-11-29T10:52:03.123Z". One fixed form so that
// events sort as text and every consumer parses them the same way. Pure: no time zone database, no locale.

#include "common/Result.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace warren::protocol {

// Milliseconds since 1970-01-01T00:00:00Z; leap seconds are not counted (POSIX time).
using UnixMillis = std::int64_t;

// time, truncated to the millisecond.
UnixMillis toUnixMillis(std::chrono::system_clock::time_point time);

// Years 0000..9999; a value outside is clamped to the nearest end of that range.
std::string formatTimestamp(UnixMillis millis);
// Truncates to the millisecond (never rounds up, which could move a time into the next second or day).
std::string formatTimestamp(std::chrono::system_clock::time_point time);

// Accepts "YYYY-MM-DDTHH:MM:SS[.f]Z" with 1 to 9 fraction digits (truncated to milliseconds). Refuses
// offsets other than Z, impossible dates (Feb 29 outside leap years), leap seconds and anything else.
Result<UnixMillis> parseTimestamp(std::string_view text);

} // namespace warren::protocol
