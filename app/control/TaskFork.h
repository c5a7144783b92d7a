#pragma once
// What a fork of a task (ControlPlane::fork) takes of the original: its history up to the step it continues
// from, so the fork's timeline shows how it got there, and the agent's checkpoint from before that step,
// made the new task's (the agent refuses a checkpoint of another task). Pure.

#include "app/store/StoreTypes.h"
#include "app/tasks/TaskMove.h" // checkpointForTask
#include "common/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warren::control {

// The events before the latest step_started of `step` (the run of that step whose checkpoint the snapshots
// kept), under newTaskId, seqs unchanged; all of them when that step never started. events: by seq.
std::vector<EventRow> eventsBeforeStep(const std::vector<EventRow>& events, std::uint64_t step,
                                       const std::string& newTaskId);

// The event that ends the fork's copied past (past: eventsBeforeStep's, under newTaskId): a log line saying
// where it came from, after past's last seq, at tsMs.
EventRow forkedNote(const std::vector<EventRow>& past, const std::string& originalId, std::uint64_t fromStep,
                    const std::string& newTaskId, std::int64_t tsMs);

} // namespace warren::control
