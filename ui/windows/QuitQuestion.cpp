#include "ui/windows/QuitQuestion.h"

#include <QCoreApplication>

namespace warren::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("QuitQuestion", text);
}

} // namespace

TasksAtQuit tasksAtQuit(const std::vector<control::TaskStatus>& statuses) {
    TasksAtQuit tasks;
    for (const control::TaskStatus status : statuses) {
        tasks.running += status == control::TaskStatus::Running;
        tasks.queued += status == control::TaskStatus::Queued;
    }
    return tasks;
}

QString quitQuestionText(const TasksAtQuit& tasks) {
    QStringList said;
    if (tasks.running == 1)
        said << tr(
            "A task is running on this computer. Quitting stops it now, with its sandbox. When Warren opens "
            "again it is shown as interrupted, and Resume continues it from its last checkpoint.");
    else if (tasks.running > 1)
        said << tr("%1 tasks are running on this computer. Quitting stops them now, with their sandboxes. "
                   "When "
                   "Warren opens again each is shown as interrupted, and Resume continues it from its last "
                   "checkpoint.")
                    .arg(tasks.running);
    if (tasks.queued > 0)
        said << (tasks.queued == 1 ? tr("A task waiting for a free slot stays queued and starts when Warren "
                                        "opens again.")
                                   : tr("%1 tasks waiting for a free slot stay queued and start when Warren "
                                        "opens again.")
                                         .arg(tasks.queued));
    return said.join(' ');
}

} // namespace warren::ui
