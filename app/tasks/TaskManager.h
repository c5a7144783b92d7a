#pragma once
// The queue: tasks wait until one of maxConcurrent slots is free, then get a TaskRunner. Also the
// recovery on start (a task left `running` whose process is gone becomes `interrupted`, and the placeholders
// its killed sandbox left in the workspace are removed), resume, cancel and pause, wherever the task is in
// its life. Its runners' events reach the faces through StoredEvents.

#include "app/store/StoreTypes.h"
#include "app/tasks/CancelRequests.h"
#include "app/tasks/TaskRunner.h"
#include "app/tasks/TaskSleep.h"
#include "app/tasks/TaskSpec.h"

#include <QObject>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace warren::control {

class TaskManager : public QObject {
    Q_OBJECT
public:
    TaskManager(RunnerEnvironment environment, std::size_t maxConcurrent, QObject* parent = nullptr);
    ~TaskManager() override;

    // Stores the task as queued and starts it when a slot is free; Held: stores it as queued only, and
    // resume() starts it (a server holds a task until its owner's quota has room); Paused: stores it paused,
    // for resume() (a fork: never queued without a queue's lock, which a window would take up). id: one the
    // caller made with newTaskId() (a server records it before the task exists); empty: a new one.
    enum class Start { WhenFree, Held, Paused };
    Result<TaskRecord> submit(const std::string& prompt, const std::string& workspace, const TaskSpec& spec,
                              const std::string& id = {}, Start start = Start::WhenFree);
    // A paused, interrupted or failed task goes back in the queue; its agent resumes from its checkpoint.
    // move: another backend or image from now on (stored in the task's spec).
    Status resume(const std::string& id, const SandboxMove& move);
    // A task whose run ended, continued with the user's message (TaskReply.h): back in the queue, its agent
    // resumes from its checkpoint with the message added. Refused while it is queued or running, and for a
    // task that left no checkpoint.
    Status reply(const std::string& id, const std::string& message);
    // Running here: ask the agent, then SIGTERM, then kill. Running in another warren process: ask that
    // process (a request file it watches). Not running: marked cancelled.
    Status cancel(const std::string& id, const std::string& why);
    Status pause(const std::string& id);
    // The user's answer to a question of a task running here, or of a task asleep or paused while the
    // question waited (TaskSleep.h): that answer is kept and the task queued again, its agent's question
    // answered with it when asked again. False when no such question waits.
    bool answerApproval(const std::string& taskId, const std::string& callId, bool approved,
                        const std::string& note, bool always);
    // Whether that question waits for an answer now (of a task running here, asleep or paused).
    bool isWaiting(const std::string& taskId, const std::string& callId) const;
    // The approval rules of tasks started from now on; addApprovalRule adds one to a running task too.
    void setApprovalRules(std::vector<ApprovalRule> rules);
    void addApprovalRule(const std::string& taskId, const ApprovalRule& rule);
    // Tasks stored as running whose agent no process holds any more become interrupted. Returns them.
    std::vector<std::string> recoverInterrupted();
    // The desktop's window, at its start: tasks stored as queued that no process's queue holds (the window
    // or `warren run` quit before they started) are queued here, oldest first. Returns them. Not with
    // claims (warrend: TaskLeases adopts them), nor for a short-lived command, which would end with them.
    std::vector<std::string> takeUpQueued();
    // A task another control plane left queued or running (its claim expired: TaskClaims.h), claimed and
    // queued here; a running one's agent resumes from its checkpoint. False: another claimed it first, it
    // runs in another process of this machine, or it is no longer queued or running.
    Result<bool> adopt(const std::string& id);
    // The task is this control plane's to queue (TaskClaims.h; always, without claims), or false: another's.
    // Queuing it claims it too; claim first what must not be touched while another holds it.
    Result<bool> claim(const std::string& id);
    // Another control plane holds the task, alive (TaskClaims): only it can answer its questions or stop it.
    bool runsElsewhere(const std::string& id) const;
    // The tasks queued or running here: what this control plane's claims must hold.
    std::vector<std::string> claimedHere() const;
    // Another control plane took the task (this one's claim expired while it could not renew it): dropped
    // here, its sandbox killed, nothing more of it stored.
    void abandon(const std::string& id);

    void
    setMaxConcurrent(std::size_t maxConcurrent); // more slots start queued tasks now; fewer wait for ends
    // The face's idle time (RunnerEnvironment::idleSleep) of the runs started from now on.
    void setIdleSleep(std::chrono::milliseconds idleSleep) { m_env.idleSleep = idleSleep; }
    // The face's warm containers per shape (RunnerEnvironment::warmSandboxes) of the launches from now on.
    void setWarmSandboxes(int warm) { m_env.warmSandboxes = warm; }
    std::size_t activeCount() const { return m_running.size(); }
    bool isActive(const std::string& id) const { return m_running.contains(id); }

signals:
    void approvalNeeded(const warren::control::ApprovalRecord& approval);
    void taskFinished(const std::string& taskId);
    void outputPaused(const std::string& taskId, bool paused, std::size_t uncommitted); // TaskRunner's

private:
    void schedule();
    Status requeue(TaskRecord record); // queued, started when a slot is free
    Result<TaskRecord> storedTask(const std::string& id) const; // NotFound names `warren tasks`
    bool lockedElsewhere(const std::string& id) const; // runsElsewhere, or lockFileHeld
    bool lockFileHeld(const std::string& id) const;    // by another process of this machine (TaskLock.h)
    // Into the queue, with the task's lock (a task running here: its runner holds it); false when another
    // process holds the lock. dequeue drops both.
    bool enqueue(const std::string& id);
    void dequeue(const std::string& id);
    Status mustClaim(const std::string& id); // claim's refusal as an error
    void letGo(const std::string& id);
    std::optional<SleepingQuestion> openQuestion(const std::string& taskId, const std::string& callId) const;
    bool keptQuestion(const std::string& taskId, const std::string& callId) const;

    // An answer to a question of a run that has ended but whose record is not yet stored (it fell asleep or
    // paused as the user answered): taken as the sleeping task's answer once the record says so.
    struct LateAnswer {
        std::string callId;
        bool approved = false;
        std::string note;
        bool always = false;
    };

    RunnerEnvironment m_env;
    CancelRequests m_cancelRequests; // its runners' (m_env.cancelRequests): destroyed after them
    std::size_t m_maxConcurrent;
    std::deque<std::string> m_queue;
    std::map<std::string, UniqueFd> m_queueLocks; // the queued tasks' locks, handed to their runners
    std::map<std::string, TaskRunner*> m_running;
    std::map<std::string, LateAnswer> m_lateAnswers; // one a task: keptQuestion takes no second
};

std::string newTaskId(); // "t-" + 12 random hex digits

} // namespace warren::control
