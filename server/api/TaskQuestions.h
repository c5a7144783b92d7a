#pragma once
// A task's questions to its owner as the replica running it answers them, for its own endpoints
// (GET/POST /v1/tasks/{id}/approvals/{call}) and for another replica that passed a client's request on
// (ReplicaRequests): the event showing a question can reach the client before the question reaches the
// tool proxy (two lines of the agent's), so each waits up to kQuestionWaitMs for the agent to ask.

#include "server/replicas/ReplicaRequests.h"

#include <functional>
#include <string>

namespace warren::control {
class TaskManager;
}

namespace warren::server {

inline constexpr int kQuestionWaitMs = 10000;

// An owner's answer to one of a task's questions (callId: the tool call's id, approval_requested's data.id).
struct Answer {
    std::string taskId, callId;
    bool approved = false;
    std::string note;
    bool always = false;

    bool deliver(control::TaskManager& manager) const;
};

// done(true) once the answer is delivered, now or when the task running here next asks in time; else false.
void deliverWhenAsked(control::TaskManager& manager, const Answer& answer, std::function<void(bool)> done);
// done(true) once the task running here waits for callId's answer, now or in time; else false.
void whenWaiting(control::TaskManager& manager, const std::string& taskId, const std::string& callId,
                 std::function<void(bool)> done);
// The runner's side of ReplicaRequests: a request another replica passed on for a task running here.
void serveReplicaRequest(control::TaskManager& manager, const std::string& taskId, const ReplicaRequest& request,
                         const ReplicaRequests::Done& done);

} // namespace warren::server
