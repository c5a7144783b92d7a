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
// sent; the agent's seq is checked on arrival so that a lost or repeated event is reported.

#include "agent_core/protocol/Event.h"
#include "app/egress/InsideDestinations.h"
#include "app/proxy/ApprovalRules.h"
#include "app/store/StoreTypes.h"
#include "app/tasks/AgentLaunch.h"
#include "app/tasks/ClusterPlacement.h"
#include "app/tasks/DataDir.h"
#include "app/tasks/TaskSpec.h"
#include "common/Result.h"
#include "common/UniqueFd.h"

#include <QObject>
#include <QTimer>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

class QNetworkAccessManager;
class QSocketNotifier;
class QFileSystemWatcher;

namespace warren::snapshots {
class TaskSnapshots;
}

namespace warren::control {

class AgentChannel;
class AgentListener;
class EventWriter;
struct LaunchPlan;
struct ProviderConfig;
class Store;
class EgressProxy;
class TaskTokens;
class ToolProxy;

// What every runner of one control plane shares.
struct RunnerEnvironment {
    Store* store = nullptr;
    EventWriter* events = nullptr;
    TaskTokens* tokens = nullptr;
    // The API key for the task's provider, looked up just before launch and only for a provider that needs
    // one: the desktop's SecretStore (ProviderKey), warrend's the task owner's own key or the server's.
    std::function<Result<std::string>(const TaskRecord& task, const ProviderConfig& provider)> providerKey;
    // Where the task's provider may be connected to, decided just before launch: unset or nullopt (the
    // desktop, and warrend's own configured endpoints): wherever its URL points; else (warrend, an endpoint
    // a user named) only at addresses outside this machine and its networks, or the operator's.
    std::function<std::optional<InsideAccess>(const ProviderConfig& provider)> providerAccess;
    // Which addresses inside this machine and its networks the egress proxy's rules reach: the desktop's
    // user decides (an address literal), warrend's operator (--allow-internal) whatever the rules say.
    InsideAccess egressAccess;
    std::function<void()> deliverStored;   // hands every committed event to its runner (TaskManager)
    // More labels of the task's sandbox (warrend: its owner's tenant and user); unset: none.
    std::function<Result<std::map<std::string, std::string>>(const TaskRecord& task)> sandboxLabels;
    QNetworkAccessManager* network = nullptr;
    DataDir data;
    std::string agentBinary;
    std::vector<nlohmann::json> extraProfileLayers;
    ClusterPlacement cluster;              // warrend's (PlanEnvironment); no agent address: no cluster
    AgentListener* clusterAgents = nullptr; // warrend's one listener for the agents of its cluster tasks
    std::vector<ApprovalRule> approvalRules;
    std::chrono::milliseconds stopGrace{5000}; // between asking, SIGTERM and SIGKILL
    // How long the agent's next request waits for the snapshot of the workspace before its step.
    std::chrono::milliseconds snapshotBudget{5000};
};

class TaskRunner : public QObject {
    Q_OBJECT
public:
    TaskRunner(const RunnerEnvironment& environment, TaskRecord task, TaskSpec spec,
               QObject* parent = nullptr);
    ~TaskRunner() override;

    // Launches; finished() follows in every case, also when the launch fails.
    void start();
    void cancel(const std::string& why); // the user's stop: the task ends cancelled
    void pause();                        // checkpoint and stop: resumable
    bool answerApproval(const std::string& callId, bool approved, const std::string& note,
                        bool always);               // ToolProxy's
    bool isWaiting(const std::string& callId) const; // ToolProxy's
    void addApprovalRule(const ApprovalRule& rule); // decides this task's later calls, after its other rules
    // The writer is done with this task's event seq: emits eventStored for it when it was stored (and
    // forgets those before it that the writer never gave back). Below the backpressure limits again,
    // reads the agent's stdout again.
    void onEventCommitted(std::uint64_t seq, bool dropped);

    // Backpressure: with this many events, or bytes of them, stored but not yet committed (a slow or
    // restarting database), the agent's stdout is not read until half of them are, so that a flooding
    // agent waits in its write instead of growing the server's memory.
    static constexpr std::size_t kPauseAtEvents = 16 * 1024;
    static constexpr std::size_t kPauseAtBytes = 16u << 20;

    const TaskRecord& task() const { return m_task; }

signals:
    // Every stored event, as stored, once it is committed, in seq order; all of them before finished()
    // (direct connections: the object is only valid during the call).
    void eventStored(const std::string& taskId, const nlohmann::json& event);
    void approvalNeeded(const warren::control::ApprovalRecord& approval);
    void finished(const std::string& taskId);
    // Backpressure began (paused) or ended: uncommitted events are waiting for the database.
    void outputPaused(const std::string& taskId, bool paused, std::size_t uncommitted);

private:
    enum class StopCause { None, User, Pause, Timeout, Budget, Failure };
    struct Ending {
        TaskStatus status;
        std::string reason, error;
    };

    // The edges of a launch, in order; each refuses to continue on failure.
    Status launch();
    Status takeLock();
    Status startProxy(const LaunchPlan& plan); // the provider with its key, the token, the ToolProxy
    void connectProxy();
    Status continueSequence();
    Status startEgress(const LaunchPlan& plan);
    Status startListener(const LaunchPlan& plan); // kube and kubernetes: where the agent connects
    void watchSandbox();
    void startSnapshots(const LaunchPlan& plan);
    void markRunning();

    void onStatusReadable();
    void onSandboxExited();
    Ending endingAfter(const sandbox::SandboxExit& exit, const std::string& diagnostics) const;
    void onAgentLine(const Result<std::string>& line);
    void onAgentNotification(protocol::Notification& notification);
    void onAgentEvent(const protocol::Event& event, nlohmann::json body);
    void send(const protocol::Message& message);
    void stop(StopCause cause, const std::string& why);
    void escalate();
    // The control plane's own events, each through its typed data (EventPayloads.h).
    // agent: the sub-agent it concerns (a model_delta of its call), else the task's own agent.
    template <typename Payload> void recordOwn(const Payload& payload, std::optional<std::string> agent = std::nullopt) {
        recordOwn(std::string(Payload::kType), payload.toJson(), std::move(agent));
    }
    void recordOwn(const std::string& type, nlohmann::json data, std::optional<std::string> agent = std::nullopt);
    void store(const protocol::Event& event, nlohmann::json body);
    // Calls then once every event stored so far is committed (or dropped) and emitted: at once when none
    // waits, else from onEventCommitted; never waits for the writer.
    void afterStored(std::function<void()> then);
    void recordEnd(TaskStatus status, const std::string& reason, const std::string& error); // finish's end
    void setReading(bool reading); // the agent's stdout: backpressure
    void recordArtifacts();
    void finish(TaskStatus status, const std::string& reason, const std::string& error);
    void fail(const std::string& reason, const std::string& error) {
        finish(TaskStatus::Failed, reason, error);
    }

    RunnerEnvironment m_env;
    TaskRecord m_task;
    TaskSpec m_spec;
    std::string m_token;
    std::unique_ptr<ToolProxy> m_proxy;
    std::unique_ptr<EgressProxy> m_egress;              // --network allow:HOSTS: the task's only way out
    std::unique_ptr<AgentListener> m_listener;          // kube: where the agent connects, until it has
    bool m_expectsClusterAgent = false; // told warrend's listener (clusterAgents) to hand this task's agent over
    std::unique_ptr<AgentChannel> m_channel;            // the agent's stdio, or its connection
    std::unique_ptr<snapshots::TaskSnapshots> m_snapshots; // the workspace before each step
    std::unique_ptr<sandbox::RunningSandbox> m_process; // removes its placeholders and container when reset
    UniqueFd m_lock;
    QSocketNotifier* m_exitNotifier = nullptr;
    QSocketNotifier* m_statusNotifier = nullptr;
    QFileSystemWatcher* m_cancelWatcher = nullptr;
    QTimer m_timeout;
    QTimer m_grace;
    int m_escalation = 0; // 0 asked, 1 SIGTERM sent, 2 killed
    StopCause m_stopCause = StopCause::None;
    std::string m_stopWhy;
    std::uint64_t m_nextSeq = 1;
    struct Uncommitted {
        std::uint64_t seq = 0;
        nlohmann::json event;
        std::size_t bytes = 0; // its row's payload
    };
    std::deque<Uncommitted> m_uncommitted; // stored, not yet committed
    std::size_t m_uncommittedBytes = 0;
    std::deque<std::pair<std::uint64_t, std::function<void()>>> m_afterStored; // last seq it waits for
    bool m_readingPaused = false;
    std::optional<std::uint64_t> m_lastAgentSeq;
    std::uint64_t m_step = 0;
    std::optional<std::string> m_finishedReason; // task_finished's reason, when the agent sent one
    std::string m_summary;
    std::string m_startRefused; // task.start answered with an error
    bool m_done = false;
    std::chrono::steady_clock::time_point m_startedAt;
};

} // namespace warren::control
