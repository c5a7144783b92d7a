#include "app/store/StoreTypes.h"

#include <array>
#include <utility>

namespace warren::control {

namespace {

// The names are stored in the database: changing one needs a migration.
constexpr std::array<std::pair<TaskStatus, const char*>, 10> kStatusNames = {{
    {TaskStatus::Queued, "queued"},
    {TaskStatus::Running, "running"},
    {TaskStatus::Paused, "paused"},
    {TaskStatus::Waiting, "waiting"},
    {TaskStatus::Sleeping, "sleeping"},
    {TaskStatus::Interrupted, "interrupted"},
    {TaskStatus::Succeeded, "succeeded"},
    {TaskStatus::Failed, "failed"},
    {TaskStatus::Cancelled, "cancelled"},
    {TaskStatus::Moved, "moved"},
}};

} // namespace

const char* taskStatusName(TaskStatus status) {
    for (const auto& [value, name] : kStatusNames) {
        if (value == status)
            return name;
    }
    return "unknown";
}

std::vector<TaskStatus> allTaskStatuses() {
    std::vector<TaskStatus> all;
    for (const auto& [value, name] : kStatusNames)
        all.push_back(value);
    return all;
}

std::optional<TaskStatus> taskStatusFromName(const std::string& name) {
    for (const auto& [value, text] : kStatusNames) {
        if (name == text)
            return value;
    }
    return std::nullopt;
}

bool isFinal(TaskStatus status) {
    return status == TaskStatus::Succeeded || status == TaskStatus::Failed ||
           status == TaskStatus::Cancelled || status == TaskStatus::Moved;
}

bool canMove(TaskStatus status) {
    return status == TaskStatus::Paused || status == TaskStatus::Interrupted ||
           status == TaskStatus::Waiting || status == TaskStatus::Sleeping;
}

} // namespace warren::control
