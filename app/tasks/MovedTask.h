#pragma once
// A task moved to another control plane (TaskStatus::Moved, `warren move`: TaskMove.h) goes on there: the
// refusal of whatever would continue it here, which says where it went. Pure.

#include "app/store/StoreTypes.h"
#include "common/Result.h"

#include <string>

namespace warren::control {

// Ok unless the task was moved away; then the error for doing it here, which says where it goes on.
Status checkNotMoved(const TaskRecord& task, const std::string& doing);

} // namespace warren::control
