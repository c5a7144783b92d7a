#pragma once
// POST /v1/tasks/{id}/move (docs/SERVER.md): a task of the server's goes home to its owner's machine
// (`warren move TASK --remote URL --to local`). The request is {"to": "local"}; the answer {"task": the task,
// now moved, "was": what it was (paused, interrupted, waiting or sleeping), "checkpoint": its agent's
// checkpoint, as text}. Asked again for a task already moved home, the same answer: a client killed half-way
// finishes the move by asking again. Pure; the reader refuses an answer of another shape.

#include "app/store/StoreTypes.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace warren::wire {

inline constexpr const char* kMoveHome = control::kMovedHome; // the only place a server's task moves to

// The request's body: an error naming the field unless it is {"to": "local"}.
Status checkMoveOutRequest(const nlohmann::json& body);

struct MoveOutAnswer {
    control::TaskRecord task;
    control::TaskStatus was = control::TaskStatus::Paused;
    std::string checkpoint;

    static Result<MoveOutAnswer> fromJson(const nlohmann::json& answer);
};
// task: the task as the API shows it (taskJson).
nlohmann::json moveOutAnswerJson(nlohmann::json task, control::TaskStatus was, const std::string& checkpoint);

} // namespace warren::wire
