#include "app/tasks/CancelRequests.h"

#include <filesystem>

namespace warren::control {

namespace fs = std::filesystem;

CancelRequests::CancelRequests(DataDir data, QObject* parent) : QObject(parent), m_data(std::move(data)) {
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, &CancelRequests::onDirectoryChanged);
}

Status CancelRequests::request(const DataDir& data, const std::string& taskId, const std::string& why) {
    return data.keepTaskFile(taskId, kCancelRequestFile, why + "\n");
}

void CancelRequests::clear(const DataDir& data, const std::string& taskId) {
    data.forgetTaskFile(taskId, kCancelRequestFile);
}

void CancelRequests::watch(const std::string& taskId, const void* owner, std::function<void()> onRequest) {
    const QString directory = QString::fromStdString(m_data.taskDir(taskId));
    m_watched[directory] = {taskId, owner, std::move(onRequest)};
    m_watcher.addPath(directory);
    // A request made between the runner's start and now changed the directory before it was watched.
    QMetaObject::invokeMethod(this, [this, directory] { onDirectoryChanged(directory); }, Qt::QueuedConnection);
}

void CancelRequests::forget(const std::string& taskId, const void* owner) {
    const QString directory = QString::fromStdString(m_data.taskDir(taskId));
    const auto watched = m_watched.find(directory);
    if (watched == m_watched.end() || watched->second.owner != owner)
        return;
    m_watched.erase(watched);
    m_watcher.removePath(directory);
}

void CancelRequests::onDirectoryChanged(const QString& directory) {
    const auto watched = m_watched.find(directory);
    if (watched == m_watched.end())
        return;
    if (!fs::exists(m_data.taskFile(watched->second.taskId, kCancelRequestFile)))
        return;
    const auto onRequest = watched->second.onRequest; // the call may forget the task
    onRequest();
}

} // namespace warren::control
