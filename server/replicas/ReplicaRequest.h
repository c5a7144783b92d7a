#pragma once
// What one replica asks of the replica running a task (a client's request that only the runner can carry
// out: its agent's question answered, whether the question waits, a cancel), and that replica's answer, as
// task_requests stores them (JSON text). One definition for both sides; fromJson refuses what is not one.

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace warren::server {

struct ReplicaRequest {
    enum class Kind { Answer, Waiting, Cancel };
    Kind kind = Kind::Waiting;
    std::string callId;    // Answer, Waiting: approval_requested's data.id
    bool approved = false; // Answer
    std::string note;      // Answer
    bool always = false;   // Answer
    std::string why;       // Cancel

    nlohmann::json toJson() const;
    static Result<ReplicaRequest> fromJson(const nlohmann::json& json);
};

struct ReplicaAnswer {
    bool done = false; // the answer was delivered, the question waits, the cancel was taken
    std::string error; // why not, when the runner refused (a task that has ended); empty otherwise

    nlohmann::json toJson() const;
    static Result<ReplicaAnswer> fromJson(const nlohmann::json& json);
};

} // namespace warren::server
