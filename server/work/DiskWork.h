#pragma once
// Where warrend's requests do their disk and process work (extracting an upload, copying a task's
// workspace, removing a tree, running git for a patch, reading an artifact): a bounded pool of worker
// threads, never the event loop, which meanwhile answers everyone else. Jobs are shared fairly (FairQueue):
// one user has at most perUser of the workers, however many jobs they send.
//
// A job is two parts. work runs on a worker and touches only what it captured (paths, limits): never the
// server's stores, never an HttpReply (whose last copy answers on the thread that owns it). done runs on
// the event loop with work's result, and may use everything there. A job whose wanted() says no when its
// turn comes (its client has gone) is dropped unstarted; one that started always ends with done, so the
// work that changes state (an upload, a task) is finished and recorded whether or not anyone waits for it.

#include "server/work/FairQueue.h"

#include <QObject>
#include <QThreadPool>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace warren::server {

class DiskWork : public QObject {
    Q_OBJECT
public:
    DiskWork(std::size_t workers, std::size_t perUser, QObject* parent = nullptr);
    // Waits for the jobs that run (their done is not called); those that wait are dropped.
    ~DiskWork() override;

    template <typename T>
    void run(const std::string& owner, std::function<T()> work, std::function<void(T)> done,
             std::function<bool()> wanted = {}) {
        auto result = std::make_shared<std::optional<T>>();
        Job job;
        job.owner = owner;
        job.work = [result, work = std::move(work)] { result->emplace(work()); };
        job.done = [result, done = std::move(done)] { done(std::move(**result)); };
        job.wanted = std::move(wanted);
        enqueue(std::move(job));
    }
    // Work whose only outcome is done (removing what a failed request left).
    void runDetached(const std::string& owner, std::function<void()> work);

    std::size_t running() const { return m_queue.running(); }
    std::size_t waiting() const { return m_queue.waiting(); }

private:
    struct Job {
        std::string owner;
        std::function<void()> work, done;
        std::function<bool()> wanted;
    };
    void enqueue(Job job);
    void startWhatCan();
    void finished(std::uint64_t id);

    QThreadPool m_pool;
    FairQueue m_queue;
    std::unordered_map<std::uint64_t, Job> m_jobs;
    std::uint64_t m_nextId = 1;
};

} // namespace warren::server
