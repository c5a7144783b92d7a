#pragma once
// The control plane of a warrend (DESIGN §9): every ControlPlane call is a request to the server's API
// (docs/SERVER.md), every task it watches an event stream that survives a failing network
// (RemoteEventStream), and the faces cannot tell it from the local one. What stays on this machine: the
// settings (the local warren.db), the API key (the keychain, as "remote"), and, for each task submitted
// from here, which local workspace it came from and what was uploaded (RemoteTaskHome), so its change can
// come home without overwriting what the user changed since (applyChanges).
//
// Every call answers through its continuation when the server has answered (app/control/Done.h); nothing
// waits, so a stream's events reach the faces as they come, between their calls, never inside one.

#include "app/control/ControlPlane.h"
#include "app/control/PlaneChooser.h"
#include "app/remote/RemoteClient.h"
#include "app/tasks/TaskMove.h"
#include "app/wire/TaskMoveOut.h"

#include <QObject>
#include <functional>
#include <map>
#include <memory>
#include <set>

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
    // refused key is an error saying which, before any window opens on it. done runs on this thread.
    static void open(RemoteOptions options, control::Done<std::unique_ptr<RemoteControlPlane>> done);
    ~RemoteControlPlane() override;

    void submit(const std::string& prompt, const std::string& workspace, const control::TaskSpec& spec,
                control::Done<control::TaskRecord> done) override;
    void submitDemo(control::TaskSpec spec, control::Done<control::TaskRecord> done) override;
    void resume(const std::string& taskId, const control::SandboxMove& move, control::Done<Ok> done) override;
    void reply(const std::string& taskId, const std::string& message, control::Done<Ok> done) override;
    void cancel(const std::string& taskId, control::Done<Ok> done) override;
    void pause(const std::string& taskId, control::Done<Ok> done) override;
    void answerApproval(const std::string& taskId, const std::string& callId, bool approved, const std::string& note,
                        bool always) override;
    void allowCommands(const std::string& taskId, const std::string& prefix, control::Done<Ok> done) override;
    void allowHostInWorkspace(const std::string& taskId, const std::string& callId, control::Done<Ok> done) override;
    void tasks(control::Done<std::vector<control::TaskRecord>> done) override;
    void task(const std::string& taskId, control::Done<std::optional<control::TaskRecord>> done) override;
    void events(const std::string& taskId, std::uint64_t afterSeq,
                control::Done<std::vector<nlohmann::json>> done) override;
    void eventsBefore(const std::string& taskId, std::uint64_t beforeSeq, std::size_t limit,
                      control::Done<std::vector<nlohmann::json>> done) override;
    void artifacts(const std::string& taskId, control::Done<std::vector<control::ArtifactRecord>> done) override;
    void exportTask(const std::string& taskId, const std::string& directory, control::Done<Ok> done) override;
    void storeKey(const std::string& keyName, const std::string& key, control::Done<Ok> done) override;
    void hostSecrets(control::Done<std::vector<wire::HostSecretEntry>> done) override;
    void setHostSecret(const wire::HostSecretEntry& binding, const std::string& value, control::Done<Ok> done) override;
    void deleteHostSecret(const std::string& name, control::Done<Ok> done) override;
    void hasKey(const std::string& keyName, control::Done<bool> done) override;
    void testModel(const std::string& provider, const std::string& model, const std::string& key, QObject* context,
                   std::function<void(Status)> done) override;
    void planChanges(const std::string& taskId, const std::string& workspace,
                     control::Done<control::ChangesPlan> done) override;
    void applyChanges(const std::string& taskId, const std::string& workspace,
                      control::Done<control::ChangesPlan> done) override;
    Result<control::Settings> settings() override;
    Status saveSettings(const control::Settings& settings) override;
    std::string keyStorageWarning() override { return {}; }
    std::vector<std::string> presetNames() override;
    Result<std::string> providerKeyName(const std::string& provider) override;
    std::string describe() override;
    bool changesComeHome() override { return true; }

    QString server() const; // the URL it answers at, as its requests name it
    // Uses key from now on (after keyRejected), and reopens the streams that stopped for the old one.
    void replaceKey(const std::string& key);
    // Follows taskId's events from afterSeq on (eventStored, approvalNeeded, taskFinished).
    void watch(const std::string& taskId, std::uint64_t afterSeq);
    // `warren move TASK --to URL`: a task of this machine's (LocalControlPlane::leave) goes on here. Its
    // workspace and its history (TaskMove.h) are uploaded, the move kept beside the task
    // (tasks/<id>/move.json in the same data directory), then the task created from them with one
    // Idempotency-Key: a move killed at any point and run again sends the same request and gets the same
    // task. Its home is kept as a submitted task's is, so `warren apply` brings its change back. done: the
    // task here.
    void moveIn(std::shared_ptr<const control::LeavingTask> leaving, control::Done<control::TaskRecord> done);
    // `warren move TASK --remote URL --to local`: the server marks its task moved home and answers with what
    // it was and its agent's checkpoint (POST /v1/tasks/{id}/move; asked again, the same). The task as the
    // faces see it: its local workspace and script, where its home is kept here.
    void moveOut(const std::string& taskId, control::Done<wire::MoveOutAnswer> done);

private:
    explicit RemoteControlPlane(std::unique_ptr<RemoteClient> client);
    QString taskPath(const std::string& taskId, const QString& rest = {}) const;
    // The seq of the task's latest event (0: none yet).
    void lastSeq(const std::string& taskId, control::Done<std::uint64_t> done);
    // Whether the task is no longer queued or running (gone counts as over), answered when the server
    // answers unless context is gone by then; an error counts as not over.
    void askIsOver(const std::string& taskId, QObject* context, std::function<void(bool over)> answer);
    void streamWorks(const std::string& taskId); // connectionRestored when it was the last one down
    void followQuestions(const std::string& taskId, const nlohmann::json& event);
    void askIfWaiting(const control::ApprovalRecord& approval); // approvalNeeded when the server says it waits
    void submitTo(const std::string& prompt, const std::string& workspace, const control::TaskSpec& spec,
                  const nlohmann::json& script, control::Done<control::TaskRecord> done);
    // done: the task, or why not and the HTTP status of the refusal (0: no answer).
    void createTask(const nlohmann::json& body, const QByteArray& idempotency, bool retry,
                    std::function<void(Result<control::TaskRecord>, int status)> done);
    void createMoved(std::shared_ptr<const control::LeavingTask> leaving, const control::MoveUnderWay& move,
                     control::Done<control::TaskRecord> done);
    // POSTs path (a task's resume or reply) and follows the task's events from before it on.
    void continueTask(const std::string& taskId, const QString& path, const nlohmann::json& body,
                      control::Done<Ok> done);
    void eventsAfter(const std::string& taskId, std::uint64_t afterSeq, std::vector<nlohmann::json> collected,
                     control::Done<std::vector<nlohmann::json>> done);
    void eventsEarlier(const std::string& taskId, std::uint64_t beforeSeq, std::size_t limit,
                       std::vector<nlohmann::json> collected, control::Done<std::vector<nlohmann::json>> done);
    static Status writeExport(const std::string& directory, const control::TaskRecord& record,
                              const std::vector<nlohmann::json>& events);
    // Fetches the artifacts from listed[next] on into directory/output, one after the other.
    void fetchArtifacts(const std::string& taskId, const std::string& directory,
                        std::vector<control::ArtifactRecord> listed, std::size_t next, control::Done<Ok> done);
    control::TaskRecord withLocalWorkspace(control::TaskRecord task) const;

    std::unique_ptr<RemoteClient> m_client;
    std::string m_dataDir;
    std::uint64_t m_maxUploadBytes = 0;
    std::unique_ptr<control::Store> m_settings;
    control::ServerAccount m_account; // as the server said when the plane opened
    std::map<std::string, RemoteEventStream*> m_streams;
    std::set<std::string> m_interrupted; // the tasks whose streams wait to reconnect
    std::map<std::string, std::map<std::string, control::ApprovalRecord>> m_openQuestions; // by task, call
    std::set<std::pair<std::string, std::string>> m_announced; // (task, call) told as approvalNeeded this run
    std::set<std::string> m_ended;       // the tasks whose streams the server ended (the run is over, or asleep)
};

} // namespace warren::remote
