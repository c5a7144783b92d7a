#pragma once
// LocalControlPlane's calls whose work is disk or process work (git in a task's shadow repository, copying a
// workspace, writing an export) in three steps: what is read of the store and of the plane, on the plane's
// thread (Prepare, which also refuses what cannot be done); the work, on a pool thread, touching only what
// Prepare handed it (Work); what is written back, on the plane's thread again (Apply: store writes, new task
// records). The CLI's synchronous forms run the three in a row, in the call (runHere); the faces' forms
// queue them here, so that the faces' thread never runs the work itself.

#include "app/control/Done.h"
#include "app/control/OffThread.h"

#include <QObject>
#include <QPointer>
#include <QThreadPool>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <utility>

namespace warren::control {

template <typename T> using Apply = std::function<Result<T>()>;
template <typename T> using Work = std::function<Result<Apply<T>>()>;
template <typename T> using Prepare = std::function<Result<Work<T>>()>;

template <typename T> Result<T> runHere(const Prepare<T>& prepare) {
    auto work = prepare();
    if (!work)
        return work.error();
    auto apply = (*work)();
    if (!apply)
        return apply.error();
    return (*apply)();
}

// One queue per task: a call's steps start once the task's earlier calls are answered, so no two calls work
// on a task's shadow repository, workspace or checkpoint at once (a snapshot its runner takes meanwhile is
// kept apart by ShadowRepo's lock), and each prepares from what the one before applied. Different tasks'
// calls run side by side, on a pool of this object's own, which its destructor waits for: no work outlives
// the plane, and what such work would have applied is dropped (a fork's files are removed then).
class TaskWork : public QObject {
    Q_OBJECT
public:
    explicit TaskWork(QObject* parent = nullptr);
    ~TaskWork() override;

    // What a call that keeps its task from running (holds = its name: "a rewind", "a fork") is doing while
    // it is queued or under way; empty when none is.
    std::string holding(const std::string& taskId) const;

    // prepare runs now when the task has nothing else queued, else when its turn comes; done gets the
    // answer from the event loop, never inside this call. holds: empty, or what holding() says meanwhile.
    template <typename T>
    void run(const std::string& taskId, Prepare<T> prepare, Done<T> done, std::string holds = {}) {
        enqueue(taskId, std::move(holds), [this, taskId, prepare = std::move(prepare), done = std::move(done)]() {
            Done<T> finish = [this, taskId, done](Result<T> result) {
                finished(taskId);
                const QPointer<TaskWork> alive(this); // done may close the plane
                done(std::move(result));
                if (alive)
                    next(taskId);
            };
            auto work = prepare();
            if (!work) {
                QMetaObject::invokeMethod(
                    this, [finish, error = work.error()] { finish(error); }, Qt::QueuedConnection);
                return;
            }
            startWork<Apply<T>>([work = std::move(*work)] { return work(); },
                                [finish](Result<Apply<T>> apply) {
                                    if (!apply)
                                        return finish(apply.error());
                                    // Applied and gone before the next call starts: what it holds (the
                                    // task's lock) is free for that call.
                                    Result<T> result = std::exchange(*apply, nullptr)();
                                    finish(std::move(result));
                                });
        });
    }

    // Tests: runs on the pool's thread before each call's work (a test holds the work there).
    void setBeforeWork(std::function<void()> hook) { m_beforeWork = std::move(hook); }

private:
    struct Queue {
        std::deque<std::pair<std::string, std::function<void()>>> calls; // what each holds, its start
        std::string running; // what the call under way holds ("" also when it holds nothing)
        bool busy = false;
    };
    void enqueue(const std::string& taskId, std::string holds, std::function<void()> start);
    void finished(const std::string& taskId);
    void next(const std::string& taskId);
    template <typename R> void startWork(std::function<Result<R>()> work, Done<R> done) {
        offThread<R>(
            m_pool, this,
            [hook = m_beforeWork, work = std::move(work)] {
                if (hook)
                    hook();
                return work();
            },
            std::move(done));
    }

    std::map<std::string, Queue> m_queues;
    std::function<void()> m_beforeWork;
    QThreadPool m_pool;
};

} // namespace warren::control

