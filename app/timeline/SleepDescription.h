#pragma once
// A task_slept event in one line, as the window's card and the terminal both show it: "Asleep after 5 min
// waiting for your answer: its sandbox was released; answering wakes it". Pure.

#include "agent_core/protocol/EventPayloads.h"

#include <string>

namespace warren::timeline {

std::string describeSleep(const protocol::TaskSleptData& data);

} // namespace warren::timeline
