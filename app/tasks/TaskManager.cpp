#include "app/tasks/TaskManager.h"

#include "agent_core/protocol/Timestamp.h"
#include "app/store/Store.h"
#include "app/tasks/AgentCli.h"
#include "app/tasks/TaskClaims.h"
#include "app/tasks/TaskLock.h"
#include "app/tasks/TaskMove.h"
#include "app/tasks/TaskReply.h"
#include "app/tasks/TaskRetention.h"
#include "app/tasks/TaskSleep.h"
#include "app/tasks/WorkspaceScope.h"
#include "sandbox/PlaceholderRecord.h"

#include <QRandomGenerator>
#include <filesystem>

namespace warren::control {

namespace fs = std::filesystem;

std::string newTaskId() {
    static const char* digits = "0123456789abcdef";
    std::string id = "t-";
    for (int i = 0; i < 12; ++i)
        id += digits[QRandomGenerator::system()->bounded(16)];
    return id;
}

TaskManager::TaskManager(RunnerEnvironment environment, std::size_t maxConcurrent, QObject* parent)
    : QObject(parent), m_env(std::move(environment)), m_cancelRequests(m_env.data),
      m_maxConcurrent(std::max<std::size_t>(1, maxConcurrent)) {
    m_env.cancelRequests = &m_cancelRequests;
}

TaskManager::~TaskManager() {
    for (auto& [id, runner] : m_running)
        delete runner; // kills its sandbox (a cluster's pod runs on); the task is recovered next time
}

Result<TaskRecord> TaskManager::submit(const std::string& prompt, const std::string& workspace,
                                       const TaskSpec& spec, const std::string& id, Start start) {
    if (auto valid = validateSpec(spec); !valid)
        return valid.error();
    // A CLI agent that is not installed, or cannot speak to the task's model, is refused before the task exists.
    if (auto agent = checkTaskAgent(spec, m_env.face.agentClis); !agent)
        return agent.error();
    std::error_code error;
    const fs::path canonical = fs::canonical(workspace, error);
    if (error || !fs::is_directory(canonical))
        return makeError(ErrorCode::NotFound,
                         "the workspace " + workspace + " is not a directory; pass --workspace DIR");
    if (auto broad = tooBroadWorkspace(canonical, userHome()))
        return makeError(ErrorCode::InvalidArgument, *broad);
    TaskRecord task;
    task.id = id.empty() ? newTaskId() : id;
    // Claimed before it is stored: no other control plane sees it queued and unclaimed and adopts it.
    if (auto claimed = mustClaim(task.id); !claimed)
        return claimed.error();
    task.prompt = prompt;
    task.workspace = canonical.string();
    task.spec = spec.toJson().dump();
    task.status = start == Start::Paused ? TaskStatus::Paused : TaskStatus::Queued;
    task.createdAt = protocol::formatTimestamp(std::chrono::system_clock::now());
    // Locked before it is stored, as it is claimed: no other process sees it queued and takes it up.
    if (start == Start::WhenFree && !enqueue(task.id))
        return makeError(ErrorCode::InvalidArgument, "task " + task.id + " is locked by another warren process");
    if (auto inserted = m_env.store->insertTask(task); !inserted) {
        dequeue(task.id);
        letGo(task.id);
        return inserted.error();
    }
    if (start == Start::Paused)
        letGo(task.id);
    if (start != Start::WhenFree)
        return task;
    schedule();
    return task;
}

bool TaskManager::runsElsewhere(const std::string& id) const {
    return !isActive(id) && m_env.face.claims && m_env.face.claims->heldElsewhere(id);
}

bool TaskManager::lockedElsewhere(const std::string& id) const {
    return runsElsewhere(id) || lockFileHeld(id);
}

// This process's queue holds its own: not another's.
bool TaskManager::lockFileHeld(const std::string& id) const {
    return !m_queueLocks.contains(id) && taskLockHeld(m_env.data, id);
}

bool TaskManager::enqueue(const std::string& id) {
    if (std::find(m_queue.begin(), m_queue.end(), id) != m_queue.end())
        return true;
    // A task running here is queued again for after its run (its runner holds the lock meanwhile).
    if (!isActive(id)) {
        UniqueFd lock = takeTaskLock(m_env.data, id);
        if (!lock.valid())
            return false;
        m_queueLocks[id] = std::move(lock);
    }
    m_queue.push_back(id);
    return true;
}

void TaskManager::dequeue(const std::string& id) {
    std::erase(m_queue, id);
    m_queueLocks.erase(id);
}

Result<bool> TaskManager::claim(const std::string& id) {
    return m_env.face.claims ? m_env.face.claims->claim(id) : Result<bool>(true);
}

Status TaskManager::mustClaim(const std::string& id) {
    auto claimed = claim(id);
    if (!claimed)
        return claimed.error();
    if (!*claimed)
        return makeError(ErrorCode::InvalidArgument, "task " + id + " is queued or running in another control "
                                                         "plane; ask again once it has stopped there");
    return Ok{};
}

// Whoever comes next may take a task no longer queued or running here at once, not once its claim expired.
void TaskManager::letGo(const std::string& id) {
    if (m_env.face.claims && !isActive(id) && std::find(m_queue.begin(), m_queue.end(), id) == m_queue.end())
        m_env.face.claims->release(id);
}

std::vector<std::string> TaskManager::claimedHere() const {
    std::vector<std::string> ids(m_queue.begin(), m_queue.end());
    for (const auto& [id, runner] : m_running)
        ids.push_back(id);
    return ids;
}

void TaskManager::abandon(const std::string& id) {
    dequeue(id);
    if (auto running = m_running.extract(id))
        delete running.mapped(); // kills its sandbox (a cluster's pod is left to the other) and stores
                                 // nothing more: the task is another's now
    m_lateAnswers.erase(id);
}

Result<bool> TaskManager::adopt(const std::string& id) {
    // A control plane on this machine alive but slow to renew its claim (stopped, or its database away
    // a while) still holds the task's lock: not even claimed, as its renewal would then find the claim gone.
    if (isActive(id) || lockedElsewhere(id))
        return false;
    if (auto claimed = claim(id); !claimed || !*claimed)
        return claimed;
    // Its lock taken meanwhile: it runs in another process of this machine after all.
    if (lockFileHeld(id)) {
        letGo(id);
        return false;
    }
    auto task = storedTask(id);
    if (!task)
        return task.error();
    TaskRecord record = *task;
    // A running one's sandbox went with the control plane that ran it: queued here, its agent resumes from
    // its last checkpoint. Straight from running to queued: never a moment not queued or running, at which
    // its event streams would end as if the task had.
    if (record.status != TaskStatus::Running && record.status != TaskStatus::Queued) {
        letGo(id);
        return false;
    }
    if (auto resumed = requeue(std::move(record)); !resumed)
        return resumed.error();
    return true;
}

Result<TaskRecord> TaskManager::storedTask(const std::string& id) const {
    auto task = m_env.store->task(id);
    if (!task)
        return task.error();
    if (!*task)
        return makeError(ErrorCode::NotFound, "no task " + id + "; `warren tasks` lists them");
    return **task;
}

Status TaskManager::resume(const std::string& id, const SandboxMove& move) {
    auto task = storedTask(id);
    if (!task)
        return task.error();
    TaskRecord record = *task;
    if (isActive(id) || lockedElsewhere(id))
        return makeError(ErrorCode::InvalidArgument, "task " + id + " is running");
    if (record.status == TaskStatus::Waiting)
        return makeError(ErrorCode::InvalidArgument, "task " + id + " is waiting for your reply; `warren reply " +
                                                         id + " MESSAGE` continues it");
    if (auto here = checkNotMoved(record, "resume"); !here)
        return here;
    if (record.status == TaskStatus::Succeeded || record.status == TaskStatus::Cancelled)
        return makeError(ErrorCode::InvalidArgument, "task " + id + " has " + taskStatusName(record.status) +
                                                         "; only paused, interrupted or failed tasks resume");
    if (auto kept = checkPartsKept(record, "resume"); !kept)
        return kept;
    if (move.backend || move.image) {
        auto spec = TaskSpec::fromText(record.spec);
        if (!spec)
            return spec.error();
        spec->backend = move.backend.value_or(spec->backend);
        spec->image = move.image.value_or(spec->image);
        if (auto valid = validateSpec(*spec); !valid)
            return valid;
        record.spec = spec->toJson().dump();
    }
    return requeue(std::move(record));
}

Status TaskManager::reply(const std::string& id, const std::string& message) {
    if (auto valid = checkReply(message); !valid)
        return valid;
    auto task = storedTask(id);
    if (!task)
        return task.error();
    TaskRecord record = *task;
    if (isActive(id) || lockedElsewhere(id))
        record.status = TaskStatus::Running; // whatever the record says yet
    std::error_code error;
    const bool checkpoint = fs::exists(m_env.data.stateDir(id) + "/checkpoint.json", error);
    const auto spec = TaskSpec::fromText(record.spec);
    if (auto repliable = checkRepliable(record, spec && spec->demo, checkpoint); !repliable)
        return repliable;
    if (auto kept = keepReply(m_env.data, id, message); !kept)
        return kept;
    // The run that ended is continued: its end no longer stands.
    record.finishedAt.clear();
    record.finishReason.clear();
    record.error.clear();
    return requeue(std::move(record));
}

Status TaskManager::requeue(TaskRecord record) {
    // Whatever continues it (a resume, a reply, an answer waking it): not one moved away, or being moved.
    if (auto here = checkNotMoved(record, "continue"); !here)
        return here;
    if (auto moving = checkNoMoveUnderWay(m_env.data, record.id, "continue"); !moving)
        return moving;
    if (auto claimed = mustClaim(record.id); !claimed)
        return claimed;
    const bool wasQueued = std::find(m_queue.begin(), m_queue.end(), record.id) != m_queue.end();
    if (!enqueue(record.id)) {
        letGo(record.id);
        return makeError(ErrorCode::InvalidArgument,
                         "task " + record.id + " is queued or running in another warren process; stop it there first");
    }
    record.status = TaskStatus::Queued;
    if (auto updated = m_env.store->updateTask(record); !updated) {
        if (!wasQueued)
            dequeue(record.id);
        letGo(record.id);
        return updated;
    }
    schedule();
    return Ok{};
}

Status TaskManager::cancel(const std::string& id, const std::string& why) {
    if (auto running = m_running.find(id); running != m_running.end()) {
        running->second->cancel(why);
        return Ok{};
    }
    auto task = storedTask(id);
    if (!task)
        return task.error();
    if (lockedElsewhere(id)) {
        return CancelRequests::request(m_env.data, id, why);
    }
    TaskRecord record = *task;
    if (isFinal(record.status))
        return makeError(ErrorCode::InvalidArgument,
                         "task " + id + " has already " + taskStatusName(record.status));
    dequeue(id);
    letGo(id);
    forgetSleep(m_env.data, id); // its questions will not be answered now
    forgetWakeAnswer(m_env.data, id);
    record.status = TaskStatus::Cancelled;
    record.finishReason = "cancelled";
    record.finishedAt = protocol::formatTimestamp(std::chrono::system_clock::now());
    return m_env.store->updateTask(record);
}

Status TaskManager::pause(const std::string& id) {
    auto running = m_running.find(id);
    if (running == m_running.end())
        return makeError(ErrorCode::InvalidArgument, "task " + id + " is not running in this process");
    running->second->pause();
    return Ok{};
}

bool TaskManager::answerApproval(const std::string& taskId, const std::string& callId, bool approved,
                                 const std::string& note, bool always) {
    if (const auto running = m_running.find(taskId); running != m_running.end()) {
        if (!running->second->ended())
            return running->second->answerApproval(callId, approved, note, always);
        if (!keptQuestion(taskId, callId))
            return false;
        m_lateAnswers[taskId] = {callId, approved, note, always};
        return true;
    }
    auto question = openQuestion(taskId, callId);
    if (!question)
        return false;
    auto task = storedTask(taskId);
    if (!task)
        return false;
    // Kept before anything else: once it is, the answer is the task's, whatever fails after.
    if (!keepWakeAnswer(m_env.data, taskId,
                        {question->toolCallId, question->tool, question->arguments, approved, note, always}))
        return false;
    // The question's record says who decided and when: the user, now, as if the agent were still there.
    if (auto approvals = m_env.store->approvals(taskId))
        for (auto approval : *approvals)
            if (approval.callId == question->approvalId && !approval.approved) {
                approval.approved = approved;
                approval.decidedBy = "user";
                approval.note = note;
                approval.decidedAt = protocol::formatTimestamp(std::chrono::system_clock::now());
                (void)m_env.store->updateApproval(approval);
            }
    forgetSleep(m_env.data, taskId);
    return requeue(std::move(*task)).ok();
}

bool TaskManager::isWaiting(const std::string& taskId, const std::string& callId) const {
    if (const auto running = m_running.find(taskId); running != m_running.end())
        return running->second->ended() ? keptQuestion(taskId, callId) : running->second->isWaiting(callId);
    return openQuestion(taskId, callId).has_value();
}

// A question the ended run kept beside the task (TaskRunner::keepOpenQuestions), not answered yet.
bool TaskManager::keptQuestion(const std::string& taskId, const std::string& callId) const {
    auto sleep = keptSleep(m_env.data, taskId);
    auto answered = keptWakeAnswer(m_env.data, taskId);
    const auto late = m_lateAnswers.find(taskId);
    return sleep && *sleep && (*sleep)->find(callId) && answered && !*answered && late == m_lateAnswers.end();
}

// A question of a task asleep or paused that its user has not answered yet (TaskSleep.h).
std::optional<SleepingQuestion> TaskManager::openQuestion(const std::string& taskId, const std::string& callId) const {
    auto task = m_env.store->task(taskId);
    if (!task || !*task || ((*task)->status != TaskStatus::Sleeping && (*task)->status != TaskStatus::Paused) ||
        lockedElsewhere(taskId))
        return std::nullopt;
    auto answered = keptWakeAnswer(m_env.data, taskId);
    auto sleep = keptSleep(m_env.data, taskId);
    if (!answered || *answered || !sleep || !*sleep)
        return std::nullopt;
    const SleepingQuestion* question = (*sleep)->find(callId);
    return question ? std::optional(*question) : std::nullopt;
}

std::vector<std::string> TaskManager::recoverInterrupted() {
    // The placeholders of protected paths a killed launcher left in a workspace (its bwrap sandbox died
    // with it); a launcher alive, in this process or another, holds its record locked.
    sandbox::sweepPlaceholderRecords({sandbox::Backend::Bwrap});
    std::vector<std::string> recovered;
    // A task answered while asleep whose wake the control plane did not live to queue: queued now.
    if (auto sleeping = m_env.store->tasksWithStatus(TaskStatus::Sleeping))
        for (auto& task : *sleeping)
            if (auto answered = keptWakeAnswer(m_env.data, task.id); answered && *answered && !lockedElsewhere(task.id))
                (void)requeue(std::move(task));
    auto running = m_env.store->tasksWithStatus(TaskStatus::Running);
    if (!running)
        return recovered;
    for (auto task : *running) {
        if (isActive(task.id) || lockedElsewhere(task.id))
            continue;
        // Claimed first: of two control planes recovering at once, one marks it and resumes it.
        if (auto claimed = claim(task.id); !claimed || !*claimed)
            continue;
        task.status = TaskStatus::Interrupted;
        task.finishReason = "interrupted";
        task.error = "Warren stopped while the task was running; `warren resume " + task.id +
                     "` continues from its last checkpoint.";
        if (m_env.store->updateTask(task))
            recovered.push_back(task.id);
    }
    return recovered;
}

std::vector<std::string> TaskManager::takeUpQueued() {
    std::vector<std::string> taken;
    if (m_env.face.claims)
        return taken;
    auto queued = m_env.store->taskIdsWithStatus(TaskStatus::Queued);
    if (!queued)
        return taken;
    // Oldest first, as they were queued; those another process's queue holds (locked) are left to it.
    for (auto id = queued->rbegin(); id != queued->rend(); ++id)
        if (!isActive(*id) && std::find(m_queue.begin(), m_queue.end(), *id) == m_queue.end() && enqueue(*id))
            taken.push_back(*id);
    schedule();
    return taken;
}

void TaskManager::setApprovalRules(std::vector<ApprovalRule> rules) {
    m_env.approvalRules = std::move(rules);
}

void TaskManager::addApprovalRule(const std::string& taskId, const ApprovalRule& rule) {
    if (auto running = m_running.find(taskId); running != m_running.end())
        running->second->addApprovalRule(rule);
}

void TaskManager::setMaxConcurrent(std::size_t maxConcurrent) {
    m_maxConcurrent = std::max<std::size_t>(1, maxConcurrent);
    schedule();
}

void TaskManager::schedule() {
    while (m_running.size() < m_maxConcurrent && !m_queue.empty()) {
        const std::string id = m_queue.front();
        m_queue.pop_front();
        auto lock = m_queueLocks.extract(id);
        auto task = m_env.store->task(id);
        if (!task || !*task)
            continue;
        auto spec = TaskSpec::fromText((*task)->spec);
        auto* runner = new TaskRunner(m_env, **task, spec ? *spec : TaskSpec{}, this);
        if (lock)
            runner->holdLock(std::move(lock.mapped()));
        m_running[id] = runner;
        connect(runner, &TaskRunner::approvalNeeded, this, &TaskManager::approvalNeeded);
        connect(runner, &TaskRunner::outputPaused, this, &TaskManager::outputPaused);
        connect(runner, &TaskRunner::finished, this, [this, runner](const std::string& finishedId) {
            const bool podRunsOn = runner->leftPodRunning();
            if (auto it = m_running.find(finishedId); it != m_running.end()) {
                it->second->deleteLater();
                m_running.erase(it);
            }
            // Its cluster pod runs on, its agent reconnecting: queued again at once (its claim kept), for the
            // launch that rejoins the pod. Its run did not end for its user: no taskFinished.
            if (podRunsOn)
                if (auto stored = storedTask(finishedId); stored && requeue(std::move(*stored))) {
                    schedule();
                    return;
                }
            emit taskFinished(finishedId);
            if (auto late = m_lateAnswers.extract(finishedId)) {
                const LateAnswer& answer = late.mapped();
                (void)answerApproval(finishedId, answer.callId, answer.approved, answer.note, answer.always);
            }
            letGo(finishedId);
            schedule();
        });
        if (!spec) {
            // A spec this build cannot read: fail the task rather than guess how to run it.
            runner->deleteLater();
            m_running.erase(id);
            TaskRecord failed = **task;
            failed.status = TaskStatus::Failed;
            failed.error = spec.error().message;
            (void)m_env.store->updateTask(failed);
            emit taskFinished(id);
            continue;
        }
        // Started from the event loop, so that whoever submitted the task has connected to its signals
        // even when the launch fails at once.
        QMetaObject::invokeMethod(runner, &TaskRunner::start, Qt::QueuedConnection);
    }
}

} // namespace warren::control
