#include "app/tasks/TaskSleep.h"

#include "common/FileText.h"
#include "common/JsonFields.h"

namespace warren::control {

using nlohmann::json;
using namespace json_fields;

namespace {

constexpr const char* kSleepFile = "sleep.json";
constexpr const char* kAnswerFile = "wake-answer.json";


Result<SleepingQuestion> questionFromJson(const json& value, const std::string& where) {
    Error error;
    SleepingQuestion question;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"approval_id", "tool_call_id", "tool", "arguments"}, where), error) ||
        !take(getString(value, "approval_id", where), question.approvalId, error) ||
        !take(getString(value, "tool_call_id", where), question.toolCallId, error) ||
        !take(getString(value, "tool", where), question.tool, error) ||
        !take(getString(value, "arguments", where), question.arguments, error))
        return error;
    return question;
}

template <typename T>
Result<std::optional<T>> kept(const std::string& path, Result<T> (*read)(const json&)) {
    auto text = readFileText(path);
    if (!text) {
        if (text.error().code == ErrorCode::NotFound)
            return std::optional<T>();
        return text.error();
    }
    auto value = read(json::parse(*text, nullptr, false));
    if (!value)
        return makeError(ErrorCode::InvalidArgument, path + " does not read: " + value.error().message);
    return std::optional<T>(std::move(value).value());
}

} // namespace

const SleepingQuestion* SleepRecord::find(const std::string& callId) const {
    for (const auto& question : questions)
        if (question.approvalId == callId || question.toolCallId == callId)
            return &question;
    return nullptr;
}

json toJson(const SleepRecord& record) {
    json questions = json::array();
    for (const auto& question : record.questions)
        questions.push_back({{"approval_id", question.approvalId},
                             {"tool_call_id", question.toolCallId},
                             {"tool", question.tool},
                             {"arguments", question.arguments}});
    return {{"slept_at", record.sleptAt}, {"questions", std::move(questions)}};
}

Result<SleepRecord> sleepRecordFromJson(const json& value) {
    const std::string where = "sleep";
    Error error;
    SleepRecord record;
    if (!take(requireObject(value, where), error) || !take(checkKeys(value, {"slept_at", "questions"}, where), error) ||
        !take(getString(value, "slept_at", where), record.sleptAt, error) ||
        !take(getArray<SleepingQuestion>(value, "questions", where, true, questionFromJson), record.questions, error))
        return error;
    return record;
}

json toJson(const WakeAnswer& answer) {
    return {{"tool_call_id", answer.toolCallId},
            {"tool", answer.tool},
            {"arguments", answer.arguments},
            {"approved", answer.approved},
            {"note", answer.note},
            {"always", answer.always}};
}

Result<WakeAnswer> wakeAnswerFromJson(const json& value) {
    const std::string where = "wake answer";
    Error error;
    WakeAnswer answer;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"tool_call_id", "tool", "arguments", "approved", "note", "always"}, where), error) ||
        !take(getString(value, "tool_call_id", where), answer.toolCallId, error) ||
        !take(getString(value, "tool", where), answer.tool, error) ||
        !take(getString(value, "arguments", where), answer.arguments, error) ||
        !take(getBool(value, "approved", where), answer.approved, error) ||
        !take(getString(value, "note", where), answer.note, error) ||
        !take(getBool(value, "always", where), answer.always, error))
        return error;
    return answer;
}

Status keepSleep(const DataDir& data, const std::string& taskId, const SleepRecord& record) {
    return data.keepTaskFile(taskId, kSleepFile, toJson(record).dump() + "\n");
}

Result<std::optional<SleepRecord>> keptSleep(const DataDir& data, const std::string& taskId) {
    return kept<SleepRecord>(data.taskFile(taskId, kSleepFile), sleepRecordFromJson);
}

void forgetSleep(const DataDir& data, const std::string& taskId) { data.forgetTaskFile(taskId, kSleepFile); }

Status keepWakeAnswer(const DataDir& data, const std::string& taskId, const WakeAnswer& answer) {
    return data.keepTaskFile(taskId, kAnswerFile, toJson(answer).dump() + "\n");
}

Result<std::optional<WakeAnswer>> keptWakeAnswer(const DataDir& data, const std::string& taskId) {
    return kept<WakeAnswer>(data.taskFile(taskId, kAnswerFile), wakeAnswerFromJson);
}

void forgetWakeAnswer(const DataDir& data, const std::string& taskId) { data.forgetTaskFile(taskId, kAnswerFile); }

} // namespace warren::control
