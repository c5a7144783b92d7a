#pragma once
// The control plane of a warrend (DESIGN §9): every ControlPlane call is a request to the server's API
// (docs/SERVER.md), every task it watches an event stream that survives a failing network
// (RemoteEventStream), and the faces cannot tell it from the local one. What stays on this machine: the
// settings (the local warren.db), the API key (the keychain, as "remote"), and, for each task submitted
// from here, which local workspace it came from and what was uploaded (RemoteTaskHome), so its change can
// come home without overwriting what the user changed since (applyChanges).
//
// Events a stream delivers while a call of the faces waits for its reply are held back and delivered, in
// order, once that call has returned, so a face never sees an event in the middle of its own call.

#include "app/control/ControlPlane.h"
#include "app/control/PlaneChooser.h"
#include "app/remote/RemoteClient.h"

#include <QObject>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <memory>

namespace warren::control {
class Store;
class SecretStore;
} // namespace warren::control

namespace warren::remote {

class RemoteEventStream;

struct RemoteOptions {
    QString url;         // http(s)://HOST:PORT of the warrend
    std::string key;     // empty: WARREN_REMOTE_KEY, else the key stored as "remote"
    std::string dataDir; // the local data directory (settings, the tasks' homes); empty: the default
    bool useKeychain = true;
    std::uint64_t maxUploadBytes = 512ull << 20; // the server's default --max-upload-mb
};

class RemoteControlPlane : public control::ControlPlane {
    Q_OBJECT
public:
    // Reaches the server (GET /v1/server, GET /v1/me): a wrong URL, a server that does not answer or a
    // refused key is an error saying which, before any window opens on it.
    static Result<std::unique_ptr<RemoteControlPlane>> open(RemoteOptions options);
    ~RemoteControlPlane() override;

    Result<control::TaskRecord> submit(const std::string& prompt, const std::string& workspace,
                                       const control::TaskSpec& spec) override;
    Result<control::TaskRecord> submitDemo(control::TaskSpec spec) override;
    Status resume(const std::string& taskId, const control::SandboxMove& move) override;
    Status reply(const std::string& taskId, const std::string& message) override;
    Status cancel(const std::string& taskId) override;
    Status pause(const std::string& taskId) override;
    void answerApproval(const std::string& taskId, const std::string& callId, bool approved, const std::string& note,
                        bool always) override;
    Status allowCommands(const std::string& taskId, const std::string& prefix) override;
    Result<std::vector<control::TaskRecord>> tasks() override;
    Result<std::optional<control::TaskRecord>> task(const std::string& taskId) override;
    Result<std::vector<nlohmann::json>> events(const std::string& taskId, std::uint64_t afterSeq = 0) override;
    Result<std::vector<nlohmann::json>> eventsBefore(const std::string& taskId, std::uint64_t beforeSeq,
                                                     std::size_t limit) override;
    Result<std::vector<control::ArtifactRecord>> artifacts(const std::string& taskId) override;
    Status exportTask(const std::string& taskId, const std::string& directory) override;
    Result<control::Settings> settings() override;
    Status saveSettings(const control::Settings& settings) override;
    Status storeKey(const std::string& keyName, const std::string& key) override;
    Result<bool> hasKey(const std::string& keyName) override;
    std::string keyStorageWarning() override { return {}; }
    void testModel(const std::string& provider, const std::string& model, const std::string& key, QObject* context,
                   std::function<void(Status)> done) override;
    std::vector<std::string> presetNames() override;
    Result<std::string> providerKeyName(const std::string& provider) override;
    std::string describe() override;
    bool changesComeHome() override { return true; }
    Result<control::ChangesPlan> planChanges(const std::string& taskId, const std::string& workspace) override;
    Result<control::ChangesPlan> applyChanges(const std::string& taskId, const std::string& workspace) override;

    // Uses key from now on (after keyRejected), and reopens the streams that stopped for the old one.
    void replaceKey(const std::string& key);
    // Follows taskId's events from afterSeq on (eventStored, approvalNeeded, taskFinished).
    void watch(const std::string& taskId, std::uint64_t afterSeq);

private:
    explicit RemoteControlPlane(std::unique_ptr<RemoteClient> client);
    QString taskPath(const std::string& taskId, const QString& rest = {}) const;
    Result<std::uint64_t> lastSeq(const std::string& taskId);
    // Whether the task is no longer queued or running (gone counts as over), answered when the server
    // answers unless context is gone by then; an error counts as not over.
    void askIsOver(const std::string& taskId, QObject* context, std::function<void(bool over)> answer);
    void streamWorks(const std::string& taskId); // connectionRestored when it was the last one down
    void askIfWaiting(const control::ApprovalRecord& approval); // approvalNeeded when the server says it waits
    // Runs now, or after the faces' waiting call returned, always in the order given.
    void deliver(std::function<void()> signal);
    void deliverHeld();
    Result<control::TaskRecord> submitTo(const std::string& prompt, const std::string& workspace,
                                         const control::TaskSpec& spec, const nlohmann::json& script);
    control::TaskRecord withLocalWorkspace(control::TaskRecord task) const;

    std::unique_ptr<RemoteClient> m_client;
    std::string m_dataDir;
    std::uint64_t m_maxUploadBytes = 0;
    std::unique_ptr<control::Store> m_settings;
    control::ServerAccount m_account; // as the server said when the plane opened
    std::map<std::string, RemoteEventStream*> m_streams;
    std::deque<std::function<void()>> m_held;
    bool m_delivering = false;
    std::set<std::string> m_interrupted; // the tasks whose streams wait to reconnect
};

} // namespace warren::remote
