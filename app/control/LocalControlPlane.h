#pragma once
// The control plane in this process: the engine (app/engine/ControlEngine) over warren.db in the data
// directory, with the user's keychain (or a 0600 file) for the keys and the settings' approval rules and
// tasks at a time. Opening it recovers tasks a dead process left running.

#include "app/control/ControlPlane.h"
#include "app/control/TaskWork.h"
#include "app/egress/EgressPolicy.h"
#include "app/proxy/ApprovalRules.h"
#include "app/tasks/DataDir.h"
#include "app/tasks/TaskMove.h"
#include "common/Result.h"

#include <functional>
#include <memory>
#include <optional>

class QNetworkAccessManager;

namespace warren::control {

class ControlEngine;
class ForkFiles;
struct ForkOrigin;
class EventWriter;
class RetentionSweep;
class SecretStore;
class Store;
class TaskManager;

struct LocalOptions {
    std::string dataDir;     // empty: DataDir::defaultRoot()
    std::string agentBinary; // empty: found next to this program (app/engine/AgentBinary.h)
    std::optional<std::size_t> maxConcurrent; // unset: the stored setting (Settings::maxConcurrent)
    // Warm containers per shape (Settings::warmContainers). Unset: the stored setting with takeUpQueued (the
    // window's plane), else none (one `warren run` starts one task).
    std::optional<int> warmContainers;
    std::vector<nlohmann::json> extraProfileLayers; // after WARREN_SANDBOX_PROFILE's (tests)
    bool useKeychain = true; // false: the 0600 file only (tests)
    // The window (long-lived): the tasks a process that quit left queued start here
    // (TaskManager::takeUpQueued), and finished tasks' files are removed after the retention period of the
    // settings (Settings::retentionDays) at open, hourly, and when the setting changes.
    bool takeUpQueued = false;
    // Tests: runs on the worker's thread before the disk work of each call that has some (a test holds it).
    std::function<void()> beforeDiskWork;
};

class LocalControlPlane : public ControlPlane {
    Q_OBJECT
public:
    static Result<std::unique_ptr<LocalControlPlane>> open(LocalOptions options);
    ~LocalControlPlane() override;

    // The faces' calls (ControlPlane): each runs its synchronous form below and answers from the event loop;
    // those with disk or process work (submitDemo, exportTask, taskChanges, previewRewind, rewind, fork) do
    // it off the faces' thread, one call at a time per task (TaskWork), and refuse resume and reply of a
    // task while a rewind, a preview of one or a fork of it is under way.
    void submit(const std::string& prompt, const std::string& workspace, const TaskSpec& spec,
                Done<TaskRecord> done) override;
    void submitDemo(TaskSpec spec, Done<TaskRecord> done) override;
    void resume(const std::string& taskId, const SandboxMove& move, Done<Ok> done) override;
    void reply(const std::string& taskId, const std::string& message, Done<Ok> done) override;
    void cancel(const std::string& taskId, Done<Ok> done) override;
    void pause(const std::string& taskId, Done<Ok> done) override;
    void answerApproval(const std::string& taskId, const std::string& callId, bool approved, const std::string& note,
                        bool always) override;
    void allowCommands(const std::string& taskId, const std::string& prefix, Done<Ok> done) override;
    void allowHostInWorkspace(const std::string& taskId, const std::string& callId, Done<Ok> done) override;
    void tasks(Done<std::vector<TaskRecord>> done) override;
    void task(const std::string& taskId, Done<std::optional<TaskRecord>> done) override;
    void events(const std::string& taskId, std::uint64_t afterSeq, Done<std::vector<nlohmann::json>> done) override;
    void eventsBefore(const std::string& taskId, std::uint64_t beforeSeq, std::size_t limit,
                      Done<std::vector<nlohmann::json>> done) override;
    void artifacts(const std::string& taskId, Done<std::vector<ArtifactRecord>> done) override;
    void exportTask(const std::string& taskId, const std::string& directory, Done<Ok> done) override;
    void storeKey(const std::string& keyName, const std::string& key, Done<Ok> done) override;
    void hostSecrets(Done<std::vector<wire::HostSecretEntry>> done) override;
    void setHostSecret(const wire::HostSecretEntry& binding, const std::string& value, Done<Ok> done) override;
    void deleteHostSecret(const std::string& name, Done<Ok> done) override;
    void hasKey(const std::string& keyName, Done<bool> done) override;
    void testModel(const std::string& provider, const std::string& model, const std::string& key, QObject* context,
                   std::function<void(Status)> done) override;
    void taskChanges(const std::string& taskId, std::optional<std::uint64_t> step, Done<TaskChanges> done) override;
    void previewRewind(const std::string& taskId, const RewindRequest& request, Done<RewindSummary> done) override;
    void rewind(const std::string& taskId, const RewindRequest& request, Done<RewindSummary> done) override;
    void fork(const std::string& taskId, const ForkRequest& request, Done<ForkSummary> done) override;
    Result<Settings> settings() override;
    Status saveSettings(const Settings& settings) override;
    std::string keyStorageWarning() override;
    std::vector<std::string> presetNames() override;
    Result<std::string> providerKeyName(const std::string& provider) override;
    std::string describe() override { return "local, " + m_data.root; }
    bool keepsSnapshots() override { return true; }
    bool runsTasksHere() override { return true; }

    // The same in this process, answered in the call: for this machine's own commands (the CLI's
    // `secrets`, `diff`, `rewind`) and tests. The same steps as the faces' forms, run in a row.
    Result<TaskRecord> submit(const std::string& prompt, const std::string& workspace, const TaskSpec& spec);
    Result<TaskRecord> submitDemo(TaskSpec spec);
    Status resume(const std::string& taskId, const SandboxMove& move);
    Status reply(const std::string& taskId, const std::string& message);
    Status cancel(const std::string& taskId);
    Status pause(const std::string& taskId);
    Status allowCommands(const std::string& taskId, const std::string& prefix);
    Status allowHostInWorkspace(const std::string& taskId, const std::string& callId);
    Result<std::vector<TaskRecord>> tasks();
    Result<std::optional<TaskRecord>> task(const std::string& taskId);
    Result<std::vector<nlohmann::json>> events(const std::string& taskId, std::uint64_t afterSeq = 0);
    Result<std::vector<nlohmann::json>> eventsBefore(const std::string& taskId, std::uint64_t beforeSeq,
                                                     std::size_t limit);
    Result<std::vector<ArtifactRecord>> artifacts(const std::string& taskId);
    Status exportTask(const std::string& taskId, const std::string& directory);
    Status storeKey(const std::string& keyName, const std::string& key);
    Result<std::vector<wire::HostSecretEntry>> hostSecrets();
    Status setHostSecret(const wire::HostSecretEntry& binding, const std::string& value);
    Status deleteHostSecret(const std::string& name);
    Result<bool> hasKey(const std::string& keyName);
    Result<TaskChanges> taskChanges(const std::string& taskId, std::optional<std::uint64_t> step);
    Result<RewindSummary> previewRewind(const std::string& taskId, const RewindRequest& request);
    Result<RewindSummary> rewind(const std::string& taskId, const RewindRequest& request);
    Result<ForkSummary> fork(const std::string& taskId, const ForkRequest& request);
    // `warren move TASK --to URL` (TaskMove.h): the task taken for its move, checked movable; once the server
    // has it, recordMoved says where it went (status moved, a line in its events) and forgets the move.
    Result<LeavingTask> leave(const std::string& taskId);
    Status recordMoved(const std::string& taskId, const std::string& to, const std::string& as);
    // `warren move TASK --remote URL --to local`: the server's task recorded here under its id, its history
    // read as the server's would be (TaskMove.h), a line saying where it came from; it waits for `warren
    // resume` (or `warren reply`, waiting).
    Result<TaskRecord> arrive(const ArrivingTask& arriving);

    const DataDir& dataDir() const { return m_data; }
    SecretStore& secrets(); // opened on first use
    std::vector<std::string> recovered() const { return m_recovered; } // interrupted on open
    std::vector<std::string> takenUp() const { return m_takenUp; }     // queued again on open

private:
    LocalControlPlane() = default;
    // The rules a task starts with: the default rules, then the user's always-allowed command prefixes.
    std::vector<ApprovalRule> approvalRules(const Settings& settings) const;
    // The hosts allowed for a workspace (Settings::allowedHosts) as rules: FaceHooks::workspaceHosts.
    Result<std::vector<HostRule>> workspaceHosts(const std::string& workspace);
    // The steps of the calls with disk or process work (TaskWork.h), for both forms.
    Prepare<TaskRecord> submitDemoSteps(TaskSpec spec);
    Prepare<Ok> exportSteps(const std::string& taskId, const std::string& directory);
    Prepare<TaskChanges> taskChangesSteps(const std::string& taskId, std::optional<std::uint64_t> step);
    Prepare<RewindSummary> rewindSteps(const std::string& taskId, const RewindRequest& request, bool act);
    Result<RewindSummary> recordRewind(const std::string& taskId, const RewindSummary& summary,
                                       const std::optional<nlohmann::json>& state);
    Prepare<ForkSummary> forkSteps(const std::string& taskId, const ForkRequest& request);
    Result<ForkSummary> recordFork(const ForkOrigin& origin, const std::string& id, const std::string& prompt,
                                   const TaskSpec& spec, std::vector<EventRow> past, ForkFiles& files);
    Status mayRun(const std::string& taskId) const;
    // The retention period applied (RetentionSweep.h): each due task's files removed on TaskWork, in its
    // turn.
    void sweepRetention();
    Prepare<Ok> retentionSteps(const std::string& taskId);

    DataDir m_data;
    std::unique_ptr<SecretStore> m_secrets;
    bool m_useKeychain = true;
    std::vector<std::string> m_recovered;
    std::vector<std::string> m_takenUp;
    std::vector<ApprovalRule> m_defaultRules; // the engine's, which the settings' allowed commands follow
    std::unique_ptr<ControlEngine> m_engine; // goes before the keys: its runners may ask for them until then
    // The engine's parts this plane uses.
    Store* m_store = nullptr;
    EventWriter* m_events = nullptr;
    QNetworkAccessManager* m_network = nullptr;
    TaskManager* m_manager = nullptr;
    std::unique_ptr<RetentionSweep> m_retention; // the window's only
    bool m_keepsWarm = false;                    // warm containers as the settings say (the window's plane)
    std::uint64_t m_retentionDays = 0;           // the settings', as the last sweep read them
    std::unique_ptr<TaskWork> m_work; // first to go: waits for the work under way, drops what it would apply
};

} // namespace warren::control
