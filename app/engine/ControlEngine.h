#pragma once
// What runs tasks, built once for both faces: what it counts (EngineMetrics), the Store, the EventWriter with
// its commits handed to each run and then to whoever listens (StoredEvents), the tool proxy's TaskTokens, the
// TaskManager and its runners, the default approval rules, the site's sandbox profile layer
// (WARREN_SANDBOX_PROFILE) and the agent's binary. LocalControlPlane (the desktop and the CLI) and Warrend
// open it through open() and add only where they differ (FaceSetup): where keys come from (the keychain, or
// the accounts), where a task may reach, its sandbox's labels, the cluster listener, how many tasks run at a
// time and with which rules.
//
// Listen to events().eventStored for every stored event (once, after its commit) and to tasks()'s
// approvalNeeded, taskFinished and outputPaused; events().problem says when events could not be stored.

#include "app/proxy/ApprovalRules.h"
#include "app/store/Store.h"
#include "app/tasks/DataDir.h"
#include "app/tasks/RunnerEnvironment.h"
#include "common/Result.h"

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

class QNetworkAccessManager;

namespace warren::control {

class EngineMetrics;
class StoredEvents;
class TaskManager;
class TaskTokens;

struct EngineOptions {
    DataDir data;          // made and resolved (DataDir::prepare)
    StoreOpener openStore; // the engine's Store and, on a connection of its own, the EventWriter's
    std::string agentBinary; // empty: findAgentBinary beside this program
    std::vector<nlohmann::json> extraProfileLayers; // after the site's layer
};

// What a face adds before the first task runs.
struct FaceSetup {
    FaceHooks hooks;
    std::size_t maxConcurrent = 1;
    std::vector<ApprovalRule> approvalRules; // the tasks' (at least defaultApprovalRules())
    std::chrono::milliseconds idleSleep{0};  // RunnerEnvironment::idleSleep
    int warmSandboxes = 0;                   // RunnerEnvironment::warmSandboxes
};

class ControlEngine {
public:
    // face is called once the store, the writer and the tokens are open (a face reads its settings, or
    // listens for its cluster's agents, there); its error is open()'s. No task runs before it returns.
    static Result<std::unique_ptr<ControlEngine>> open(EngineOptions options,
                                                       const std::function<Result<FaceSetup>(ControlEngine&)>& face);
    ~ControlEngine(); // stops the runners (their tasks are recovered as interrupted next time), then the rest

    const DataDir& data() const { return m_data; }
    Store& store() { return *m_store; }
    StoredEvents& events() { return *m_events; }
    TaskTokens& tokens() { return *m_tokens; }
    QNetworkAccessManager& network() { return *m_network; }
    TaskManager& tasks() { return *m_tasks; }
    // What the engine counts (sandbox starts, events stored, model calls, database errors, ...); a face adds
    // its own (warrend: quota refusals, its accounts' database errors) and renders them (GET /metrics).
    EngineMetrics& metrics() { return *m_metrics; }
    // resources/approvals/default.json, which every task starts with.
    const std::vector<ApprovalRule>& defaultApprovalRules() const { return m_defaultRules; }

private:
    ControlEngine() = default;

    DataDir m_data;
    std::unique_ptr<EngineMetrics> m_metrics; // before everything that counts into it, gone after it
    std::unique_ptr<Store> m_store;
    std::unique_ptr<StoredEvents> m_events;
    std::unique_ptr<TaskTokens> m_tokens;
    std::unique_ptr<QNetworkAccessManager> m_network;
    std::vector<ApprovalRule> m_defaultRules;
    std::unique_ptr<TaskManager> m_tasks; // first to go
};

} // namespace warren::control
