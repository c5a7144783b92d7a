#pragma once
// The control plane in this process: the store (warren.db in the data directory), the event writer, the
// task manager, the tool proxy's tokens, the secrets. Opening it recovers tasks a dead process left
// running.

#include "app/control/ControlPlane.h"
#include "app/proxy/ApprovalRules.h"
#include "app/tasks/DataDir.h"
#include "common/Result.h"

#include <memory>
#include <optional>

class QNetworkAccessManager;

namespace warren::control {

class EventWriter;
class SecretStore;
class Store;
class TaskManager;
class TaskTokens;

struct LocalOptions {
    std::string dataDir;     // empty: DataDir::defaultRoot()
    std::string agentBinary; // empty: found next to this program (see findAgentBinary)
    std::optional<std::size_t> maxConcurrent; // unset: the stored setting (Settings::maxConcurrent)
    std::vector<nlohmann::json> extraProfileLayers; // WARREN_SANDBOX_PROFILE
    bool useKeychain = true; // false: the 0600 file only (tests)
};

class LocalControlPlane : public ControlPlane {
    Q_OBJECT
public:
    static Result<std::unique_ptr<LocalControlPlane>> open(LocalOptions options);
    ~LocalControlPlane() override;

    Result<TaskRecord> submit(const std::string& prompt, const std::string& workspace, const TaskSpec& spec) override;
    Status resume(const std::string& taskId, const SandboxMove& move) override;
    Status reply(const std::string& taskId, const std::string& message) override;
    Status cancel(const std::string& taskId) override;
    Status pause(const std::string& taskId) override;
    void answerApproval(const std::string& taskId, const std::string& callId, bool approved, const std::string& note,
                        bool always) override;
    Status allowCommands(const std::string& taskId, const std::string& prefix) override;
    Result<std::vector<TaskRecord>> tasks() override;
    Result<std::optional<TaskRecord>> task(const std::string& taskId) override;
    Result<std::vector<nlohmann::json>> events(const std::string& taskId, std::uint64_t afterSeq = 0) override;
    Result<std::vector<nlohmann::json>> eventsBefore(const std::string& taskId, std::uint64_t beforeSeq,
                                                     std::size_t limit) override;
    Result<std::vector<ArtifactRecord>> artifacts(const std::string& taskId) override;
    Status exportTask(const std::string& taskId, const std::string& directory) override;
    Result<TaskRecord> submitDemo(TaskSpec spec) override;
    Result<Settings> settings() override;
    Status saveSettings(const Settings& settings) override;
    Status storeKey(const std::string& keyName, const std::string& key) override;
    Result<bool> hasKey(const std::string& keyName) override;
    std::string keyStorageWarning() override;
    std::vector<std::string> presetNames() override;
    Result<std::string> providerKeyName(const std::string& provider) override;
    std::string describe() override { return "local, " + m_data.root; }
    void testModel(const std::string& provider, const std::string& model, const std::string& key, QObject* context,
                   std::function<void(Status)> done) override;

    const DataDir& dataDir() const { return m_data; }
    bool keepsSnapshots() override { return true; }
    Result<TaskChanges> taskChanges(const std::string& taskId, std::optional<std::uint64_t> step) override;
    Result<RewindSummary> previewRewind(const std::string& taskId, const RewindRequest& request) override;
    Result<RewindSummary> rewind(const std::string& taskId, const RewindRequest& request) override;
    Result<ForkSummary> fork(const std::string& taskId, const ForkRequest& request) override;
    SecretStore& secrets(); // opened on first use
    std::vector<std::string> recovered() const { return m_recovered; } // interrupted on open

private:
    LocalControlPlane() = default;
    // The rules a task starts with: the default rules, then the user's always-allowed command prefixes.
    std::vector<ApprovalRule> approvalRules(const Settings& settings) const;
    Result<RewindSummary> rewindTask(const std::string& taskId, const RewindRequest& request, bool act);

    DataDir m_data;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<EventWriter> m_events;
    std::unique_ptr<TaskTokens> m_tokens;
    std::unique_ptr<SecretStore> m_secrets;
    bool m_useKeychain = true;
    QNetworkAccessManager* m_network = nullptr;
    TaskManager* m_manager = nullptr;
    std::vector<std::string> m_recovered;
    std::vector<ApprovalRule> m_defaultRules;
};

// The warren-agent binary: $WARREN_AGENT, else beside this program, else the build tree's
// agent_core/tool/warren-agent (seen from warren/ or server/warrend/), else <prefix>/lib/warren/warren-agent.
// An error says where it looked.
Result<std::string> findAgentBinary(const std::string& programDir);

} // namespace warren::control
