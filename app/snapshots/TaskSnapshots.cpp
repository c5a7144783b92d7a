#include "app/snapshots/TaskSnapshots.h"

#include "app/snapshots/ShadowRepo.h"

#include <cstdio>
#include <system_error>

namespace warren::snapshots {

namespace fs = std::filesystem;

TaskSnapshots::TaskSnapshots(fs::path shadowDir, fs::path workspace, fs::path checkpoint,
                             std::vector<std::string> heldPaths, std::chrono::milliseconds budget,
                             QObject* parent)
    : QObject(parent), m_shadowDir(std::move(shadowDir)), m_workspace(std::move(workspace)),
      m_checkpoint(std::move(checkpoint)), m_heldPaths(std::move(heldPaths)) {
    m_worker = new QObject;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start(QThread::LowPriority);
    m_budget.setSingleShot(true);
    m_budget.setInterval(budget);
    connect(&m_budget, &QTimer::timeout, this, [this] {
        m_overBudget = true;
        release();
    });
}

TaskSnapshots::~TaskSnapshots() {
    m_thread.quit();
    m_thread.wait();
}

void TaskSnapshots::take(SnapshotMeta::Kind kind, std::uint64_t step) {
    if (m_pending++ == 0)
        m_budget.start();
    QMetaObject::invokeMethod(
        m_worker,
        [this, kind, step, shadowDir = m_shadowDir, workspace = m_workspace, checkpoint = m_checkpoint,
         held = m_heldPaths] {
            const auto started = std::chrono::steady_clock::now();
            QString problem;
            ShadowRepo::Options options;
            options.rules.heldPaths = held;
            if (auto repo = ShadowRepo::open(shadowDir, workspace, options); !repo) {
                problem = QString::fromStdString(repo.error().message);
            } else if (auto taken = repo->snapshot(kind, step); !taken) {
                problem = QString::fromStdString(taken.error().message);
            } else if (kind == SnapshotMeta::Kind::Step) {
                std::error_code error;
                const fs::path copy = ShadowRepo::checkpointCopy(shadowDir, step);
                fs::create_directories(copy.parent_path(), error);
                fs::remove(copy, error);
                if (fs::exists(checkpoint, error) &&
                    !fs::copy_file(checkpoint, copy, fs::copy_options::overwrite_existing, error))
                    problem = QString::fromStdString("cannot keep the checkpoint before step " +
                                                     std::to_string(step) + ": " + error.message());
            }
            if (kind == SnapshotMeta::Kind::End && problem.isEmpty())
                if (auto repo = ShadowRepo::open(shadowDir, workspace); repo)
                    if (auto pruned = repo->prune(); !pruned)
                        problem = QString::fromStdString(pruned.error().message);
            const qint64 elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::steady_clock::now() - started)
                                       .count();
            QMetaObject::invokeMethod(this, [this, step, problem, elapsed] {
                emit taken(step, problem, elapsed);
                if (--m_pending == 0) {
                    m_overBudget = false;
                    release();
                    while (!m_afterAll.empty() && m_pending == 0) {
                        auto then = std::move(m_afterAll.front());
                        m_afterAll.pop_front();
                        then();
                    }
                }
            });
        },
        Qt::QueuedConnection);
}

void TaskSnapshots::whenTaken(std::function<void()> then) {
    if (m_held.empty() && (m_pending == 0 || m_overBudget))
        return then();
    m_held.push_back(std::move(then));
}

void TaskSnapshots::afterAll(std::function<void()> then) {
    if (m_pending == 0)
        return then();
    m_afterAll.push_back(std::move(then));
}

void TaskSnapshots::release() {
    m_budget.stop();
    while (!m_held.empty()) {
        auto then = std::move(m_held.front());
        m_held.pop_front(); // before the call: it may hold more
        then();
    }
}

} // namespace warren::snapshots
