#pragma once
// What a face of Warren (the CLI, the desktop window) needs from a control plane. LocalControlPlane runs
// everything in this process; RemoteControlPlane (app/remote) drives a warrend over its HTTP API and event
// streams. The faces never branch on which one they have: what differs (where the agent's changes land,
// how the connection is doing) is said through this interface.

#include "app/control/Done.h"
#include "app/control/Settings.h"
#include "app/store/StoreTypes.h"
#include "app/tasks/TaskSpec.h"
#include "app/wire/HostSecretBody.h"

#include <QObject>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

// How long Test connection waits for the other side's answer before it says so: the model's
// (ControlPlane::testModel) and a server's (PlaneChooser::test).
inline constexpr std::chrono::seconds kConnectionTestTimeout{10};

// A task's record as the faces show it and `warren export` writes it (task.json); spec is the stored
// TaskSpec (provider, presets, `demo`, ...), never a key.
nlohmann::json toJson(const TaskRecord& task);

// A remote task's change, brought home (ControlPlane::applyChanges).
struct FileConflict {
    std::string path;   // relative to the workspace
    std::string reason; // e.g. "changed here since the upload"
};
struct ChangesPlan {
    std::vector<std::string> applied; // applied, or to be applied
    std::vector<FileConflict> conflicts; // left as they are
};

// Review and rewind (app/snapshots): a task's workspace as recorded before each step.
struct ReviewedFile {
    std::string path;   // a file, or "dir/": an empty directory made or removed (git's diff shows none)
    std::string change; // "added", "deleted", "modified", "mode", "type"
    std::string diff;   // git's unified diff of the file
};
struct TaskChanges {
    std::string from, to; // "before step 1", "after step 4 (the end)"
    std::vector<ReviewedFile> files;
    std::vector<std::string> skipped; // not recorded, left alone: "node_modules/", "big.iso (large)"
};
// What a rewind cannot take back, said wherever one is offered.
inline constexpr const char* kRewindLimits =
    "A rewind puts back the files in the workspace. It cannot take back what commands did outside it: files "
    "elsewhere, network calls, databases, services started or stopped. What snapshots skip (ignored files, "
    "dependency and build directories, large files) is left as it is.";
// What a fork cannot keep apart, said where one is offered.
inline constexpr const char* kForkLimits =
    "The fork's workspace holds what the snapshots recorded: not .git, ignored files, dependency and build "
    "directories or large files. What the task's commands did outside its workspace (files elsewhere, network "
    "calls, databases) happened once and is shared: the fork may do it again.";
struct RewindRequest {
    // The workspace before step N ran; unset: undo the last rewind, which takes back what it did (its files,
    // its conversation or both) whatever files and conversation say.
    std::optional<std::uint64_t> toStep;
    std::vector<std::string> paths; // only these files or directories; empty: all
    bool files = true;
    bool conversation = false; // also the agent's checkpoint, so that resume continues from step N
};
struct RewindSummary {
    std::string target;             // "before step 3"
    bool files = false;             // whether the files are rewound (lines then lists what changes)
    std::vector<std::string> lines; // what changes in the workspace, one per path ("restore  src/a.c")
    std::string conversation;       // what happens to the conversation; empty when it is not rewound
    bool changesNothing() const { return lines.empty() && conversation.empty(); }
};

// A fork: a new task that continues from before step fromStep of another, in a workspace of its own that
// holds what the snapshot before that step recorded; the original task and its workspace are not touched.
struct ForkRequest {
    std::uint64_t fromStep = 0;
    std::string workspace; // an empty or absent directory; empty: DATA/tasks/NEW/workspace
};
struct ForkSummary {
    TaskRecord task;                  // the new task, paused: resume runs it
    std::string from;                 // "before step 3"
    std::size_t files = 0;            // files written into its workspace
    std::string conversation;         // where its agent continues from
    std::vector<std::string> skipped; // what snapshots do not record, absent from the fork: "node_modules/"
};

class ControlPlane : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // The calls that may wait (on a server, on the disk) answer through done (app/control/Done.h): later,
    // never inside the call, on the plane's thread. A face is never blocked or re-entered by one.
    virtual void submit(const std::string& prompt, const std::string& workspace, const TaskSpec& spec,
                        Done<TaskRecord> done) = 0;
    // The built-in scripted demo (resources/demo) on a fresh copy of its workspace, marked as the demo;
    // spec gives the rest (approvals, presets).
    virtual void submitDemo(TaskSpec spec, Done<TaskRecord> done) = 0;
    virtual void resume(const std::string& taskId, const SandboxMove& move, Done<Ok> done) = 0; // move: {} to stay
    // Continues a task whose run ended (finished, waiting for the reply, failed, cancelled, paused,
    // interrupted) with the user's message, in the same workspace, from its agent's checkpoint; refused while
    // it runs or is queued, and for a task whose agent left no checkpoint (app/tasks/TaskReply.h).
    virtual void reply(const std::string& taskId, const std::string& message, Done<Ok> done) = 0;
    virtual void cancel(const std::string& taskId, Done<Ok> done) = 0;
    virtual void pause(const std::string& taskId, Done<Ok> done) = 0;
    // callId: approvalNeeded's ApprovalRecord::callId, or the tool call's id (approval_requested's data.id).
    // An answer that cannot be delivered is said through connectionProblem.
    virtual void answerApproval(const std::string& taskId, const std::string& callId, bool approved,
                                const std::string& note, bool always) = 0;
    // "Always allow commands like this": prefix (commandPrefix) is saved in the settings for every later
    // task and allowed from now on in this one, after the rules that deny or ask.
    virtual void allowCommands(const std::string& taskId, const std::string& prefix, Done<Ok> done) = 0;
    // "Always for this workspace", to a network question (callId, an isNetworkQuestionId): its host is saved in
    // the settings for the task's workspace (a later `--network ask` task there reaches it without asking) and
    // the question is approved for the rest of this task.
    virtual void allowHostInWorkspace(const std::string& taskId, const std::string& callId, Done<Ok> done) = 0;

    virtual void tasks(Done<std::vector<TaskRecord>> done) = 0;
    virtual void task(const std::string& taskId, Done<std::optional<TaskRecord>> done) = 0;
    // Every event of the task after afterSeq, oldest first.
    virtual void events(const std::string& taskId, std::uint64_t afterSeq, Done<std::vector<nlohmann::json>> done) = 0;
    // The latest `limit` events of a task with seq < beforeSeq (0: up to the last), oldest first; the
    // window opens a task at its end and pages earlier events in as the user scrolls up.
    virtual void eventsBefore(const std::string& taskId, std::uint64_t beforeSeq, std::size_t limit,
                              Done<std::vector<nlohmann::json>> done) = 0;
    virtual void artifacts(const std::string& taskId, Done<std::vector<ArtifactRecord>> done) = 0;
    // Copies the task's record, its events (events.jsonl) and its /output files into directory.
    virtual void exportTask(const std::string& taskId, const std::string& directory, Done<Ok> done) = 0;

    // The provider's API key, kept in the keychain (or the 0600 file) under keyName; never readable back
    // through this interface.
    virtual void storeKey(const std::string& keyName, const std::string& key, Done<Ok> done) = 0;
    // Secrets bound to hosts (DESIGN §12): listed by name without their values (the desktop keeps each
    // binding in its settings beside the keychain's value; warrend answers GET /v1/me/secrets), stored (the
    // value with its binding, checked by makeHostSecret) and deleted. updatedAt is the plane's to fill.
    virtual void hostSecrets(Done<std::vector<wire::HostSecretEntry>> done) = 0;
    virtual void setHostSecret(const wire::HostSecretEntry& binding, const std::string& value, Done<Ok> done) = 0;
    virtual void deleteHostSecret(const std::string& name, Done<Ok> done) = 0;
    virtual void hasKey(const std::string& keyName, Done<bool> done) = 0;
    // One tiny model call with this provider and model, and key (empty: the stored one), so Settings can
    // say whether it works before anything runs; it gives up after kConnectionTestTimeout. done runs once, in
    // context's thread, unless context dies: deleting context abandons the test at once (Cancel).
    virtual void testModel(const std::string& provider, const std::string& model, const std::string& key,
                           QObject* context, std::function<void(Status)> done) = 0;

    // What applying the task's change to its local workspace would do, or does: files applied, and files
    // left alone because they changed here since the upload (nothing of those is overwritten).
    virtual void planChanges(const std::string& taskId, const std::string& workspace, Done<ChangesPlan> done);
    virtual void applyChanges(const std::string& taskId, const std::string& workspace, Done<ChangesPlan> done);

    // What the task changed (step: only that step), per file.
    virtual void taskChanges(const std::string& taskId, std::optional<std::uint64_t> step, Done<TaskChanges> done);
    // What rewind would change now; nothing is touched.
    virtual void previewRewind(const std::string& taskId, const RewindRequest& request, Done<RewindSummary> done);
    // Records the workspace as it is (so the rewind can be undone), then puts it back; a running task is
    // refused.
    virtual void rewind(const std::string& taskId, const RewindRequest& request, Done<RewindSummary> done);
    // Keeps both: a new task from before a step of this one (ForkRequest); a running task is refused.
    virtual void fork(const std::string& taskId, const ForkRequest& request, Done<ForkSummary> done);

    // What this machine knows at once (the local settings database, this build), answered in the call.
    virtual Result<Settings> settings() = 0;
    virtual Status saveSettings(const Settings& settings) = 0; // applies at once (e.g. tasks at a time)
    // Empty when keys are in the keychain; otherwise what the user should know (keys in a 0600 file).
    virtual std::string keyStorageWarning() = 0;
    // The agent's presets a task may name, for the faces' choices.
    virtual std::vector<std::string> presetNames() = 0;
    // The name a provider's key is kept under (storeKey's keyName), or why the provider is not one.
    virtual Result<std::string> providerKeyName(const std::string& provider) = 0;
    // Which control plane this is, for the window's title and status bar: "local" with the data directory,
    // or the server and the user it acts as.
    virtual std::string describe() = 0;
    // Whether a task's changes land in the user's workspace only when asked (a server works on an uploaded
    // copy: applyChanges brings them home). Locally the agent works in the workspace itself.
    virtual bool changesComeHome() { return false; }
    // Whether this plane keeps snapshots of its tasks' workspaces (this computer's does; a server's tasks
    // have none here): review and rewind are offered only then.
    virtual bool keepsSnapshots() { return false; }
    // Whether this plane's tasks run in this process, so that closing it stops them (this computer's: its
    // running tasks are interrupted, and resumable from their last checkpoint; a server's go on there).
    virtual bool runsTasksHere() { return false; }

protected:
    // Hands a result to done from the event loop, after the call that produced it has returned.
    template <typename T> void answer(Done<T> done, Result<T> result) {
        QMetaObject::invokeMethod(
            this, [done = std::move(done), result = std::move(result)]() mutable { done(std::move(result)); },
            Qt::QueuedConnection);
    }

signals:
    void eventStored(const std::string& taskId, const nlohmann::json& event);
    void approvalNeeded(const warren::control::ApprovalRecord& approval);
    void taskFinished(const std::string& taskId);
    // A task's record changed with no event to say it: its retention period removed its files.
    void taskChanged(const std::string& taskId);
    // Events could not be stored (a full disk, a failing drive): what failed and what to do.
    void storeProblem(const QString& message);
    // The connection to a server failed (message: why, and when the next try is) or works again.
    void connectionProblem(const QString& message);
    void connectionRestored();
    // The server refused the API key (revoked, expired, mistyped): only a new key helps.
    void keyRejected(const QString& message);
};

} // namespace warren::control
