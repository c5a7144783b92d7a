#pragma once
// One launch of one task's agent: `warren-agent serve` in its sandbox (never outside one: bubblewrap, or a
// Docker/Podman container, as the task's spec says; RunningSandbox hides which), as planned by planLaunch
// and carried out one edge after the other; its lines (AgentChannel) turned into stored events, its
// requests answered by the ToolProxy. Stops are graceful first: ask the agent (control.cancel /
// control.pause), then SIGTERM, then kill the whole sandbox. When the sandbox is gone the task's record says
// how it ended, what it left in /output, and what to do next.
//
// Events get the store's own sequence (one per task, across runs), so that what the control plane itself
// records (streamed model text, refused requests, how the run ended) sits in order with what the agent
// sent (EventSequencer); the agent's seq is checked on arrival so that a lost or repeated event is reported,
// and each event's data is read by its type's payload (EventPayloads) before it is stored: what does not
// read is stored as an error event that says what the agent sent wrong, never as if it were valid.

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"
#include "app/proxy/ApprovalRules.h"
#include "app/store/StoreTypes.h"
#include "app/tasks/AgentLaunch.h"
#include "app/tasks/IdleWait.h"
#include "app/tasks/RunEnding.h"
#include "app/tasks/RunnerEnvironment.h"
#include "app/tasks/TaskSpec.h"
#include "common/Result.h"
#include "common/UniqueFd.h"

#include <QObject>
#include <QTimer>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

class QNetworkAccessManager;
class QSocketNotifier;

namespace warren::snapshots {
class TaskSnapshots;
}

namespace warren::control {

class AgentChannel;
class EgressProxy;
class EventSequencer;
struct LaunchPlan;
struct PlanEnvironment;
class ModelProxy;
class NetworkQuestions;
class SecretProxy;
struct TaskSecret;
struct ProviderConfig;
class ToolProxy;

class TaskRunner : public QObject {
    Q_OBJECT
public:
    TaskRunner(const RunnerEnvironment& environment, TaskRecord task, TaskSpec spec,
               QObject* parent = nullptr);
    ~TaskRunner() override;

    // The task's lock (TaskLock.h), taken by the queue when it queued the task: kept until the run ends.
    // Without it, start() takes the lock itself.
    void holdLock(UniqueFd lock) { m_lock = std::move(lock); }
    // Launches; finished() follows in every case, also when the launch fails.
    void start();
    void cancel(const std::string& why); // the user's stop: the task ends cancelled
    void pause();                        // checkpoint and stop: resumable
    // The ToolProxy's questions, or NetworkQuestions' (an id isNetworkQuestionId).
    bool answerApproval(const std::string& callId, bool approved, const std::string& note, bool always);
    bool isWaiting(const std::string& callId) const;
    // The run has ended (its questions kept, TaskSleep.h); its record is on its way to the store.
    bool ended() const { return m_done; }
    void addApprovalRule(const ApprovalRule& rule); // decides this task's later calls, after its other rules
    const TaskRecord& task() const { return m_task; }
    // The run ended leaving its cluster pod running (its agent lost its connection and reconnects): the task
    // is queued again (its record says Queued), for a launch that rejoins the pod (SandboxRequest::rejoin).
    bool leftPodRunning() const { return m_podLeftRunning; }

signals:
    // After every event before it is stored (StoredEvents::eventStored): a face has shown what led there.
    void approvalNeeded(const warren::control::ApprovalRecord& approval);
    void finished(const std::string& taskId);
    // Backpressure (EventSequencer) began (paused) or ended: uncommitted events wait for the database.
    void outputPaused(const std::string& taskId, bool paused, std::size_t uncommitted);

private:
    using StopCause = RunEnding::StopCause;

    // The edges of a launch, in order; each refuses to continue on failure.
    Status launch();
    Status ownersAdditions(PlanEnvironment& site) const;
    Status takeLock();
    Status startProxy(const LaunchPlan& plan); // the provider with its key, the token, the ToolProxy
    void connectProxy();
    Status continueSequence();
    Status startEgress(const LaunchPlan& plan, std::vector<TaskSecret> secrets);
    Status startModelProxy(const LaunchPlan& plan, const ProviderConfig& provider);
    void askAboutNetwork(const LaunchPlan& plan);  // --network ask
    Status startListener(const LaunchPlan& plan); // kube and kubernetes: where the agent connects
    void watchSandbox();
    void startSnapshots(const LaunchPlan& plan);
    void markRunning();

    void onStatusReadable();
    void onSandboxExited();
    void onConnectionLost();
    void leavePodRunning(); // the grace after a lost connection passed and the pod still runs
    // Neither the agent said how its run ended nor the control plane stopped it: a lost connection is not
    // the run's end.
    bool agentMayReconnect() const;
    void onAgentLine(const Result<std::string>& line);
    void onAgentNotification(protocol::Notification& notification);
    // An event whose data read as its type's payload: the run's bookkeeping, then the store.
    void onAgentEvent(const protocol::Event& event, const protocol::EventPayload& payload, nlohmann::json body);
    void send(const protocol::Message& message);
    void stop(StopCause cause, const std::string& why);
    void escalate();
    // Whether the run only waits for its user now (IdleWait): the task's timeout stops meanwhile, and the
    // idle timer (RunnerEnvironment::idleSleep) runs toward sleep. Called whenever that may have changed.
    void updateIdle();
    void sleep(); // the idle timer ran out
    Status idleSleep(const agent::AgentConfig& config); // sets m_idleSleep at each launch
    void keepOpenQuestions(TaskStatus& status); // a run that ended paused or asleep: what it left unanswered
    // The control plane's own events, each through its typed data (EventPayloads.h).
    // agent: the sub-agent it concerns (a model_delta of its call), else the task's own agent.
    template <typename Payload> void recordOwn(const Payload& payload, std::optional<std::string> agent = std::nullopt) {
        recordOwn(std::string(Payload::kType), payload.toJson(), std::move(agent));
    }
    void recordOwn(const std::string& type, nlohmann::json data, std::optional<std::string> agent = std::nullopt);
    protocol::Event ownEvent(const std::string& type, nlohmann::json data) const; // now, this step
    void recordEnd(TaskStatus status, const std::string& reason, const std::string& error); // finish's end
    void finish(TaskStatus status, const std::string& reason, const std::string& error);
    void fail(const std::string& reason, const std::string& error) {
        finish(TaskStatus::Failed, reason, error);
    }

    RunnerEnvironment m_env;
    TaskRecord m_task;
    TaskSpec m_spec;
    std::string m_token;
    std::unique_ptr<ToolProxy> m_proxy;
    std::unique_ptr<ModelProxy> m_modelProxy;           // a CLI agent: its only way to its model
    std::unique_ptr<SecretProxy> m_secrets; // --secret: the hosts' requests made with their values (outlives m_egress)
    std::unique_ptr<NetworkQuestions> m_questions; // --network ask: what the egress proxy asks (outlives m_egress)
    std::unique_ptr<EgressProxy> m_egress;  // --network allow:HOSTS: the task's only way out
    std::unique_ptr<AgentListener> m_listener;          // kube: where the agent connects, until it has
    // The agent runs in a cluster's pod (kubernetes), which outlives connections: warrend's listener
    // (clusterAgents) was told to hand over this task's agent and its CLI's model calls.
    bool m_clusterPod = false;
    bool m_rejoinPod = false;  // this launch follows the task's pod left running, if it still runs
    bool m_podLeftRunning = false; // leftPodRunning()
    QTimer m_lostConnection;       // from a cluster agent's lost connection until leavePodRunning
    std::unique_ptr<AgentChannel> m_channel;            // the agent's stdio, or its connection
    std::unique_ptr<snapshots::TaskSnapshots> m_snapshots; // the workspace before each step
    std::unique_ptr<sandbox::RunningSandbox> m_process; // removes its placeholders and container when reset
    UniqueFd m_lock;
    QSocketNotifier* m_exitNotifier = nullptr;
    QSocketNotifier* m_statusNotifier = nullptr;
    QTimer m_timeout;
    QTimer m_grace;
    QTimer m_idle;                                      // toward sleep, while the run only waits for its user
    std::chrono::milliseconds m_idleSleep{0};           // this run's idle time (idleSleep); 0: it never sleeps
    IdleWait m_idleWait;
    bool m_waitingForUser = false;
    std::optional<std::chrono::milliseconds> m_timeoutLeft; // of the task's timeout, stopped while waiting
    std::optional<std::string> m_wakeCall; // the call a kept answer (TaskSleep.h) is for, until its result
    int m_escalation = 0; // 0 asked, 1 SIGTERM sent, 2 killed
    EventSequencer* m_events; // a child
    RunEnding m_ending;
    std::optional<std::uint64_t> m_lastAgentSeq;
    std::uint64_t m_step = 0;
    bool m_stepActed = false; // a tool call came in m_step: what comes next is the following step's
    bool m_done = false;
    // The sandbox's launch, until its agent's first line (EngineMetrics' start latency); the provider's kind.
    std::optional<std::chrono::steady_clock::time_point> m_launchedAt;
    std::string m_providerKind;
};

} // namespace warren::control
