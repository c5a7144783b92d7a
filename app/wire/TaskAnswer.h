#pragma once
// A task as the API answers it (GET /v1/tasks/{id}, POST /v1/tasks, the list of GET /v1/tasks) and as
// `warren show --json` prints it: one shape, written from a TaskRecord and read back into one, so a remote
// task is a TaskRecord like a local one. Pure.
//
// The reader takes answers from a server that may not be a warrend, or not an honest one: an answer of
// another shape is an error, never an exception or a crash (tests/fuzz/fuzz_remote_answers). id and status
// are required; any other member missing or of another type reads as empty (a newer server may add some).

#include "app/store/StoreTypes.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace warren::wire {

nlohmann::json taskToJson(const control::TaskRecord& task);
Result<control::TaskRecord> taskFromJson(const nlohmann::json& task);

// {"tasks": [task, ...]}
nlohmann::json tasksToJson(const std::vector<control::TaskRecord>& tasks);
Result<std::vector<control::TaskRecord>> tasksFromJson(const nlohmann::json& answer);

} // namespace warren::wire
