#pragma once
// Quitting while this computer's tasks run: what the question says happens to them, which is what the
// control plane does (its agents are stopped with it; at the next start a running task is marked
// interrupted and Resume continues it from its last checkpoint; a queued one stays queued and starts then).
// Pure.

#include "app/store/StoreTypes.h"

#include <QString>
#include <vector>

namespace warren::ui {

struct TasksAtQuit {
    int running = 0; // running, or waiting for an approval (its agent is alive)
    int queued = 0;
    bool any() const { return running + queued > 0; }
};

TasksAtQuit tasksAtQuit(const std::vector<control::TaskStatus>& statuses);
QString quitQuestionText(const TasksAtQuit& tasks);

} // namespace warren::ui
