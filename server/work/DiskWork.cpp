#include "server/work/DiskWork.h"

namespace warren::server {

DiskWork::DiskWork(std::size_t workers, std::size_t perUser, QObject* parent)
    : QObject(parent), m_queue(workers, perUser) {
    m_pool.setMaxThreadCount(static_cast<int>(m_queue.workers()));
}

DiskWork::~DiskWork() {
    // Nothing new starts; what runs finishes (a worker must not outlive the paths it writes to), and its
    // queued completion is discarded with this object.
    for (auto it = m_jobs.begin(); it != m_jobs.end();)
        it = it->second.work ? m_jobs.erase(it) : std::next(it);
    m_pool.waitForDone();
}

void DiskWork::runDetached(const std::string& owner, std::function<void()> work) {
    Job job;
    job.owner = owner;
    job.work = std::move(work);
    job.done = [] {};
    enqueue(std::move(job));
}

void DiskWork::enqueue(Job job) {
    const std::uint64_t id = m_nextId++;
    m_queue.push(job.owner, id);
    m_jobs.emplace(id, std::move(job));
    startWhatCan();
}

void DiskWork::startWhatCan() {
    while (auto next = m_queue.take()) {
        const auto found = m_jobs.find(next->job);
        if (found == m_jobs.end() || (found->second.wanted && !found->second.wanted())) {
            // Its client has gone: the worker is free again for the next in turn.
            if (found != m_jobs.end())
                m_jobs.erase(found);
            m_queue.finished(next->owner);
            continue;
        }
        // The worker gets the work alone; done (and the reply it holds) stays here, on the event loop.
        std::function<void()> work = std::move(found->second.work);
        found->second.work = nullptr;
        const std::uint64_t id = next->job;
        m_pool.start([this, id, work = std::move(work)] {
            work();
            QMetaObject::invokeMethod(this, [this, id] { finished(id); }, Qt::QueuedConnection);
        });
    }
}

void DiskWork::finished(std::uint64_t id) {
    const auto found = m_jobs.find(id);
    if (found == m_jobs.end())
        return;
    Job job = std::move(found->second);
    m_jobs.erase(found);
    m_queue.finished(job.owner);
    startWhatCan(); // before done: a done that queues more work finds the worker free
    job.done();
}

} // namespace warren::server
