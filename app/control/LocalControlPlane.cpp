#include "app/control/LocalControlPlane.h"

#include "agent_core/config/AgentConfig.h"
#include "agent_core/protocol/Timestamp.h"
#include "app/control/Demo.h"
#include "app/control/ForkFiles.h"
#include "app/control/HostSecretIndex.h"
#include "app/control/ModelTest.h"
#include "app/control/TaskFork.h"
#include "app/control/TaskWork.h"
#include "app/egress/EgressPolicy.h"
#include "app/egress/NetworkQuestion.h"
#include "app/engine/ControlEngine.h"
#include "app/providers/Provider.h"
#include "app/providers/ProviderChoice.h"
#include "app/proxy/ApprovalRules.h"
#include "app/secretproxy/HostSecret.h"
#include "app/secrets/SecretStore.h"
#include "app/snapshots/ConversationUndo.h"
#include "app/snapshots/TaskReview.h"
#include "app/store/EventWriter.h"
#include "app/store/sqlite/SqliteStore.h"
#include "app/tasks/ProviderKey.h"
#include "app/tasks/RetentionSweep.h"
#include "app/tasks/StoredEvents.h"
#include "app/tasks/TaskLock.h"
#include "app/tasks/TaskManager.h"
#include "app/tasks/TaskRetention.h"
#include "app/tasks/TaskSecrets.h"
#include "common/FileText.h"
#include "common/UniqueFd.h"
#include "sandbox/container/WarmPool.h"

#include <QDir>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QTimer>
#include <algorithm>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/file.h>
#include <unistd.h>

namespace warren::control {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The stored events as the faces take them.
Result<std::vector<json>> eventBodies(Result<std::vector<EventRow>> rows) {
    if (!rows)
        return rows.error();
    std::vector<json> events;
    events.reserve(rows->size());
    for (const auto& row : *rows)
        events.push_back(json::parse(row.body, nullptr, false));
    return events;
}

} // namespace

Result<std::unique_ptr<LocalControlPlane>> LocalControlPlane::open(LocalOptions options) {
    std::unique_ptr<LocalControlPlane> plane(new LocalControlPlane());
    auto data = DataDir::prepare(options.dataDir.empty() ? DataDir::defaultRoot() : options.dataDir);
    if (!data)
        return data.error();
    plane->m_data = *data;
    plane->m_useKeychain = options.useKeychain;
    plane->m_work = std::make_unique<TaskWork>();
    plane->m_work->setBeforeWork(std::move(options.beforeDiskWork));
    EngineOptions engineOptions{*data, [path = data->database()] { return openSqliteStore(path); },
                                options.agentBinary, std::move(options.extraProfileLayers)};
    // The keys are the user's keychain's; tasks at a time and the always-allowed commands, the settings'.
    const auto face = [&](ControlEngine& engine) -> Result<FaceSetup> {
        FaceSetup setup;
        // The SecretStore is opened on first use: probing a keychain costs a D-Bus round trip.
        setup.hooks.providerKey = [plane = plane.get()](const TaskRecord&, const ProviderConfig& provider) {
            return lookUpKey(provider, &plane->secrets());
        };
        setup.hooks.hostSecret = [plane = plane.get()](const TaskRecord&, const std::string& name) {
            return lookUpHostSecret(name, plane->secrets());
        };
        setup.hooks.workspaceHosts = [plane = plane.get()](const TaskRecord& task) {
            return plane->workspaceHosts(task.workspace);
        };
        // The skills the user keeps for Claude Code and Codex serve Warren's agent too (read-only).
        for (const char* folder : {"/.claude/skills", "/.agents/skills"})
            if (const QString path = QDir::homePath() + folder; QFileInfo(path).isDir())
                setup.hooks.userSkills.push_back(QFileInfo(path).canonicalFilePath().toStdString());
        auto stored = loadSettings(engine.store());
        setup.maxConcurrent = options.maxConcurrent.value_or(stored ? stored->maxConcurrent : Settings{}.maxConcurrent);
        setup.idleSleep = std::chrono::seconds(stored ? stored->idleSleepSec : Settings{}.idleSleepSec);
        // Warm containers serve the next tasks of one process: the window's, not one `warren run`.
        plane->m_keepsWarm = options.takeUpQueued && !options.warmContainers;
        setup.warmSandboxes = options.warmContainers.value_or(
            plane->m_keepsWarm ? static_cast<int>(stored ? stored->warmContainers : Settings{}.warmContainers)
                               : 0);
        plane->m_defaultRules = engine.defaultApprovalRules(); // saveSettings adds the settings' to them
        setup.approvalRules = plane->approvalRules(stored ? *stored : Settings{});
        return setup;
    };
    auto engine = ControlEngine::open(std::move(engineOptions), face);
    if (!engine)
        return engine.error();
    plane->m_engine = std::move(*engine);
    plane->m_store = &plane->m_engine->store();
    plane->m_events = &plane->m_engine->events().writer();
    plane->m_network = &plane->m_engine->network();
    plane->m_manager = &plane->m_engine->tasks();
    LocalControlPlane* self = plane.get();
    connect(&self->m_engine->events(), &StoredEvents::eventStored, self, &ControlPlane::eventStored);
    connect(&self->m_engine->events(), &StoredEvents::problem, self, [self](const QString& message) {
        emit self->storeProblem(message + QString::fromStdString("; free some space in " + self->m_data.root +
                                                                 " or pass another --data-dir"));
    });
    connect(self->m_manager, &TaskManager::approvalNeeded, self, &ControlPlane::approvalNeeded);
    connect(self->m_manager, &TaskManager::taskFinished, self, &ControlPlane::taskFinished);
    plane->m_recovered = plane->m_manager->recoverInterrupted();
    if (options.takeUpQueued) {
        plane->m_takenUp = plane->m_manager->takeUpQueued();
        plane->m_retention = std::make_unique<RetentionSweep>(
            *plane->m_store, plane->m_data, [self](const TaskRecord&) { return self->m_retentionDays; });
        auto* hourly = new QTimer(self);
        connect(hourly, &QTimer::timeout, self, [self] { self->sweepRetention(); });
        hourly->start(std::chrono::hours(1));
        self->sweepRetention();
    }
    return plane;
}

void LocalControlPlane::sweepRetention() {
    auto stored = settings();
    if (!m_retention || !stored)
        return;
    m_retentionDays = stored->retentionDays;
    if (m_retentionDays == 0) // kept for ever: nothing to look at
        return;
    auto due = m_retention->due();
    if (!due)
        return emit storeProblem(QString::fromStdString(
            "finished tasks' files were not looked at for removal: " + due.error().message));
    for (const auto& id : *due)
        m_work->run<Ok>(
            id, retentionSteps(id),
            [this, id](Result<Ok> removed) {
                if (!removed)
                    emit storeProblem(QString::fromStdString(
                        "the files of task " + id + " were kept past its retention period: " +
                        removed.error().message + "; they are tried again within the hour"));
            },
            "the removal of its files after its retention period");
}

// Under the task's lock from the claim until the record says its files are gone.
Prepare<Ok> LocalControlPlane::retentionSteps(const std::string& taskId) {
    return [this, taskId]() -> Result<Work<Ok>> {
        auto claim = m_retention->claim(taskId);
        if (!claim)
            return claim.error();
        if (!*claim) // it runs, or was replied to, since: not now
            return Work<Ok>([]() -> Result<Apply<Ok>> { return Apply<Ok>([] { return Result<Ok>(Ok{}); }); });
        return Work<Ok>([this, taskId, claim = std::move(**claim)]() -> Result<Apply<Ok>> {
            if (auto removed = removeParts(claim.paths); !removed)
                return removed.error();
            return Apply<Ok>([this, taskId, lock = claim.lock]() -> Result<Ok> {
                if (auto recorded = m_retention->recordRemoved(taskId); !recorded)
                    return recorded.error();
                emit taskChanged(taskId);
                return Ok{};
            });
        });
    };
}

SecretStore& LocalControlPlane::secrets() {
    if (!m_secrets)
        m_secrets = m_useKeychain ? SecretStore::open(m_data.root) : SecretStore::openFile(m_data.root);
    return *m_secrets;
}

LocalControlPlane::~LocalControlPlane() = default;

// The demo's files are written off the faces' thread, then its task is submitted.
Prepare<TaskRecord> LocalControlPlane::submitDemoSteps(TaskSpec spec) {
    return [this, spec = std::move(spec)]() -> Result<Work<TaskRecord>> {
        const std::string directory = m_data.root + "/demo/" + newTaskId();
        return Work<TaskRecord>([this, spec, directory]() -> Result<Apply<TaskRecord>> {
            if (auto written = writeDemo(directory); !written)
                return written.error();
            return Apply<TaskRecord>([this, spec, directory]() mutable {
                spec.provider = ProviderChoice::scripted(directory + "/script.json").toString();
                spec.demo = true;
                return submit(kDemoPrompt, directory + "/workspace", spec);
            });
        });
    };
}

Result<TaskRecord> LocalControlPlane::submitDemo(TaskSpec spec) { return runHere(submitDemoSteps(std::move(spec))); }

Result<TaskRecord> LocalControlPlane::submit(const std::string& prompt, const std::string& workspace,
                                             const TaskSpec& spec) {
    return m_manager->submit(prompt, workspace, spec);
}

// A task that a rewind (or its preview) or a fork is working on does not run meanwhile: the rewind holds the
// task's lock, which its runner would fail to take saying less; the fork reads snapshots a run would add to.
Status LocalControlPlane::mayRun(const std::string& taskId) const {
    if (const std::string held = m_work->holding(taskId); !held.empty())
        return makeError(ErrorCode::InvalidArgument, "task " + taskId + " cannot run while " + held +
                                                         " of it is under way; try again once it is done");
    return Ok{};
}

Status LocalControlPlane::resume(const std::string& taskId, const SandboxMove& move) {
    if (auto free = mayRun(taskId); !free)
        return free;
    return m_manager->resume(taskId, move);
}

Status LocalControlPlane::reply(const std::string& taskId, const std::string& message) {
    if (auto free = mayRun(taskId); !free)
        return free;
    return m_manager->reply(taskId, message);
}

Status LocalControlPlane::cancel(const std::string& taskId) {
    return m_manager->cancel(taskId, "cancelled by the user");
}

Status LocalControlPlane::pause(const std::string& taskId) { return m_manager->pause(taskId); }

namespace {

// A task's record, when it has snapshots; else why not. Its shadow repository is opened by the work.
Result<TaskRecord> taskWithSnapshots(Store& store, const DataDir& data, const std::string& taskId) {
    auto record = store.task(taskId);
    if (!record)
        return record.error();
    if (!*record)
        return makeError(ErrorCode::NotFound, "no task " + taskId + "; `warren tasks` lists them");
    if (auto kept = checkPartsKept(**record, "show or rewind its steps"); !kept)
        return kept.error();
    if (!snapshots::ShadowRepo::exists(data.snapshotsDir(taskId)))
        return makeError(ErrorCode::NotFound, "task " + taskId + " has no snapshots (it never reached its first "
                                                                  "step, or ran before Warren kept them)");
    return std::move(**record);
}

// What the task changed, from its shadow repository at dir: up to now when `now`, else up to its latest
// snapshot (it runs: the workspace is the agent's step's, half-done).
Result<TaskChanges> reviewChanges(const std::string& dir, const std::string& workspace,
                                  std::optional<std::uint64_t> step, bool now) {
    auto repo = snapshots::ShadowRepo::open(dir, workspace);
    if (!repo)
        return repo.error();
    std::optional<snapshots::Snapshot> present;
    if (now) {
        auto taken = repo->present();
        if (!taken)
            return taken.error();
        present = std::move(*taken);
    }
    auto range = snapshots::reviewRange(*repo, step, present ? &*present : nullptr);
    if (!range)
        return range.error();
    auto files = snapshots::reviewFiles(*repo, *range);
    if (!files)
        return files.error();
    TaskChanges changes{snapshots::describeSnapshot(range->from.meta), snapshots::describeSnapshot(range->to.meta),
                        {}, {}};
    for (auto& file : *files)
        changes.files.push_back({std::move(file.path), std::move(file.change), std::move(file.diff)});
    for (const auto& skippedDir : range->to.meta.skippedDirs)
        changes.skipped.push_back(skippedDir + "/");
    for (const auto& file : range->to.meta.skippedLarge)
        changes.skipped.push_back(file + " (large)");
    return changes;
}

} // namespace

Prepare<TaskChanges> LocalControlPlane::taskChangesSteps(const std::string& taskId, std::optional<std::uint64_t> step) {
    return [this, taskId, step]() -> Result<Work<TaskChanges>> {
        auto task = taskWithSnapshots(*m_store, m_data, taskId);
        if (!task)
            return task.error();
        // Up to now, unless the task runs: then up to the snapshot before its current step.
        const bool now = !step && task->status != TaskStatus::Running && task->status != TaskStatus::Queued &&
                         !m_manager->isActive(taskId);
        return Work<TaskChanges>(
            [dir = m_data.snapshotsDir(taskId), workspace = task->workspace, step, now]() -> Result<Apply<TaskChanges>> {
                auto changes = reviewChanges(dir, workspace, step, now);
                if (!changes)
                    return changes.error();
                return Apply<TaskChanges>([changes = std::move(*changes)] { return changes; });
            });
    };
}

Result<TaskChanges> LocalControlPlane::taskChanges(const std::string& taskId, std::optional<std::uint64_t> step) {
    return runHere(taskChangesSteps(taskId, step));
}

Result<RewindSummary> LocalControlPlane::previewRewind(const std::string& taskId, const RewindRequest& request) {
    return runHere(rewindSteps(taskId, request, false));
}

Result<RewindSummary> LocalControlPlane::rewind(const std::string& taskId, const RewindRequest& request) {
    return runHere(rewindSteps(taskId, request, true));
}

namespace {

// The status columns a rewind of the conversation changes, kept so that its undo restores them.
json taskState(const TaskRecord& task) {
    return {{"status", taskStatusName(task.status)},
            {"finished_at", task.finishedAt},
            {"finish_reason", task.finishReason},
            {"error", task.error}};
}

void restoreTaskState(TaskRecord& task, const json& state) {
    task.status = taskStatusFromName(state.value("status", "")).value_or(TaskStatus::Paused);
    task.finishedAt = state.value("finished_at", "");
    task.finishReason = state.value("finish_reason", "");
    task.error = state.value("error", "");
}

struct Rewound {
    RewindSummary summary;
    std::optional<json> state; // the task's status columns after a rewind of its conversation
};

// One path for the preview and the rewind, so that what is listed is what is done. An undo takes back what
// the last rewind did: its files, its conversation, or both (what it kept for that, snapshots/ConversationUndo).
// The disk and git work of it, on the task's shadow repository at dir; the store is not touched.
Result<Rewound> rewindInRepository(const TaskRecord& task, const std::string& dir, const std::string& checkpoint,
                                   const RewindRequest& request, bool act) {
    auto opened = snapshots::ShadowRepo::open(dir, task.workspace);
    if (!opened)
        return opened.error();
    snapshots::ShadowRepo* repo = &*opened;
    auto target = snapshots::rewindTarget(*repo, request.toStep);
    if (!target)
        return target.error();
    bool files = request.files, conversation = request.conversation && request.toStep;
    std::optional<snapshots::KeptConversation> undoing;
    if (!request.toStep) {
        auto kept = snapshots::keptForUndo(dir, target->ref);
        if (!kept)
            return kept.error();
        if (*kept) {
            undoing = std::move(**kept);
            files = undoing->files;
            conversation = undoing->conversation;
        }
    }
    if (act && conversation && (task.status == TaskStatus::Queued || task.status == TaskStatus::Running))
        return makeError(ErrorCode::InvalidArgument, "task " + task.id + " is " + taskStatusName(task.status));
    Rewound rewound;
    RewindSummary& summary = rewound.summary;
    summary.target = snapshots::describeSnapshot(target->meta);
    summary.files = files;
    std::string undoRef; // the undo snapshot this rewind records
    if (files) {
        auto plan = [&]() -> Result<snapshots::RewindPlan> {
            if (!act)
                return repo->previewRewind(*target, request.paths);
            auto done = repo->rewind(*target, request.paths);
            if (!done)
                return done.error();
            undoRef = done->undo.ref;
            return std::move(done->plan);
        }();
        if (!plan)
            return makeError(plan.error().code, plan.error().message + (act ? "\nRewind again to finish it, or undo it." : ""));
        summary.lines = snapshots::describePlan(*plan);
    }
    if (!conversation)
        return rewound;
    if (undoing)
        summary.conversation = "the conversation goes back to where it was before that rewind";
    else
        summary.conversation = snapshots::conversationKept(dir, *request.toStep)
                                   ? "the agent continues from before step " + std::to_string(*request.toStep)
                                   : "the agent starts again from the prompt";
    if (!act)
        return rewound;
    if (undoRef.empty()) { // the conversation alone: an undo snapshot all the same, so this can be undone
        auto undo = repo->snapshot(snapshots::SnapshotMeta::Kind::Undo, 0);
        if (!undo)
            return undo.error();
        undoRef = undo->ref;
    }
    if (auto kept = snapshots::keepForUndo(dir, undoRef, {files, true, false, taskState(task)}, checkpoint); !kept)
        return kept.error();
    TaskRecord after = task;
    if (undoing) {
        if (auto put = snapshots::restoreKeptCheckpoint(dir, target->ref, *undoing, checkpoint); !put)
            return put.error();
        restoreTaskState(after, undoing->taskState);
    } else {
        auto put = snapshots::putConversationBack(dir, *request.toStep, checkpoint);
        if (!put)
            return put.error();
        // Paused: `resume` continues it from the checkpoint put back.
        after.status = TaskStatus::Paused;
        after.finishedAt.clear();
        after.finishReason.clear();
        after.error.clear();
    }
    rewound.state = taskState(after);
    return rewound;
}

} // namespace

Prepare<RewindSummary> LocalControlPlane::rewindSteps(const std::string& taskId, const RewindRequest& request,
                                                      bool act) {
    return [this, taskId, request, act]() -> Result<Work<RewindSummary>> {
        auto task = taskWithSnapshots(*m_store, m_data, taskId);
        if (!task)
            return task.error();
        // The task's own lock, held until the rewind is recorded: it cannot run while its workspace is put
        // back, nor start meanwhile, here or in another warren process.
        auto lock = std::make_shared<UniqueFd>(
            ::open((m_data.taskDir(taskId) + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
        if (m_manager->isActive(taskId) || !lock->valid() || ::flock(lock->get(), LOCK_EX | LOCK_NB) != 0)
            return makeError(ErrorCode::InvalidArgument,
                             "task " + taskId + " is running; stop it first (warren cancel " + taskId + ")");
        return Work<RewindSummary>([this, task = std::move(*task), dir = m_data.snapshotsDir(taskId),
                                    checkpoint = m_data.stateDir(taskId) + "/checkpoint.json", request, act,
                                    lock = std::move(lock)]() mutable -> Result<Apply<RewindSummary>> {
            auto held = std::move(lock); // let go with this step when it fails, else with the next
            auto rewound = rewindInRepository(task, dir, checkpoint, request, act);
            if (!rewound)
                return rewound.error();
            return Apply<RewindSummary>([this, id = task.id, rewound = std::move(*rewound), held = std::move(held)] {
                return recordRewind(id, rewound.summary, rewound.state);
            });
        });
    };
}

// The task's status columns as the rewind of its conversation left them, on the record as it is now.
Result<RewindSummary> LocalControlPlane::recordRewind(const std::string& taskId, const RewindSummary& summary,
                                                      const std::optional<json>& state) {
    if (!state)
        return summary;
    auto record = m_store->task(taskId);
    if (!record)
        return record.error();
    if (!*record)
        return makeError(ErrorCode::NotFound, "task " + taskId + " is gone; its workspace was rewound all the same");
    TaskRecord task = std::move(**record);
    restoreTaskState(task, *state);
    if (auto updated = m_store->updateTask(task); !updated)
        return updated.error();
    return summary;
}

// A new task from before a step of another: the snapshot's files in a workspace of its own, the checkpoint
// kept before that step, the events that led there. Nothing of the original changes: its workspace is not
// read (the snapshot is), its events are copied, its snapshots only read. Here what the store says of the
// original; ForkFiles makes the files off the faces' thread; recordFork records the new task.
Prepare<ForkSummary> LocalControlPlane::forkSteps(const std::string& taskId, const ForkRequest& request) {
    return [this, taskId, request]() -> Result<Work<ForkSummary>> {
        auto original = taskWithSnapshots(*m_store, m_data, taskId);
        if (!original)
            return original.error();
        if (m_manager->isActive(taskId) || original->status == TaskStatus::Running ||
            original->status == TaskStatus::Queued)
            return makeError(ErrorCode::InvalidArgument,
                             "task " + taskId + " is running; stop it first (warren cancel " + taskId + ")");
        auto spec = TaskSpec::fromText(original->spec);
        if (!spec)
            return spec.error();
        m_events->flush();
        auto events = m_store->events(taskId);
        if (!events)
            return events.error();
        const std::string id = newTaskId();
        const fs::path workspace = request.workspace.empty() ? fs::path(m_data.taskDir(id)) / "workspace"
                                                             : fs::absolute(request.workspace);
        ForkOrigin origin{taskId, original->workspace, m_data.snapshotsDir(taskId), request.fromStep};
        return Work<ForkSummary>([this, origin, data = m_data, id, workspace, prompt = original->prompt,
                                  spec = std::move(*spec),
                                  past = eventsBeforeStep(*events, request.fromStep, id)]() -> Result<Apply<ForkSummary>> {
            auto files = ForkFiles::make(origin, data, id, workspace);
            if (!files)
                return files.error();
            return Apply<ForkSummary>([this, origin, id, prompt, spec, past, files = std::move(*files)] {
                return recordFork(origin, id, prompt, spec, past, *files);
            });
        });
    };
}

Result<ForkSummary> LocalControlPlane::recordFork(const ForkOrigin& origin, const std::string& id,
                                                  const std::string& prompt, const TaskSpec& spec,
                                                  std::vector<EventRow> past, ForkFiles& files) {
    auto submitted = m_manager->submit(prompt, files.workspace().string(), spec, id, TaskManager::Start::Paused);
    if (!submitted)
        return submitted.error(); // the files go with ForkFiles
    files.keep();
    TaskRecord task = *submitted; // paused: `resume` runs it from its checkpoint
    task.steps = origin.fromStep - 1;
    if (auto updated = m_store->updateTask(task); !updated)
        return updated.error();
    past.push_back(forkedNote(past, origin.taskId, origin.fromStep, id,
                              protocol::toUnixMillis(std::chrono::system_clock::now())));
    if (auto appended = m_store->appendEvents(past); !appended)
        return appended.error();
    ForkSummary summary;
    summary.task = task;
    summary.from = files.from;
    summary.files = files.files;
    summary.conversation = files.conversation
                               ? "its agent continues from before step " + std::to_string(origin.fromStep)
                               : "its agent starts from the prompt";
    summary.skipped = files.skipped;
    return summary;
}

Result<ForkSummary> LocalControlPlane::fork(const std::string& taskId, const ForkRequest& request) {
    return runHere(forkSteps(taskId, request));
}

Result<LeavingTask> LocalControlPlane::leave(const std::string& taskId) {
    auto found = m_store->task(taskId);
    if (!found)
        return found.error();
    if (!*found)
        return makeError(ErrorCode::NotFound, "no task " + taskId + " here; `warren tasks` lists them");
    LeavingTask leaving;
    leaving.task = std::move(**found);
    if (auto here = checkNotMoved(leaving.task, "move"); !here)
        return here.error();
    leaving.lock = takeTaskLock(m_data, taskId);
    if (m_manager->isActive(taskId) || !leaving.lock.valid())
        return makeError(ErrorCode::InvalidArgument, "task " + taskId +
                                                         " runs in a warren process (the window, "
                                                         "or a warren run); pause it there, then move it");
    auto spec = TaskSpec::fromText(leaving.task.spec);
    if (!spec)
        return spec.error();
    auto checkpoint = readFileText(m_data.stateDir(taskId) + "/checkpoint.json");
    if (!checkpoint && checkpoint.error().code != ErrorCode::NotFound)
        return checkpoint.error();
    if (auto movable = checkMovable(leaving.task, *spec, static_cast<bool>(checkpoint)); !movable)
        return movable.error();
    leaving.checkpoint = std::move(*checkpoint);
    auto events = m_store->events(taskId);
    if (!events)
        return events.error();
    leaving.events = movedEventsText(*events);
    auto underWay = keptMove(m_data, taskId);
    if (!underWay)
        return underWay.error();
    leaving.underWay = std::move(*underWay);
    return leaving;
}

Status LocalControlPlane::recordMoved(const std::string& taskId, const std::string& to,
                                      const std::string& as) {
    auto found = m_store->task(taskId);
    if (!found)
        return found.error();
    if (!*found)
        return makeError(ErrorCode::NotFound, "no task " + taskId + " here");
    TaskRecord task = std::move(**found);
    task.status = TaskStatus::Moved;
    task.movedTo = to;
    task.movedAs = as;
    task.finishReason = "moved";
    task.finishedAt = protocol::formatTimestamp(std::chrono::system_clock::now());
    if (auto updated = m_store->updateTask(task); !updated)
        return updated;
    auto last = m_store->eventsBefore(taskId, 0, 1); // the note goes after it
    if (!last)
        return last.error();
    const std::uint64_t step = last->empty() ? 0 : last->back().step;
    const EventRow note =
        historyNote(*last, taskId, step, "moved to " + to + " as " + as + "; it goes on there",
                    protocol::toUnixMillis(std::chrono::system_clock::now()));
    if (auto appended = m_store->appendEvents({note}); !appended)
        return appended;
    forgetMove(m_data, taskId);
    return Ok{};
}

Result<TaskRecord> LocalControlPlane::arrive(const ArrivingTask& arriving) {
    const std::string& id = arriving.task.id;
    auto there = TaskSpec::fromText(arriving.task.spec);
    if (!there)
        return there.error();
    auto history = readMovedHistory(arriving.events, arriving.checkpoint, id);
    if (!history)
        return makeError(ErrorCode::InvalidArgument,
                         "the server's history of task " + id + " does not read: " + history.error().message);
    auto task = m_manager->submit(arriving.task.prompt, arriving.workspace, specHere(*there), id,
                                  TaskManager::Start::Paused);
    if (!task)
        return task.error();
    std::error_code error;
    fs::create_directories(m_data.stateDir(id), error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + m_data.stateDir(id) + ": " + error.message());
    if (auto written = writeFileText(m_data.stateDir(id) + "/checkpoint.json", history->checkpoint, 0600);
        !written)
        return written.error();
    const std::uint64_t step = history->events.empty() ? 0 : history->events.back().step;
    history->events.push_back(
        historyNote(history->events, id, step,
                    "moved here from " + arriving.from + "; `warren resume " + id + "` continues it",
                    protocol::toUnixMillis(std::chrono::system_clock::now())));
    if (auto appended = m_store->appendEvents(history->events); !appended)
        return appended.error();
    task->status = statusHere(arriving.was);
    task->steps = arriving.task.steps;
    if (auto updated = m_store->updateTask(*task); !updated)
        return updated.error();
    return task;
}

void LocalControlPlane::answerApproval(const std::string& taskId, const std::string& callId, bool approved,
                                       const std::string& note, bool always) {
    m_manager->answerApproval(taskId, callId, approved, note, always);
}

Result<std::vector<TaskRecord>> LocalControlPlane::tasks() { return m_store->tasks(); }

Result<std::optional<TaskRecord>> LocalControlPlane::task(const std::string& taskId) { return m_store->task(taskId); }

Result<std::vector<json>> LocalControlPlane::events(const std::string& taskId, std::uint64_t afterSeq) {
    m_events->flush();
    return eventBodies(m_store->events(taskId, afterSeq));
}

Result<std::vector<json>> LocalControlPlane::eventsBefore(const std::string& taskId, std::uint64_t beforeSeq,
                                                          std::size_t limit) {
    // No flush, unlike events(): whatever the writer has not committed yet reaches the window later as
    // eventStored, past this page's end, and a page must not wait for a flooding task's writer.
    return eventBodies(m_store->eventsBefore(taskId, beforeSeq, limit));
}

Result<std::vector<ArtifactRecord>> LocalControlPlane::artifacts(const std::string& taskId) {
    return m_store->artifacts(taskId);
}

namespace {

// `warren export`'s files: the record (task.json), its events (events.jsonl), its /output files.
Status writeExport(const json& task, const std::vector<json>& events, const std::string& outputDir,
                   const std::string& directory) {
    std::error_code error;
    fs::create_directories(fs::path(directory) / "output", error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + directory + ": " + error.message());
    std::ofstream summary(fs::path(directory) / "task.json");
    summary << task.dump(2) << "\n";
    summary.close();
    std::ofstream lines(fs::path(directory) / "events.jsonl");
    for (const auto& event : events)
        lines << event.dump() << "\n";
    lines.close();
    fs::copy(outputDir, fs::path(directory) / "output",
             fs::copy_options::recursive | fs::copy_options::overwrite_existing, error);
    if (error && error != std::errc::no_such_file_or_directory)
        return makeError(ErrorCode::System, "cannot copy the task's output: " + error.message());
    if (!summary || !lines)
        return makeError(ErrorCode::System, "cannot write the export in " + directory + "; is the disk full?");
    return Ok{};
}

} // namespace

Prepare<Ok> LocalControlPlane::exportSteps(const std::string& taskId, const std::string& directory) {
    return [this, taskId, directory]() -> Result<Work<Ok>> {
        auto record = task(taskId);
        if (!record)
            return record.error();
        if (!*record)
            return makeError(ErrorCode::NotFound, "no task " + taskId + "; `warren tasks` lists them");
        m_events->flush();
        auto rows = m_store->events(taskId);
        if (!rows)
            return rows.error();
        // Read here; taken apart and written out there (a long task's events are most of the work).
        return Work<Ok>([task = toJson(**record), rows = std::move(*rows), outputDir = m_data.outputDir(taskId),
                         directory]() mutable -> Result<Apply<Ok>> {
            auto events = eventBodies(std::move(rows));
            if (!events)
                return events.error();
            if (auto written = writeExport(task, *events, outputDir, directory); !written)
                return written.error();
            return Apply<Ok>([] { return Result<Ok>(Ok{}); });
        });
    };
}

Status LocalControlPlane::exportTask(const std::string& taskId, const std::string& directory) {
    return runHere(exportSteps(taskId, directory));
}

} // namespace warren::control

namespace warren::control {

Result<Settings> LocalControlPlane::settings() { return loadSettings(*m_store); }

Status LocalControlPlane::saveSettings(const Settings& settings) {
    if (auto saved = control::saveSettings(*m_store, settings); !saved)
        return saved;
    m_manager->setMaxConcurrent(settings.maxConcurrent);
    m_manager->setIdleSleep(std::chrono::seconds(settings.idleSleepSec));
    if (m_keepsWarm) {
        m_manager->setWarmSandboxes(static_cast<int>(settings.warmContainers));
        if (settings.warmContainers == 0)
            sandbox::WarmPool::instance().clear();
    }
    m_manager->setApprovalRules(approvalRules(settings));
    if (m_retention && settings.retentionDays != m_retentionDays)
        sweepRetention();
    return Ok{};
}

std::vector<ApprovalRule> LocalControlPlane::approvalRules(const Settings& settings) const {
    std::vector<ApprovalRule> rules = m_defaultRules;
    for (const auto& prefix : settings.allowedCommands)
        rules.push_back(commandPrefixRule(prefix));
    return rules;
}

Status LocalControlPlane::allowCommands(const std::string& taskId, const std::string& prefix) {
    auto stored = settings();
    if (!stored)
        return stored.error();
    if (std::find(stored->allowedCommands.begin(), stored->allowedCommands.end(), prefix) ==
        stored->allowedCommands.end()) {
        stored->allowedCommands.push_back(prefix);
        if (auto saved = saveSettings(*stored); !saved) // validates the prefix
            return saved;
    }
    m_manager->addApprovalRule(taskId, commandPrefixRule(prefix));
    return Ok{};
}

Status LocalControlPlane::allowHostInWorkspace(const std::string& taskId, const std::string& callId) {
    auto approvals = m_store->approvals(taskId);
    if (!approvals)
        return approvals.error();
    const auto record = std::find_if(approvals->begin(), approvals->end(),
                                     [&](const ApprovalRecord& approval) { return approval.callId == callId; });
    const auto question = record == approvals->end() || !isNetworkQuestionId(callId)
                              ? std::nullopt
                              : NetworkQuestion::fromApproval(record->tool, json::parse(record->arguments, nullptr, false));
    if (!question)
        return makeError(ErrorCode::NotFound, "task " + taskId + " asked no network question " + callId);
    auto task = m_store->task(taskId);
    if (!task)
        return task.error();
    if (!*task)
        return makeError(ErrorCode::NotFound, "no task " + taskId);
    auto stored = settings();
    if (!stored)
        return stored.error();
    auto& hosts = stored->allowedHosts[(*task)->workspace];
    if (std::find(hosts.begin(), hosts.end(), question->target()) == hosts.end()) {
        hosts.push_back(question->target());
        if (auto saved = saveSettings(*stored); !saved)
            return saved;
    }
    if (!m_manager->answerApproval(taskId, callId, true, "", true))
        return makeError(ErrorCode::InvalidArgument, "the question " + callId + " no longer waits (answered, or the "
                                                     "task ended); " + question->target() +
                                                     " is allowed for the workspace's next tasks");
    return Ok{};
}

Result<std::vector<HostRule>> LocalControlPlane::workspaceHosts(const std::string& workspace) {
    auto stored = settings();
    if (!stored)
        return stored.error();
    std::vector<HostRule> rules;
    const auto hosts = stored->allowedHosts.find(workspace);
    for (const std::string& host : hosts == stored->allowedHosts.end() ? std::vector<std::string>{} : hosts->second) {
        auto rule = parseNamedHostPort(host); // validated when saved and loaded
        if (!rule)
            return rule.error();
        rules.push_back(std::move(*rule));
    }
    return rules;
}

Status LocalControlPlane::storeKey(const std::string& keyName, const std::string& key) {
    if (keyName.empty())
        return makeError(ErrorCode::InvalidArgument, "this provider takes no API key");
    return secrets().write(keyName, key);
}

Result<std::vector<wire::HostSecretEntry>> LocalControlPlane::hostSecrets() { return loadHostSecretIndex(*m_store); }

Status LocalControlPlane::setHostSecret(const wire::HostSecretEntry& binding, const std::string& value) {
    auto secret = makeHostSecret(binding.name, binding.hosts, binding.header, value);
    if (!secret)
        return secret.error();
    secret->inBody = binding.inBody;
    if (auto written = secrets().write(hostSecretEntry(binding.name), storedHostSecret(*secret)); !written)
        return written;
    return putHostSecretEntry(*m_store, {binding.name, binding.hosts, binding.header,
                                         protocol::formatTimestamp(std::chrono::system_clock::now()), binding.inBody});
}

Status LocalControlPlane::deleteHostSecret(const std::string& name) {
    if (auto removed = secrets().remove(hostSecretEntry(name)); !removed)
        return removed;
    return removeHostSecretEntry(*m_store, name);
}

Result<bool> LocalControlPlane::hasKey(const std::string& keyName) {
    auto stored = secrets().read(keyName);
    if (!stored)
        return stored.error();
    return stored->has_value() && !(*stored)->empty();
}

std::string LocalControlPlane::keyStorageWarning() { return secrets().warning(); }

std::vector<std::string> LocalControlPlane::presetNames() { return agent::presetNames(); }

Result<std::string> LocalControlPlane::providerKeyName(const std::string& provider) {
    // The entry's, whatever the URL or model: a form still being filled in has its key name already.
    if (const KnownProvider* known = findProvider(provider))
        return std::string(known->keyName);
    auto config = parseProviderSpec(provider, "any");
    if (!config)
        return config.error();
    return config->keyName;
}

void LocalControlPlane::testModel(const std::string& provider, const std::string& model, const std::string& key,
                                  QObject* context, std::function<void(Status)> done) {
    auto config = parseProviderSpec(provider, model);
    if (!config)
        return done(config.error());
    if (config->kind == ProviderConfig::Kind::Scripted)
        return done(makeError(ErrorCode::InvalidArgument, "a scripted provider has no connection to test"));
    if (key.empty()) {
        auto stored = lookUpKey(*config, &secrets());
        if (!stored)
            return done(stored.error());
        config->apiKey = *stored;
    } else {
        config->apiKey = key;
    }
    runModelTest(*config, m_network, context, std::move(done));
}

// The faces' calls: the synchronous forms above, answered from the event loop; those with disk or process
// work queued on their task (TaskWork), which does that work off the faces' thread.

void LocalControlPlane::submit(const std::string& prompt, const std::string& workspace, const TaskSpec& spec,
                               Done<TaskRecord> done) {
    answer(std::move(done), submit(prompt, workspace, spec));
}
void LocalControlPlane::submitDemo(TaskSpec spec, Done<TaskRecord> done) {
    const std::string key = "demo"; // one demo written at a time
    m_work->run(key, submitDemoSteps(std::move(spec)), std::move(done));
}
void LocalControlPlane::resume(const std::string& taskId, const SandboxMove& move, Done<Ok> done) {
    answer(std::move(done), resume(taskId, move));
}
void LocalControlPlane::reply(const std::string& taskId, const std::string& message, Done<Ok> done) {
    answer(std::move(done), reply(taskId, message));
}
void LocalControlPlane::cancel(const std::string& taskId, Done<Ok> done) { answer(std::move(done), cancel(taskId)); }
void LocalControlPlane::pause(const std::string& taskId, Done<Ok> done) { answer(std::move(done), pause(taskId)); }
void LocalControlPlane::allowCommands(const std::string& taskId, const std::string& prefix, Done<Ok> done) {
    answer(std::move(done), allowCommands(taskId, prefix));
}

void LocalControlPlane::allowHostInWorkspace(const std::string& taskId, const std::string& callId, Done<Ok> done) {
    answer(std::move(done), allowHostInWorkspace(taskId, callId));
}
void LocalControlPlane::tasks(Done<std::vector<TaskRecord>> done) { answer(std::move(done), tasks()); }
void LocalControlPlane::task(const std::string& taskId, Done<std::optional<TaskRecord>> done) {
    answer(std::move(done), task(taskId));
}
void LocalControlPlane::events(const std::string& taskId, std::uint64_t afterSeq, Done<std::vector<json>> done) {
    answer(std::move(done), events(taskId, afterSeq));
}
void LocalControlPlane::eventsBefore(const std::string& taskId, std::uint64_t beforeSeq, std::size_t limit,
                                     Done<std::vector<json>> done) {
    answer(std::move(done), eventsBefore(taskId, beforeSeq, limit));
}
void LocalControlPlane::artifacts(const std::string& taskId, Done<std::vector<ArtifactRecord>> done) {
    answer(std::move(done), artifacts(taskId));
}
void LocalControlPlane::exportTask(const std::string& taskId, const std::string& directory, Done<Ok> done) {
    m_work->run(taskId, exportSteps(taskId, directory), std::move(done));
}
void LocalControlPlane::storeKey(const std::string& keyName, const std::string& key, Done<Ok> done) {
    answer(std::move(done), storeKey(keyName, key));
}
void LocalControlPlane::hostSecrets(Done<std::vector<wire::HostSecretEntry>> done) {
    answer(std::move(done), hostSecrets());
}
void LocalControlPlane::setHostSecret(const wire::HostSecretEntry& binding, const std::string& value, Done<Ok> done) {
    answer(std::move(done), setHostSecret(binding, value));
}
void LocalControlPlane::deleteHostSecret(const std::string& name, Done<Ok> done) {
    answer(std::move(done), deleteHostSecret(name));
}
void LocalControlPlane::hasKey(const std::string& keyName, Done<bool> done) {
    answer(std::move(done), hasKey(keyName));
}
void LocalControlPlane::taskChanges(const std::string& taskId, std::optional<std::uint64_t> step,
                                    Done<TaskChanges> done) {
    m_work->run(taskId, taskChangesSteps(taskId, step), std::move(done));
}
void LocalControlPlane::previewRewind(const std::string& taskId, const RewindRequest& request,
                                      Done<RewindSummary> done) {
    m_work->run(taskId, rewindSteps(taskId, request, false), std::move(done), "a preview of a rewind");
}
void LocalControlPlane::rewind(const std::string& taskId, const RewindRequest& request, Done<RewindSummary> done) {
    m_work->run(taskId, rewindSteps(taskId, request, true), std::move(done), "a rewind");
}
void LocalControlPlane::fork(const std::string& taskId, const ForkRequest& request, Done<ForkSummary> done) {
    m_work->run(taskId, forkSteps(taskId, request), std::move(done), "a fork");
}

} // namespace warren::control
