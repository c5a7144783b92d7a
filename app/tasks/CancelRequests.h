#pragma once
// `warren cancel` of a task another process runs: the request is a file in the task's directory
// (kCancelRequestFile, holding why), and the process running the task watches those directories. One
// watcher serves every task of a control plane: an inotify instance per running task would run out at the
// kernel's per-user limit (fs.inotify.max_user_instances, 128 by default), past which Qt would poll.

#include "app/tasks/DataDir.h"
#include "common/Result.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <functional>
#include <map>
#include <string>

namespace warren::control {

class CancelRequests : public QObject {
    Q_OBJECT
public:
    static constexpr const char* kCancelRequestFile = "cancel-requested";

    explicit CancelRequests(DataDir data, QObject* parent = nullptr);

    // From any process: asks the one running the task to cancel it.
    static Status request(const DataDir& data, const std::string& taskId, const std::string& why);

    // onRequest is called, from the event loop, when a request for the task is there: one made before the
    // watch began at once, then at each change of the task's directory while the file is there, until
    // forget(taskId, owner). The runner removes a request older than its run (clear) before it starts.
    // owner: who watches (a task's next runner may begin watching before its last one is gone).
    static void clear(const DataDir& data, const std::string& taskId);
    void watch(const std::string& taskId, const void* owner, std::function<void()> onRequest);
    void forget(const std::string& taskId, const void* owner);

private:
    void onDirectoryChanged(const QString& directory);

    DataDir m_data;
    QFileSystemWatcher m_watcher;
    struct Watch {
        std::string taskId;
        const void* owner = nullptr;
        std::function<void()> onRequest;
    };
    std::map<QString, Watch> m_watched; // by the task's directory
};

} // namespace warren::control
