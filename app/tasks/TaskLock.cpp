#include "app/tasks/TaskLock.h"

#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

namespace warren::control {

namespace {

std::string lockPath(const DataDir& data, const std::string& taskId) {
    return data.taskFile(taskId, "lock");
}

} // namespace

UniqueFd takeTaskLock(const DataDir& data, const std::string& taskId) {
    std::error_code ignored;
    std::filesystem::create_directories(data.taskDir(taskId), ignored);
    UniqueFd lock(::open(lockPath(data, taskId).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!lock.valid() || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
        return UniqueFd();
    return lock;
}

bool taskLockHeld(const DataDir& data, const std::string& taskId) {
    const UniqueFd probe(::open(lockPath(data, taskId).c_str(), O_RDWR | O_CLOEXEC));
    return probe.valid() && ::flock(probe.get(), LOCK_EX | LOCK_NB) != 0;
}

} // namespace warren::control
