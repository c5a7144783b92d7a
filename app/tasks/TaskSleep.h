#pragma once
// A task asleep (TaskStatus::Sleeping): its agent did nothing but wait for the user's answer to a question
// for longer than the face's idle time (RunnerEnvironment::idleSleep), so the run checkpointed and its
// sandbox and processes went; its workspace, state and events stay. What it waited for is kept beside the
// task (tasks/<id>/sleep.json), so the question can still be answered: the answer is kept
// (tasks/<id>/wake-answer.json) and the task queued again; the resumed agent asks the same question (its
// checkpoint keeps the call first in line) and the tool proxy answers it from the kept answer at once. The
// kept answer goes once the call's result is stored, so a run killed in between is answered again, never
// asked twice. The parsers are pure and strict: the files are the control plane's, but a reader that
// guesses would answer the wrong question.

#include "app/tasks/DataDir.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

struct SleepingQuestion {
    std::string approvalId; // ApprovalRecord::callId: the stored question
    std::string toolCallId; // the agent's id of the call (approval_requested's data.id)
    std::string tool;
    std::string arguments; // JSON text, as the record holds them
    friend bool operator==(const SleepingQuestion&, const SleepingQuestion&) = default;
};

struct SleepRecord {
    std::string sleptAt; // RFC 3339, ms
    std::vector<SleepingQuestion> questions;
    friend bool operator==(const SleepRecord&, const SleepRecord&) = default;

    // The question callId names (its approvalId or its toolCallId, as the faces answer), or nullptr.
    const SleepingQuestion* find(const std::string& callId) const;
};

// Given for exactly this call: the resumed agent's question is answered with it only when it asks about the
// same call id, tool and arguments.
struct WakeAnswer {
    std::string toolCallId;
    std::string tool;
    std::string arguments; // JSON text
    bool approved = false;
    std::string note;
    bool always = false; // the same call approved for the rest of the task (ToolProxy's "always")
    friend bool operator==(const WakeAnswer&, const WakeAnswer&) = default;
};

nlohmann::json toJson(const SleepRecord& record);
Result<SleepRecord> sleepRecordFromJson(const nlohmann::json& value);
nlohmann::json toJson(const WakeAnswer& answer);
Result<WakeAnswer> wakeAnswerFromJson(const nlohmann::json& value);

// The files beside the task. A kept file that does not read is an error naming it (kept* then say
// nullopt only for a file that is not there).
Status keepSleep(const DataDir& data, const std::string& taskId, const SleepRecord& record);
Result<std::optional<SleepRecord>> keptSleep(const DataDir& data, const std::string& taskId);
void forgetSleep(const DataDir& data, const std::string& taskId);
Status keepWakeAnswer(const DataDir& data, const std::string& taskId, const WakeAnswer& answer);
Result<std::optional<WakeAnswer>> keptWakeAnswer(const DataDir& data, const std::string& taskId);
void forgetWakeAnswer(const DataDir& data, const std::string& taskId);

} // namespace warren::control
