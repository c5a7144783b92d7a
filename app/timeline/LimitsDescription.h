#pragma once
// A limits_applied event in one line, as the window's card and the terminal both show it:
// "memory_mb 512 (tenant), pids 64 (request)"; "none" when nothing was limited.

#include "agent_core/protocol/EventPayloads.h"

#include <string>

namespace warren::timeline {

std::string describeLimits(const protocol::LimitsAppliedData& data);

} // namespace warren::timeline
