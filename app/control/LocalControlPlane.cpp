#include "app/control/LocalControlPlane.h"

#include "agent_core/config/AgentConfig.h"
#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/Timestamp.h"
#include "app/control/Demo.h"
#include "app/control/TaskFork.h"
#include "app/engine/ControlEngine.h"
#include "app/providers/Provider.h"
#include "app/providers/ProviderChoice.h"
#include "app/proxy/ApprovalRules.h"
#include "app/secrets/SecretStore.h"
#include "app/snapshots/ConversationUndo.h"
#include "app/snapshots/TaskReview.h"
#include "app/store/EventWriter.h"
#include "app/store/sqlite/SqliteStore.h"
#include "app/tasks/ProviderKey.h"
#include "app/tasks/StoredEvents.h"
#include "app/tasks/TaskManager.h"
#include "common/UniqueFd.h"

#include <QNetworkAccessManager>
#include <algorithm>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
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
    EngineOptions engineOptions{*data, [path = data->database()] { return openSqliteStore(path); },
                                options.agentBinary, std::move(options.extraProfileLayers)};
    // The keys are the user's keychain's; tasks at a time and the always-allowed commands, the settings'.
    const auto face = [&](ControlEngine& engine) -> Result<FaceSetup> {
        FaceSetup setup;
        // The SecretStore is opened on first use: probing a keychain costs a D-Bus round trip.
        setup.hooks.providerKey = [plane = plane.get()](const TaskRecord&, const ProviderConfig& provider) {
            return lookUpKey(provider, &plane->secrets());
        };
        auto stored = loadSettings(engine.store());
        setup.maxConcurrent = options.maxConcurrent.value_or(stored ? stored->maxConcurrent : Settings{}.maxConcurrent);
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
    return plane;
}

SecretStore& LocalControlPlane::secrets() {
    if (!m_secrets)
        m_secrets = m_useKeychain ? SecretStore::open(m_data.root) : SecretStore::openFile(m_data.root);
    return *m_secrets;
}

LocalControlPlane::~LocalControlPlane() = default;

Result<TaskRecord> LocalControlPlane::submitDemo(TaskSpec spec) {
    const std::string directory = m_data.root + "/demo/" + newTaskId();
    if (auto written = writeDemo(directory); !written)
        return written.error();
    spec.provider = ProviderChoice::scripted(directory + "/script.json").toString();
    spec.demo = true;
    return submit(kDemoPrompt, directory + "/workspace", spec);
}

Result<TaskRecord> LocalControlPlane::submit(const std::string& prompt, const std::string& workspace,
                                             const TaskSpec& spec) {
    return m_manager->submit(prompt, workspace, spec);
}

Status LocalControlPlane::resume(const std::string& taskId, const SandboxMove& move) {
    return m_manager->resume(taskId, move);
}

Status LocalControlPlane::reply(const std::string& taskId, const std::string& message) {
    return m_manager->reply(taskId, message);
}

Status LocalControlPlane::cancel(const std::string& taskId) {
    return m_manager->cancel(taskId, "cancelled by the user");
}

Status LocalControlPlane::pause(const std::string& taskId) { return m_manager->pause(taskId); }

namespace {

// A task's record and its shadow repository of snapshots, or why there is none.
struct TaskWithSnapshots {
    TaskRecord task;
    std::string dir; // the shadow repository's
    snapshots::ShadowRepo repo;
};

Result<TaskWithSnapshots> taskWithSnapshots(Store& store, const DataDir& data, const std::string& taskId) {
    auto record = store.task(taskId);
    if (!record)
        return record.error();
    if (!*record)
        return makeError(ErrorCode::NotFound, "no task " + taskId + "; `warren tasks` lists them");
    const std::string dir = data.snapshotsDir(taskId);
    if (!snapshots::ShadowRepo::exists(dir))
        return makeError(ErrorCode::NotFound, "task " + taskId + " has no snapshots (it never reached its first "
                                                                  "step, or ran before Warren kept them)");
    auto repo = snapshots::ShadowRepo::open(dir, (*record)->workspace);
    if (!repo)
        return repo.error();
    return TaskWithSnapshots{std::move(**record), dir, std::move(*repo)};
}

} // namespace

Result<TaskChanges> LocalControlPlane::taskChanges(const std::string& taskId, std::optional<std::uint64_t> step) {
    auto found = taskWithSnapshots(*m_store, m_data, taskId);
    if (!found)
        return found.error();
    snapshots::ShadowRepo* repo = &found->repo;
    // Up to now, unless the task runs: then up to the snapshot before its current step.
    std::optional<snapshots::Snapshot> now;
    const TaskStatus status = found->task.status;
    if (!step && status != TaskStatus::Running && status != TaskStatus::Queued && !m_manager->isActive(taskId)) {
        auto present = repo->present();
        if (!present)
            return present.error();
        now = std::move(*present);
    }
    auto range = snapshots::reviewRange(*repo, step, now ? &*now : nullptr);
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

Result<RewindSummary> LocalControlPlane::previewRewind(const std::string& taskId, const RewindRequest& request) {
    return rewindTask(taskId, request, false);
}

Result<RewindSummary> LocalControlPlane::rewind(const std::string& taskId, const RewindRequest& request) {
    return rewindTask(taskId, request, true);
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

// The agent's checkpoint at from, made task taskId's, at to.
Status copyCheckpoint(const fs::path& from, const fs::path& to, const std::string& taskId) {
    std::ifstream in(from, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto forked = checkpointForTask(text.str(), taskId);
    if (!forked)
        return forked.error();
    std::error_code error;
    fs::create_directories(to.parent_path(), error);
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    out << *forked;
    if (error || !out.flush())
        return makeError(ErrorCode::System, "cannot write the fork's checkpoint " + to.string());
    return Ok{};
}

} // namespace

// One path for the preview and the rewind, so that what is listed is what is done. An undo takes back what
// the last rewind did: its files, its conversation, or both (what it kept for that, snapshots/ConversationUndo).
Result<RewindSummary> LocalControlPlane::rewindTask(const std::string& taskId, const RewindRequest& request, bool act) {
    auto found = taskWithSnapshots(*m_store, m_data, taskId);
    if (!found)
        return found.error();
    TaskRecord task = found->task;
    snapshots::ShadowRepo* repo = &found->repo;
    const std::string& dir = found->dir;
    // The task's own lock: it cannot run while its workspace is put back, nor start meanwhile.
    UniqueFd lock(::open((m_data.taskDir(taskId) + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (m_manager->isActive(taskId) || !lock.valid() || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
        return makeError(ErrorCode::InvalidArgument,
                         "task " + taskId + " is running; stop it first (warren cancel " + taskId + ")");
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
        return makeError(ErrorCode::InvalidArgument, "task " + taskId + " is " + taskStatusName(task.status));
    RewindSummary summary;
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
        return summary;
    if (undoing)
        summary.conversation = "the conversation goes back to where it was before that rewind";
    else
        summary.conversation = snapshots::conversationKept(dir, *request.toStep)
                                   ? "the agent continues from before step " + std::to_string(*request.toStep)
                                   : "the agent starts again from the prompt";
    if (!act)
        return summary;
    if (undoRef.empty()) { // the conversation alone: an undo snapshot all the same, so this can be undone
        auto undo = repo->snapshot(snapshots::SnapshotMeta::Kind::Undo, 0);
        if (!undo)
            return undo.error();
        undoRef = undo->ref;
    }
    const std::string checkpoint = m_data.stateDir(taskId) + "/checkpoint.json";
    if (auto kept = snapshots::keepForUndo(dir, undoRef, {files, true, false, taskState(task)}, checkpoint); !kept)
        return kept.error();
    if (undoing) {
        if (auto put = snapshots::restoreKeptCheckpoint(dir, target->ref, *undoing, checkpoint); !put)
            return put.error();
        restoreTaskState(task, undoing->taskState);
    } else {
        auto put = snapshots::putConversationBack(dir, *request.toStep, checkpoint);
        if (!put)
            return put.error();
        // Paused: `resume` continues it from the checkpoint put back.
        task.status = TaskStatus::Paused;
        task.finishedAt.clear();
        task.finishReason.clear();
        task.error.clear();
    }
    if (auto updated = m_store->updateTask(task); !updated)
        return updated.error();
    return summary;
}

// A new task from before a step of another: the snapshot's files in a workspace of its own, the checkpoint
// kept before that step, the events that led there. Nothing of the original changes: its workspace is not
// read (the snapshot is), its events are copied, its snapshots only read.
Result<ForkSummary> LocalControlPlane::fork(const std::string& taskId, const ForkRequest& request) {
    auto found = taskWithSnapshots(*m_store, m_data, taskId);
    if (!found)
        return found.error();
    const TaskRecord original = found->task;
    snapshots::ShadowRepo* repo = &found->repo;
    const std::string& dir = found->dir;
    if (m_manager->isActive(taskId) || original.status == TaskStatus::Running ||
        original.status == TaskStatus::Queued)
        return makeError(ErrorCode::InvalidArgument,
                         "task " + taskId + " is running; stop it first (warren cancel " + taskId + ")");
    auto target = repo->beforeStep(request.fromStep);
    if (!target)
        return target.error();
    if (target->meta.kind != snapshots::SnapshotMeta::Kind::Step)
        return makeError(ErrorCode::InvalidArgument,
                         "step " + std::to_string(request.fromStep) + " is past the task's last step: a fork "
                                                                      "continues from before a step it ran");
    auto spec = TaskSpec::fromJson(json::parse(original.spec, nullptr, false));
    if (!spec)
        return spec.error();

    const std::string id = newTaskId();
    const fs::path workspace = request.workspace.empty() ? fs::path(m_data.taskDir(id)) / "workspace"
                                                         : fs::absolute(request.workspace);
    std::error_code error;
    // Not inside the original's workspace (that would change it), nor around it.
    const auto inside = [](const fs::path& path, const fs::path& above) {
        return std::mismatch(above.begin(), above.end(), path.begin(), path.end()).first == above.end();
    };
    const fs::path resolved = fs::weakly_canonical(workspace, error);
    const fs::path theirs = fs::weakly_canonical(original.workspace, error);
    if (inside(resolved, theirs) || inside(theirs, resolved))
        return makeError(ErrorCode::InvalidArgument, workspace.string() + " overlaps the workspace of task " + taskId +
                                                         " (" + original.workspace +
                                                         "); a fork's workspace is a directory of its own");
    if (fs::exists(workspace, error) && (!fs::is_directory(workspace, error) || !fs::is_empty(workspace, error)))
        return makeError(ErrorCode::InvalidArgument, workspace.string() + " is not empty; a fork's workspace is "
                                                                          "a new or empty directory");
    const bool made = !fs::exists(workspace, error);
    fs::create_directories(workspace, error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + workspace.string() + ": " + error.message());
    // Failing before the task exists leaves nothing behind: the directory as it was, no task.
    const auto undoWorkspace = [&] {
        std::error_code ignored;
        if (made) {
            fs::remove_all(workspace, ignored);
        } else {
            for (const auto& entry : fs::directory_iterator(workspace, ignored))
                fs::remove_all(entry.path(), ignored);
        }
        fs::remove_all(m_data.taskDir(id), ignored);
    };
    if (auto copied = repo->copyTo(*target, workspace); !copied) {
        undoWorkspace();
        return copied.error();
    }
    // Its past: the original's snapshots up to the step and the checkpoints kept before each, made its own.
    auto own = snapshots::ShadowRepo::open(m_data.snapshotsDir(id), workspace);
    if (!own) {
        undoWorkspace();
        return own.error();
    }
    if (auto adopted = own->adopt(*repo, request.fromStep); !adopted) {
        undoWorkspace();
        return adopted.error();
    }
    for (std::uint64_t step = 1; step <= request.fromStep; ++step) {
        if (!snapshots::conversationKept(dir, step))
            continue;
        auto copied = copyCheckpoint(snapshots::ShadowRepo::checkpointCopy(dir, step),
                                     snapshots::ShadowRepo::checkpointCopy(m_data.snapshotsDir(id), step), id);
        if (!copied) {
            undoWorkspace();
            return copied.error();
        }
    }
    const bool conversation = snapshots::conversationKept(dir, request.fromStep);
    fs::create_directories(m_data.stateDir(id), error);
    if (error) {
        undoWorkspace();
        return makeError(ErrorCode::System, "cannot create " + m_data.stateDir(id) + ": " + error.message());
    }
    if (conversation)
        if (auto copied = copyCheckpoint(snapshots::ShadowRepo::checkpointCopy(dir, request.fromStep),
                                         m_data.stateDir(id) + "/checkpoint.json", id);
            !copied) {
            undoWorkspace();
            return copied.error();
        }
    auto submitted = m_manager->submit(original.prompt, workspace.string(), *spec, id, TaskManager::Start::Held);
    if (!submitted) {
        undoWorkspace();
        return submitted.error();
    }
    TaskRecord task = *submitted;
    task.status = TaskStatus::Paused; // `resume` runs it from its checkpoint
    task.steps = request.fromStep - 1;
    if (auto updated = m_store->updateTask(task); !updated)
        return updated.error();

    m_events->flush();
    auto events = m_store->events(taskId);
    if (!events)
        return events.error();
    std::vector<EventRow> rows = eventsBeforeStep(*events, request.fromStep, id);
    protocol::Event note;
    note.ts = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
    note.type = protocol::event_type::kLog;
    note.step = request.fromStep - 1;
    note.seq = rows.empty() ? 1 : rows.back().seq + 1;
    note.data = protocol::LogData{protocol::LogLevel::Info, "forked from task " + taskId + " before step " +
                                              std::to_string(request.fromStep) + "; " + taskId +
                                              " and its workspace are as they were"}
                    .toJson();
    rows.push_back({id, note.seq, protocol::formatTimestamp(note.ts), note.type, note.step, "",
                    protocol::toJson(note).dump()});
    if (auto appended = m_store->appendEvents(rows); !appended)
        return appended.error();

    ForkSummary summary;
    summary.task = task;
    summary.from = snapshots::describeSnapshot(target->meta);
    for (auto it = fs::recursive_directory_iterator(workspace, error); !error && it != fs::recursive_directory_iterator();
         it.increment(error))
        if (!it->is_directory() || it->is_symlink())
            ++summary.files;
    summary.conversation = conversation ? "its agent continues from before step " + std::to_string(request.fromStep)
                                        : "its agent starts from the prompt";
    for (const auto& skippedDir : target->meta.skippedDirs)
        summary.skipped.push_back(skippedDir + "/");
    for (const auto& file : target->meta.skippedLarge)
        summary.skipped.push_back(file + " (large)");
    return summary;
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

Status LocalControlPlane::exportTask(const std::string& taskId, const std::string& directory) {
    auto record = task(taskId);
    if (!record)
        return record.error();
    if (!*record)
        return makeError(ErrorCode::NotFound, "no task " + taskId + "; `warren tasks` lists them");
    auto all = events(taskId);
    if (!all)
        return all.error();
    std::error_code error;
    fs::create_directories(fs::path(directory) / "output", error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + directory + ": " + error.message());
    std::ofstream summary(fs::path(directory) / "task.json");
    summary << toJson(**record).dump(2) << "\n";
    summary.close();
    std::ofstream lines(fs::path(directory) / "events.jsonl");
    for (const auto& event : *all)
        lines << event.dump() << "\n";
    lines.close();
    fs::copy(m_data.outputDir(taskId), fs::path(directory) / "output",
             fs::copy_options::recursive | fs::copy_options::overwrite_existing, error);
    if (error && error != std::errc::no_such_file_or_directory)
        return makeError(ErrorCode::System, "cannot copy the task's output: " + error.message());
    if (!summary || !lines)
        return makeError(ErrorCode::System, "cannot write the export in " + directory + "; is the disk full?");
    return Ok{};
}

} // namespace warren::control

namespace warren::control {

Result<Settings> LocalControlPlane::settings() { return loadSettings(*m_store); }

Status LocalControlPlane::saveSettings(const Settings& settings) {
    if (auto saved = control::saveSettings(*m_store, settings); !saved)
        return saved;
    m_manager->setMaxConcurrent(settings.maxConcurrent);
    m_manager->setApprovalRules(approvalRules(settings));
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

Status LocalControlPlane::storeKey(const std::string& keyName, const std::string& key) {
    if (keyName.empty())
        return makeError(ErrorCode::InvalidArgument, "this provider takes no API key");
    return secrets().write(keyName, key);
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
    auto config = parseProviderSpec(provider, "any"); // the key does not depend on the model
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
    // A reply of a few tokens, no retries: the answer is about reaching the model, quickly.
    config->maxTokens = 8;
    config->maxRetries = 0;
    auto created = createProvider(*config, m_network);
    if (!created)
        return done(created.error());
    std::shared_ptr<Provider> held = std::move(*created);
    protocol::LlmChatParams params;
    protocol::ChatMessage question;
    question.role = "user";
    question.content = "Reply with the word OK.";
    params.messages.push_back(std::move(question));
    ChatCall* call = held->chat(params, context);
    connect(call, &ChatCall::finished, context, [call, held, done = std::move(done)] {
        call->deleteLater();
        if (call->result())
            done(Ok{});
        else
            done(call->result().error());
    });
}

// The faces' calls: the synchronous forms above, answered from the event loop.

void LocalControlPlane::submit(const std::string& prompt, const std::string& workspace, const TaskSpec& spec,
                               Done<TaskRecord> done) {
    answer(std::move(done), submit(prompt, workspace, spec));
}
void LocalControlPlane::submitDemo(TaskSpec spec, Done<TaskRecord> done) {
    answer(std::move(done), submitDemo(std::move(spec)));
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
    answer(std::move(done), exportTask(taskId, directory));
}
void LocalControlPlane::storeKey(const std::string& keyName, const std::string& key, Done<Ok> done) {
    answer(std::move(done), storeKey(keyName, key));
}
void LocalControlPlane::hasKey(const std::string& keyName, Done<bool> done) {
    answer(std::move(done), hasKey(keyName));
}
void LocalControlPlane::taskChanges(const std::string& taskId, std::optional<std::uint64_t> step,
                                    Done<TaskChanges> done) {
    answer(std::move(done), taskChanges(taskId, step));
}
void LocalControlPlane::previewRewind(const std::string& taskId, const RewindRequest& request,
                                      Done<RewindSummary> done) {
    answer(std::move(done), previewRewind(taskId, request));
}
void LocalControlPlane::rewind(const std::string& taskId, const RewindRequest& request, Done<RewindSummary> done) {
    answer(std::move(done), rewind(taskId, request));
}
void LocalControlPlane::fork(const std::string& taskId, const ForkRequest& request, Done<ForkSummary> done) {
    answer(std::move(done), fork(taskId, request));
}

} // namespace warren::control
