#include "app/remote/RemoteControlPlane.h"

#include "agent_core/config/AgentConfig.h"
#include "agent_core/protocol/EventTypes.h"
#include "app/control/Demo.h"
#include "app/providers/ProviderChoice.h"
#include "app/providers/ProviderConfig.h"
#include "app/remote/RemoteEventStream.h"
#include "app/remote/RemoteTaskHome.h"
#include "app/remote/RemoteTaskJson.h"
#include "app/remote/RemoteWorkspace.h"
#include "app/remote/ServerKey.h"
#include "app/remote/ServerProbe.h"
#include "app/secrets/SecretStore.h"
#include "app/store/Store.h"
#include "app/store/sqlite/SqliteStore.h"
#include "app/tasks/DataDir.h"
#include "app/tasks/TaskMove.h"
#include "app/tasks/WorkspaceScope.h"
#include "app/wire/HostSecretBody.h"
#include "app/wire/OwnerAnswers.h"
#include "app/wire/ProviderKeyBody.h"
#include "common/FileText.h"
#include "common/RemoveTree.h"

#include <QCoreApplication>
#include <QMetaMethod>
#include <QNetworkReply>
#include <QTimer>
#include <QUrlQuery>
#include <QUuid>
#include <filesystem>
#include <fstream>

namespace warren::remote {

namespace fs = std::filesystem;
using control::TaskRecord;
using control::TaskStatus;
using nlohmann::json;

namespace {

QString secretPath(const std::string& name) {
    return "/v1/me/secrets/" + QString::fromUtf8(QUrl::toPercentEncoding(QString::fromStdString(name)));
}

// The server's page size for GET .../events.
constexpr std::size_t kEventPage = 1000;

Result<std::string> keyFor(const RemoteOptions& options, const std::string& dataDir) {
    if (!options.key.empty())
        return options.key;
    auto secrets = options.useKeychain ? control::SecretStore::open(dataDir) : control::SecretStore::openFile(dataDir);
    auto stored = storedServerKey(*secrets);
    if (stored && stored->empty())
        return makeError(ErrorCode::InvalidArgument,
                         "no API key for the server: store the key `warrend admin add-user` printed with `warren "
                         "secrets set remote` (or in Settings), or set WARREN_REMOTE_KEY");
    return stored;
}

// A scripted task's script, sent inline (DESIGN §9); null for a model's.
Result<json> scriptOf(const control::TaskSpec& spec) {
    const auto choice = control::ProviderChoice::parse(spec.provider);
    if (!choice.isScripted())
        return json();
    const std::string path = choice.scriptFile();
    auto text = readFileText(path);
    if (!text)
        return text.error();
    json script = json::parse(*text, nullptr, false);
    if (!script.is_object())
        return makeError(ErrorCode::InvalidArgument,
                         "the script " + path + " is not a JSON object {\"turns\": [...]}");
    return script;
}

// A page of GET .../events as the server answered it, or why it is none.
Result<EventsPage> pageOf(const std::string& taskId, const Result<json>& answer) {
    if (!answer)
        return answer.error();
    return eventsPageFromJson(taskId, *answer);
}


} // namespace

RemoteControlPlane::RemoteControlPlane(std::unique_ptr<RemoteClient> client) : m_client(std::move(client)) {
    m_client->setParent(nullptr);
    connect(m_client.get(), &RemoteClient::keyRejected, this, &ControlPlane::keyRejected);
}

RemoteControlPlane::~RemoteControlPlane() {
    for (auto& [id, stream] : m_streams)
        delete stream;
}

void RemoteControlPlane::open(RemoteOptions options, control::Done<std::unique_ptr<RemoteControlPlane>> done) {
    auto fail = [&done](Error error) {
        // Later, like every answer: the caller's code after open() runs first.
        QTimer::singleShot(0, [done, error] { done(error); });
    };
    auto base = parseServerUrl(options.url);
    if (!base)
        return fail(base.error());
    const std::string dataDir = options.dataDir.empty() ? control::DataDir::defaultRoot() : options.dataDir;
    std::error_code error;
    fs::create_directories(dataDir, error);
    if (error)
        return fail(makeError(ErrorCode::System, "cannot create the data directory " + dataDir + ": " + error.message()));
    auto key = keyFor(options, dataDir);
    if (!key)
        return fail(key.error());
    auto settings = control::openSqliteStore(fs::canonical(dataDir, error).string() + "/warren.db");
    if (!settings)
        return fail(settings.error());
    auto* plane = new RemoteControlPlane(std::make_unique<RemoteClient>(*base, *key));
    plane->m_dataDir = fs::canonical(dataDir, error).string();
    plane->m_maxUploadBytes = options.maxUploadBytes;
    plane->m_settings = std::move(*settings);
    probeServer(*plane->m_client, plane, [plane, done](Result<control::ServerAccount> identity) {
        if (!identity) {
            // Out of its client's reply handler first, where the plane may go; then the answer. (A
            // deleteLater would never run in a command that exits on this answer.)
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [plane, done, error = identity.error()] {
                    delete plane;
                    done(error);
                },
                Qt::QueuedConnection);
            return;
        }
        plane->m_account = std::move(*identity);
        done(std::unique_ptr<RemoteControlPlane>(plane));
    });
}

std::string RemoteControlPlane::describe() {
    return m_account.user + " at " + m_client->server().toStdString() + " (warrend " + m_account.version + ")";
}

QString RemoteControlPlane::taskPath(const std::string& taskId, const QString& rest) const {
    return "/v1/tasks/" + QString::fromUtf8(QUrl::toPercentEncoding(QString::fromStdString(taskId))) + rest;
}

void RemoteControlPlane::askIsOver(const std::string& taskId, QObject* context,
                                   std::function<void(bool over)> answer) {
    m_client->sendJson("GET", taskPath(taskId), nullptr, {}, context,
                       [answer = std::move(answer)](Result<json> body, int status) {
                           if (!body)
                               return answer(status == 404);
                           auto task = taskFromJson(*body);
                           answer(task && task->status != TaskStatus::Queued && task->status != TaskStatus::Running);
                       });
}

void RemoteControlPlane::watch(const std::string& taskId, std::uint64_t afterSeq) {
    if (auto it = m_streams.find(taskId); it != m_streams.end()) {
        afterSeq = std::max(afterSeq, it->second->lastSeq());
        it->second->disconnect(this); // nothing more of it reaches the faces: the new one takes over
        it->second->stop();
        it->second->deleteLater();
        m_streams.erase(it);
    }
    m_ended.erase(taskId);
    auto* stream = new RemoteEventStream(
        *m_client, taskId, afterSeq,
        [this](const std::string& id, QObject* context, std::function<void(bool)> answer) {
            askIsOver(id, context, std::move(answer));
        },
        this);
    m_streams[taskId] = stream;
    connect(stream, &RemoteEventStream::event, this, [this](const std::string& id, const json& event) {
        emit eventStored(id, event);
        followQuestions(id, event);
    });
    connect(stream, &RemoteEventStream::ended, this, [this](const std::string& id) {
        m_ended.insert(id);
        emit taskFinished(id);
        streamWorks(id);
    });
    connect(stream, &RemoteEventStream::interrupted, this, [this](const std::string& id, const QString& message) {
        m_interrupted.insert(id);
        emit connectionProblem(message);
    });
    connect(stream, &RemoteEventStream::resumed, this, &RemoteControlPlane::streamWorks);
    connect(stream, &RemoteEventStream::keyRejected, this, [this] {
        emit keyRejected(QString::fromStdString("warrend at " + m_client->server().toStdString() +
                                                " refused the API key (revoked or expired): enter a new one "
                                                "in Settings, or `warren secrets set remote`"));
    });
    stream->start();
}

// A question stays open until its approval_resolved, across a pause, a sleep or a restart of warrend: the
// resumed agent asks it again without a second approval_requested, so each task_resumed asks the server
// again about the task's open questions.
void RemoteControlPlane::followQuestions(const std::string& taskId, const json& event) {
    const std::string type = event.value("type", "");
    auto& open = m_openQuestions[taskId];
    if (auto approval = approvalFromEvent(taskId, event)) {
        open[approval->callId] = *approval;
        askIfWaiting(*approval);
    } else if (type == protocol::event_type::kApprovalResolved && event.contains("data") &&
               event["data"].is_object()) {
        open.erase(event["data"].value("id", ""));
        m_announced.erase({taskId, event["data"].value("id", "")});
    } else if (type == protocol::event_type::kTaskResumed) {
        for (const auto& [callId, question] : open) {
            m_announced.erase({taskId, callId}); // a new run asks again
            askIfWaiting(question);
        }
    }
    if (open.empty())
        m_openQuestions.erase(taskId);
}

void RemoteControlPlane::askIfWaiting(const control::ApprovalRecord& approval) {
    // Every call that needs approval shows as approval_requested, also one a rule decides at once: only the
    // server knows which wait for the user.
    const QString path = taskPath(approval.taskId, "/approvals/" + QString::fromUtf8(QUrl::toPercentEncoding(
                                                                   QString::fromStdString(approval.callId))));
    m_client->send("GET", path, {}, {}, this, [this, approval](Result<QByteArray> waiting, int status) {
        // Once per question and run: a resumed run's question may be asked about twice (its task_resumed,
        // and an approval_requested when the agent could not keep it open).
        if (waiting && status == 200 && m_announced.insert({approval.taskId, approval.callId}).second)
            emit approvalNeeded(approval);
    });
}

void RemoteControlPlane::streamWorks(const std::string& taskId) {
    if (m_interrupted.erase(taskId) > 0 && m_interrupted.empty())
        emit connectionRestored();
}

void RemoteControlPlane::replaceKey(const std::string& key) {
    m_client->setKey(key);
    std::vector<std::pair<std::string, std::uint64_t>> restart;
    for (const auto& [id, stream] : m_streams)
        restart.emplace_back(id, stream->lastSeq());
    for (const auto& [id, seq] : restart)
        watch(id, seq);
}

void RemoteControlPlane::lastSeq(const std::string& taskId, control::Done<std::uint64_t> done) {
    m_client->sendJson("GET", taskPath(taskId, "/events?before_seq=0&limit=1"), nullptr, {}, this,
                       [taskId, done = std::move(done)](Result<json> answer, int) {
                           auto page = pageOf(taskId, answer);
                           if (!page)
                               return done(page.error());
                           done(page->lastSeq);
                       });
}

TaskRecord RemoteControlPlane::withLocalWorkspace(TaskRecord task) const {
    // The faces show where the task came from on this machine, and Rerun submits it from there again with
    // its script; the server's record names its upload and says only "scripted".
    auto home = loadTaskHome(m_dataDir, task.id);
    if (!home || !*home) {
        task.workspace = "upload " + task.workspace + " on " + m_client->server().toStdString();
        return task;
    }
    task.workspace = (*home)->workspace;
    if (!(*home)->script.is_null()) {
        json spec = json::parse(task.spec, nullptr, false);
        if (spec.is_object()) {
            spec["provider"] = control::ProviderChoice::scripted(taskScriptFile(m_dataDir, task.id)).toString();
            spec["demo"] = (*home)->demo;
            task.spec = spec.dump();
        }
    }
    return task;
}

void RemoteControlPlane::submitTo(const std::string& prompt, const std::string& workspace,
                                  const control::TaskSpec& spec, const json& script,
                                  control::Done<TaskRecord> done) {
    std::error_code error;
    const std::string local = fs::canonical(workspace, error).string();
    if (error || !fs::is_directory(local))
        return answer<TaskRecord>(std::move(done),
                                  makeError(ErrorCode::InvalidArgument, "the workspace " + workspace + " is not a directory"));
    // Refused here too: the server would accept its copy, but the home's keys would have been sent.
    if (auto broad = control::tooBroadWorkspace(local, control::userHome()))
        return answer<TaskRecord>(std::move(done), makeError(ErrorCode::InvalidArgument, *broad));
    uploadWorkspace(*m_client, local, m_dataDir, m_maxUploadBytes, this,
                    [this, prompt, local, spec, script, done = std::move(done)](Result<Uploaded> uploaded) {
                        if (!uploaded)
                            return done(uploaded.error());
                        // The same key on a retry: a connection dropped after the server created the task
                        // answers that task again instead of creating a second one.
                        const QByteArray idempotency = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
                        const json body = taskRequestJson(prompt, uploaded->uploadId, spec, script);
                        RemoteTaskHome home{m_client->server().toStdString(), local, uploaded->uploadId,
                                            uploaded->manifest, script, spec.demo};
                        createTask(body, idempotency, true,
                                   [this, home, done](const Result<TaskRecord>& task, int) {
                                       if (!task)
                                           return done(task.error());
                                       if (auto saved = saveTaskHome(m_dataDir, task->id, home); !saved)
                                           return done(saved.error());
                                       watch(task->id, 0);
                                       done(withLocalWorkspace(std::move(*task)));
                                   });
                    });
}

QString RemoteControlPlane::server() const {
    return m_client->server();
}

void RemoteControlPlane::createTask(const json& body, const QByteArray& idempotency, bool retry,
                                    std::function<void(Result<TaskRecord>, int status)> done) {
    m_client->sendJson("POST", "/v1/tasks", body, {{"Idempotency-Key", idempotency}}, this,
                       [this, body, idempotency, retry, done = std::move(done)](Result<json> created, int status) {
                           // No answer: the server may have created it before the connection went.
                           if (!created && status == 0 && retry)
                               return createTask(body, idempotency, false, done);
                           if (!created)
                               return done(created.error(), status);
                           done(taskFromJson(*created), status);
                       });
}

void RemoteControlPlane::submit(const std::string& prompt, const std::string& workspace, const control::TaskSpec& spec,
                                control::Done<TaskRecord> done) {
    auto script = scriptOf(spec);
    if (!script)
        return answer<TaskRecord>(std::move(done), script.error());
    submitTo(prompt, workspace, spec, *script, std::move(done));
}

void RemoteControlPlane::moveIn(std::shared_ptr<const control::LeavingTask> leaving,
                                control::Done<TaskRecord> done) {
    const std::string server = m_client->server().toStdString();
    const std::string& id = leaving->task.id;
    if (leaving->underWay) {
        if (leaving->underWay->to != server)
            return answer<TaskRecord>(
                std::move(done), makeError(ErrorCode::InvalidArgument,
                                           "a move of task " + id + " to " + leaving->underWay->to +
                                               " began and did not finish; finish it first (`warren move " +
                                               id + " --to " + leaving->underWay->to + "`)"));
        return createMoved(std::move(leaving), *leaving->underWay, std::move(done));
    }
    uploadWorkspace(
        *m_client, leaving->task.workspace, m_dataDir, m_maxUploadBytes, this,
        [this, leaving, server, done = std::move(done)](Result<Uploaded> workspace) {
            if (!workspace)
                return done(workspace.error());
            const std::string dir = m_dataDir + "/moving/" + leaving->task.id;
            (void)files::removeTree(dir);
            std::error_code error;
            fs::create_directories(dir, error);
            Status written =
                error ? Status(makeError(ErrorCode::System, "cannot create " + dir + ": " + error.message()))
                      : writeFileText(dir + "/" + control::kMovedEventsFile, leaving->events, 0600);
            if (written)
                written = writeFileText(dir + "/" + control::kMovedCheckpointFile, leaving->checkpoint, 0600);
            if (!written)
                return done(written.error());
            uploadWorkspace(
                *m_client, dir, m_dataDir, m_maxUploadBytes, this,
                [this, leaving, server, dir, workspace = *workspace, done](Result<Uploaded> history) {
                    (void)files::removeTree(dir);
                    if (!history)
                        return done(history.error());
                    const control::MoveUnderWay move{
                        server, workspace.uploadId, history->uploadId,
                        QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString(), workspace.manifest};
                    if (auto kept = control::keepMove(control::DataDir{m_dataDir}, leaving->task.id, move);
                        !kept)
                        return done(kept.error());
                    createMoved(leaving, move, done);
                });
        });
}

void RemoteControlPlane::moveOut(const std::string& taskId, control::Done<wire::MoveOutAnswer> done) {
    m_client->sendJson("POST", taskPath(taskId, "/move"), json{{"to", wire::kMoveHome}}, {}, this,
                       [this, done = std::move(done)](Result<json> answer, int) {
                           if (!answer)
                               return done(answer.error());
                           auto moved = wire::MoveOutAnswer::fromJson(*answer);
                           if (!moved)
                               return done(moved.error());
                           moved->task = withLocalWorkspace(std::move(moved->task));
                           done(std::move(*moved));
                       });
}

void RemoteControlPlane::createMoved(std::shared_ptr<const control::LeavingTask> leaving,
                                     const control::MoveUnderWay& move, control::Done<TaskRecord> done) {
    auto spec = control::TaskSpec::fromText(leaving->task.spec);
    if (!spec)
        return answer<TaskRecord>(std::move(done), spec.error());
    auto script = scriptOf(*spec);
    if (!script)
        return answer<TaskRecord>(std::move(done), script.error());
    const wire::MoveOrigin origin{leaving->task.id, leaving->task.status, move.historyUpload};
    const json body = taskRequestJson(leaving->task.prompt, move.workspaceUpload, *spec, *script, origin);
    RemoteTaskHome home{move.to,   leaving->task.workspace, move.workspaceUpload, move.manifest, *script,
                        spec->demo};
    createTask(body, QByteArray::fromStdString(move.key), true,
               // leaving holds the task's lock until the answer: no process here takes the task up meanwhile.
               [this, home, leaving, id = leaving->task.id,
                done = std::move(done)](const Result<TaskRecord>& task, int status) {
                   // Refused for what it is (a quota, a preset the server lacks): nothing was made there,
                   // the move is over and the task stays here as it was. Without an answer (or with one
                   // that says the first request is still handled) the move stays under way.
                   if (!task && status >= 400 && status < 500 && status != 409)
                       control::forgetMove(control::DataDir{m_dataDir}, id);
                   if (!task)
                       return done(task.error());
                   if (auto saved = saveTaskHome(m_dataDir, task->id, home); !saved)
                       return done(saved.error());
                   done(withLocalWorkspace(*task));
               });
}

void RemoteControlPlane::submitDemo(control::TaskSpec spec, control::Done<TaskRecord> done) {
    const std::string directory = m_dataDir + "/demo/" + QUuid::createUuid().toString(QUuid::Id128).toStdString();
    if (auto written = control::writeDemo(directory); !written)
        return answer<TaskRecord>(std::move(done), written.error());
    spec.demo = true;
    spec.provider = control::ProviderChoice::scripted(directory + "/script.json").toString();
    submit(control::kDemoPrompt, directory + "/workspace", spec, std::move(done));
}

void RemoteControlPlane::continueTask(const std::string& taskId, const QString& path, const json& body,
                                      control::Done<Ok> done) {
    lastSeq(taskId, [this, taskId, path, body, done = std::move(done)](Result<std::uint64_t> last) {
        if (!last)
            return done(last.error());
        m_client->sendJson("POST", path, body, {}, this, [this, taskId, last = *last, done](Result<json> posted, int) {
            if (!posted)
                return done(posted.error());
            watch(taskId, last);
            done(Ok{});
        });
    });
}

void RemoteControlPlane::resume(const std::string& taskId, const control::SandboxMove& move, control::Done<Ok> done) {
    if (move.backend || move.image)
        return answer<Ok>(std::move(done), makeError(ErrorCode::InvalidArgument,
                                                     "warrend decides which sandbox its tasks run in; resume without "
                                                     "--backend and --image"));
    continueTask(taskId, taskPath(taskId, "/resume"), nullptr, std::move(done));
}

void RemoteControlPlane::reply(const std::string& taskId, const std::string& message, control::Done<Ok> done) {
    continueTask(taskId, taskPath(taskId, "/reply"), wire::Reply{message}.toJson(), std::move(done));
}

void RemoteControlPlane::cancel(const std::string& taskId, control::Done<Ok> done) {
    m_client->send("POST", taskPath(taskId, "/cancel"), {}, {}, this,
                   [done = std::move(done)](Result<QByteArray> cancelled, int) {
                       if (!cancelled)
                           return done(cancelled.error());
                       done(Ok{});
                   });
}

void RemoteControlPlane::pause(const std::string&, control::Done<Ok> done) {
    answer<Ok>(std::move(done), makeError(ErrorCode::Unsupported, "a task on a server cannot be paused: Stop it, and "
                                                                  "Resume it later from its last checkpoint"));
}

void RemoteControlPlane::answerApproval(const std::string& taskId, const std::string& callId, bool approved,
                                        const std::string& note, bool always) {
    const json body = wire::ApprovalAnswer{approved, note, always}.toJson();
    const QString path =
        taskPath(taskId, "/approvals/" + QString::fromUtf8(QUrl::toPercentEncoding(QString::fromStdString(callId))));
    m_client->sendJson("POST", path, body, {}, this, [this, taskId](Result<json> answered, int) {
        if (!answered)
            return emit connectionProblem(QString::fromStdString("the answer to " + taskId +
                                                                 "'s question did not reach the server: " +
                                                                 answered.error().message));
        // The answer woke a task asleep, whose stream had ended: its events are followed again.
        if (m_ended.erase(taskId) > 0)
            if (auto it = m_streams.find(taskId); it != m_streams.end())
                watch(taskId, it->second->lastSeq());
    });
}

void RemoteControlPlane::allowCommands(const std::string&, const std::string&, control::Done<Ok> done) {
    answer<Ok>(std::move(done), makeError(ErrorCode::Unsupported, "warrend keeps no command rules of yours: approve "
                                                                  "each call, or Always for the rest of this task"));
}

void RemoteControlPlane::allowHostInWorkspace(const std::string&, const std::string&, control::Done<Ok> done) {
    answer<Ok>(std::move(done), makeError(ErrorCode::Unsupported,
                                          "a server task's workspace is its own copy, which no later task shares: allow "
                                          "the host for the rest of this task, or list it in --network ask:HOST"));
}

void RemoteControlPlane::tasks(control::Done<std::vector<TaskRecord>> done) {
    m_client->sendJson("GET", "/v1/tasks", nullptr, {}, this, [this, done = std::move(done)](Result<json> answer, int) {
        if (!answer)
            return done(answer.error());
        auto read = tasksFromJson(*answer);
        if (!read)
            return done(read.error());
        std::vector<TaskRecord> tasks;
        for (auto& task : *read)
            tasks.push_back(withLocalWorkspace(std::move(task)));
        // What runs is watched from its latest event on, when a face listens (the window; not `warren
        // tasks`): it hears of its new events as of a local one's.
        if (isSignalConnected(QMetaMethod::fromSignal(&ControlPlane::eventStored))) {
            for (const auto& task : tasks) {
                if ((task.status == TaskStatus::Queued || task.status == TaskStatus::Running) &&
                    !m_streams.contains(task.id)) {
                    lastSeq(task.id, [this, id = task.id](Result<std::uint64_t> last) {
                        if (last && !m_streams.contains(id))
                            watch(id, *last);
                    });
                }
            }
        }
        done(std::move(tasks));
    });
}

void RemoteControlPlane::task(const std::string& taskId, control::Done<std::optional<TaskRecord>> done) {
    m_client->sendJson("GET", taskPath(taskId), nullptr, {}, this, [this, done = std::move(done)](Result<json> answer, int) {
        if (!answer) {
            if (answer.error().code == ErrorCode::NotFound)
                return done(std::optional<TaskRecord>());
            return done(answer.error());
        }
        auto task = taskFromJson(*answer);
        if (!task)
            return done(task.error());
        done(std::optional<TaskRecord>(withLocalWorkspace(std::move(*task))));
    });
}

void RemoteControlPlane::events(const std::string& taskId, std::uint64_t afterSeq,
                                control::Done<std::vector<json>> done) {
    eventsAfter(taskId, afterSeq, {}, std::move(done));
}

void RemoteControlPlane::eventsAfter(const std::string& taskId, std::uint64_t afterSeq, std::vector<json> collected,
                                     control::Done<std::vector<json>> done) {
    const QString path =
        taskPath(taskId, "/events?after_seq=" + QString::number(afterSeq) + "&limit=" + QString::number(kEventPage));
    m_client->sendJson("GET", path, nullptr, {}, this,
                       [this, taskId, afterSeq, collected = std::move(collected),
                        done = std::move(done)](Result<json> answer, int) mutable {
                           auto page = pageOf(taskId, answer);
                           if (!page)
                               return done(page.error());
                           const std::size_t count = page->events.size();
                           for (auto& event : page->events)
                               collected.push_back(std::move(event));
                           if (count < kEventPage)
                               return done(std::move(collected));
                           const std::uint64_t next = collected.back()["seq"].get<std::uint64_t>();
                           if (next <= afterSeq)
                               return done(makeError(ErrorCode::System,
                                                     "warrend's events of " + taskId + " do not follow their seq"));
                           eventsAfter(taskId, next, std::move(collected), std::move(done));
                       });
}

void RemoteControlPlane::eventsBefore(const std::string& taskId, std::uint64_t beforeSeq, std::size_t limit,
                                      control::Done<std::vector<json>> done) {
    eventsEarlier(taskId, beforeSeq, limit, {}, std::move(done));
}

void RemoteControlPlane::eventsEarlier(const std::string& taskId, std::uint64_t beforeSeq, std::size_t limit,
                                       std::vector<json> collected, control::Done<std::vector<json>> done) {
    // Pages of the server's size, from the end backwards, each put in front of the later ones.
    if (limit == 0)
        return answer(std::move(done), Result<std::vector<json>>(std::move(collected)));
    const std::size_t count = std::min(limit, kEventPage);
    const QString path =
        taskPath(taskId, "/events?before_seq=" + QString::number(beforeSeq) + "&limit=" + QString::number(count));
    m_client->sendJson("GET", path, nullptr, {}, this,
                       [this, taskId, beforeSeq, limit, count, collected = std::move(collected),
                        done = std::move(done)](Result<json> answer, int) mutable {
                           auto page = pageOf(taskId, answer);
                           if (!page)
                               return done(page.error());
                           const auto& list = page->events;
                           collected.insert(collected.begin(), list.begin(), list.end());
                           if (list.size() < count || list.empty())
                               return done(std::move(collected));
                           const std::uint64_t earlier = list.front()["seq"].get<std::uint64_t>();
                           if (beforeSeq != 0 && earlier >= beforeSeq)
                               return done(makeError(ErrorCode::System,
                                                     "warrend's events of " + taskId + " do not follow their seq"));
                           if (earlier <= 1)
                               return done(std::move(collected));
                           eventsEarlier(taskId, earlier, limit - std::min(limit, list.size()), std::move(collected),
                                         std::move(done));
                       });
}

void RemoteControlPlane::artifacts(const std::string& taskId, control::Done<std::vector<control::ArtifactRecord>> done) {
    m_client->sendJson("GET", taskPath(taskId, "/artifacts"), nullptr, {}, this,
                       [taskId, done = std::move(done)](Result<json> answer, int) {
                           if (!answer)
                               return done(answer.error());
                           done(artifactsFromJson(taskId, *answer));
                       });
}

void RemoteControlPlane::exportTask(const std::string& taskId, const std::string& directory, control::Done<Ok> done) {
    // The record, then the events, then the list of artifacts, then each artifact: one request at a time.
    task(taskId, [this, taskId, directory, done = std::move(done)](const Result<std::optional<TaskRecord>>& record) {
        if (!record)
            return done(record.error());
        if (!*record)
            return done(makeError(ErrorCode::NotFound,
                                  "no task " + taskId + " of yours on " + m_client->server().toStdString()));
        events(taskId, 0, [this, taskId, directory, record = **record, done](Result<std::vector<json>> all) {
            if (!all)
                return done(all.error());
            artifacts(taskId, [this, taskId, directory, record, all = *all,
                               done](Result<std::vector<control::ArtifactRecord>> listed) {
                if (!listed)
                    return done(listed.error());
                if (auto written = writeExport(directory, record, all); !written)
                    return done(written.error());
                fetchArtifacts(taskId, directory, *listed, 0, done);
            });
        });
    });
}

Status RemoteControlPlane::writeExport(const std::string& directory, const TaskRecord& record,
                                       const std::vector<json>& events) {
    const fs::path root(directory);
    std::error_code error;
    fs::create_directories(root / "output", error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + directory + ": " + error.message());
    std::ofstream summary(root / "task.json");
    summary << control::toJson(record).dump(2) << "\n";
    std::ofstream lines(root / "events.jsonl");
    for (const auto& event : events)
        lines << event.dump() << "\n";
    if (!summary.flush() || !lines.flush())
        return makeError(ErrorCode::System, "cannot write the export in " + directory + "; is the disk full?");
    return Ok{};
}

void RemoteControlPlane::fetchArtifacts(const std::string& taskId, const std::string& directory,
                                        std::vector<control::ArtifactRecord> listed, std::size_t next,
                                        control::Done<Ok> done) {
    if (next == listed.size())
        return done(Ok{});
    const fs::path root(directory);
    // The server's names are relative paths below /output; one that is not stays on the server.
    const fs::path relative = fs::path(listed[next].path).lexically_normal();
    if (relative.is_absolute() || relative.empty() || *relative.begin() == "..")
        return done(makeError(ErrorCode::System, "warrend named an artifact \"" + listed[next].path + "\" outside /output"));
    const QString path = taskPath(taskId, "/artifacts/" + QString::fromUtf8(QUrl::toPercentEncoding(
                                                              QString::fromStdString(listed[next].path))));
    m_client->send("GET", path, {}, {}, this,
                   [this, taskId, directory, listed = std::move(listed), next, target = root / "output" / relative,
                    done = std::move(done)](Result<QByteArray> bytes, int) mutable {
                       if (!bytes)
                           return done(bytes.error());
                       std::error_code error;
                       fs::create_directories(target.parent_path(), error);
                       std::ofstream out(target, std::ios::binary | std::ios::trunc);
                       out.write(bytes->constData(), bytes->size());
                       if (!out.flush())
                           return done(makeError(ErrorCode::System, "cannot write " + target.string() + "; is the disk full?"));
                       fetchArtifacts(taskId, directory, std::move(listed), next + 1, std::move(done));
                   });
}

Result<control::Settings> RemoteControlPlane::settings() { return control::loadSettings(*m_settings); }

Status RemoteControlPlane::saveSettings(const control::Settings& settings) {
    return control::saveSettings(*m_settings, settings);
}

Result<std::string> RemoteControlPlane::providerKeyName(const std::string& provider) {
    // The entry's, whatever the URL: a form still being filled in has its key name already.
    const control::KnownProvider* known = control::findProvider(provider);
    if (!known)
        return control::parseProviderSpec(provider, "any").error();
    if (!known->needsKey())
        return std::string(); // a local model server's: no key
    // The server keeps a user's keys by the provider's name (PUT /v1/me/provider-keys/NAME).
    return provider.substr(0, provider.find(':'));
}

void RemoteControlPlane::storeKey(const std::string& keyName, const std::string& key, control::Done<Ok> done) {
    if (keyName.empty())
        return answer<Ok>(std::move(done), makeError(ErrorCode::InvalidArgument, "this provider takes no API key"));
    m_client->sendJson("PUT", "/v1/me/provider-keys/" + QString::fromStdString(keyName), wire::ProviderKeyBody{key}.toJson(), {}, this,
                       [done = std::move(done)](Result<json> stored, int) {
                           if (!stored)
                               return done(stored.error());
                           done(Ok{});
                       });
}

// The caller's own secrets on the server (PUT, GET, DELETE /v1/me/secrets): the server checks what the desktop
// would, and seals the value; nothing of it is kept on this machine.
void RemoteControlPlane::hostSecrets(control::Done<std::vector<wire::HostSecretEntry>> done) {
    m_client->sendJson("GET", "/v1/me/secrets", nullptr, {}, this, [done = std::move(done)](Result<json> listed, int) {
        if (!listed)
            return done(listed.error());
        done(wire::HostSecretList::fromJson(*listed).secrets);
    });
}

void RemoteControlPlane::setHostSecret(const wire::HostSecretEntry& binding, const std::string& value,
                                       control::Done<Ok> done) {
    const json body = wire::HostSecretBody{value, binding.hosts, binding.header, binding.inBody}.toJson();
    m_client->sendJson("PUT", secretPath(binding.name), body, {}, this,
                       [done = std::move(done)](Result<json> stored, int) {
                           if (!stored)
                               return done(stored.error());
                           done(Ok{});
                       });
}

void RemoteControlPlane::deleteHostSecret(const std::string& name, control::Done<Ok> done) {
    m_client->sendJson("DELETE", secretPath(name), nullptr, {}, this, [done = std::move(done)](Result<json> removed, int) {
        if (!removed)
            return done(removed.error());
        done(Ok{});
    });
}

void RemoteControlPlane::hasKey(const std::string& keyName, control::Done<bool> done) {
    m_client->sendJson("GET", "/v1/me/provider-keys", nullptr, {}, this,
                       [keyName, done = std::move(done)](Result<json> listed, int) {
                           if (!listed)
                               return done(listed.error());
                           done(listsProviderKey(*listed, keyName));
                       });
}

void RemoteControlPlane::testModel(const std::string&, const std::string&, const std::string&, QObject* context,
                                   std::function<void(Status)> done) {
    QTimer::singleShot(0, context, [done = std::move(done)] {
        done(makeError(ErrorCode::Unsupported, "the server calls the model, not this machine: run a small task to "
                                               "try it; Test connection checks the server itself"));
    });
}

std::vector<std::string> RemoteControlPlane::presetNames() { return agent::presetNames(); }

void RemoteControlPlane::planChanges(const std::string& taskId, const std::string& workspace,
                                     control::Done<control::ChangesPlan> done) {
    bringChangesHome(*m_client, m_dataDir, taskId, workspace, ApplyMode::PlanOnly, this, std::move(done));
}

void RemoteControlPlane::applyChanges(const std::string& taskId, const std::string& workspace,
                                      control::Done<control::ChangesPlan> done) {
    bringChangesHome(*m_client, m_dataDir, taskId, workspace, ApplyMode::Apply, this, std::move(done));
}

} // namespace warren::remote
