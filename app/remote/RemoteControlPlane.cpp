#include "app/remote/RemoteControlPlane.h"

#include "agent_core/config/AgentConfig.h"
#include "app/control/Demo.h"
#include "app/providers/ProviderChoice.h"
#include "app/providers/ProviderConfig.h"
#include "app/remote/RemoteEventStream.h"
#include "app/remote/RemoteTaskHome.h"
#include "app/remote/RemoteTaskJson.h"
#include "app/remote/RemoteWorkspace.h"
#include "app/wire/OwnerAnswers.h"
#include "app/wire/ProviderKeyBody.h"
#include "app/remote/RemotePlaneChooser.h"
#include "app/remote/ServerProbe.h"
#include "app/secrets/SecretStore.h"
#include "app/store/Store.h"
#include "app/store/sqlite/SqliteStore.h"
#include "app/tasks/DataDir.h"

#include <QMetaMethod>
#include <QNetworkReply>
#include <QTimer>
#include <QUrlQuery>
#include <QUuid>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace warren::remote {

namespace fs = std::filesystem;
using control::TaskRecord;
using control::TaskStatus;
using nlohmann::json;

namespace {

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

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

RemoteControlPlane::RemoteControlPlane(std::unique_ptr<RemoteClient> client) : m_client(std::move(client)) {
    m_client->setParent(nullptr);
    connect(m_client.get(), &RemoteClient::idle, this, [this] {
        if (!m_held.empty())
            QTimer::singleShot(0, this, &RemoteControlPlane::deliverHeld);
    });
    connect(m_client.get(), &RemoteClient::keyRejected, this,
            [this](const QString& message) { deliver([this, message] { emit keyRejected(message); }); });
}

RemoteControlPlane::~RemoteControlPlane() {
    for (auto& [id, stream] : m_streams)
        delete stream;
}

Result<std::unique_ptr<RemoteControlPlane>> RemoteControlPlane::open(RemoteOptions options) {
    auto base = parseServerUrl(options.url);
    if (!base)
        return base.error();
    const std::string dataDir = options.dataDir.empty() ? control::DataDir::defaultRoot() : options.dataDir;
    std::error_code error;
    fs::create_directories(dataDir, error);
    if (error)
        return makeError(ErrorCode::System, "cannot create the data directory " + dataDir + ": " + error.message());
    auto key = keyFor(options, dataDir);
    if (!key)
        return key.error();
    std::unique_ptr<RemoteControlPlane> plane(
        new RemoteControlPlane(std::make_unique<RemoteClient>(*base, *key)));
    plane->m_dataDir = fs::canonical(dataDir, error).string();
    plane->m_maxUploadBytes = options.maxUploadBytes;
    auto identity = probeServer(*plane->m_client);
    if (!identity)
        return identity.error();
    plane->m_account = std::move(*identity);
    auto settings = control::openSqliteStore(plane->m_dataDir + "/warren.db");
    if (!settings)
        return settings.error();
    plane->m_settings = std::move(*settings);
    return plane;
}

std::string RemoteControlPlane::describe() {
    return m_account.user + " at " + m_client->server().toStdString() + " (warrend " + m_account.version + ")";
}

QString RemoteControlPlane::taskPath(const std::string& taskId, const QString& rest) const {
    return "/v1/tasks/" + QString::fromUtf8(QUrl::toPercentEncoding(QString::fromStdString(taskId))) + rest;
}

void RemoteControlPlane::deliver(std::function<void()> signal) {
    if (m_client->busy() || !m_held.empty() || m_delivering) {
        m_held.push_back(std::move(signal));
        return;
    }
    signal();
}

void RemoteControlPlane::deliverHeld() {
    if (m_delivering)
        return;
    m_delivering = true;
    while (!m_held.empty() && !m_client->busy()) {
        auto next = std::move(m_held.front());
        m_held.pop_front();
        next();
    }
    m_delivering = false;
}

void RemoteControlPlane::askIsOver(const std::string& taskId, QObject* context,
                                   std::function<void(bool over)> answer) {
    QNetworkReply* reply = m_client->get(taskPath(taskId));
    connect(reply, &QNetworkReply::finished, context, [reply, answer = std::move(answer)] {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status != 200)
            return answer(status == 404);
        const QByteArray body = reply->readAll();
        auto task = taskFromJson(json::parse(body.constData(), body.constData() + body.size(), nullptr, false));
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
    auto* stream = new RemoteEventStream(
        *m_client, taskId, afterSeq,
        [this](const std::string& id, QObject* context, std::function<void(bool)> answer) {
            askIsOver(id, context, std::move(answer));
        },
        this);
    m_streams[taskId] = stream;
    connect(stream, &RemoteEventStream::event, this, [this](const std::string& id, const json& event) {
        deliver([this, id, event] { emit eventStored(id, event); });
        if (auto approval = approvalFromEvent(id, event))
            askIfWaiting(*approval);
    });
    connect(stream, &RemoteEventStream::ended, this, [this](const std::string& id) {
        deliver([this, id] { emit taskFinished(id); });
        streamWorks(id);
    });
    connect(stream, &RemoteEventStream::interrupted, this, [this](const std::string& id, const QString& message) {
        m_interrupted.insert(id);
        deliver([this, message] { emit connectionProblem(message); });
    });
    connect(stream, &RemoteEventStream::resumed, this, &RemoteControlPlane::streamWorks);
    connect(stream, &RemoteEventStream::keyRejected, this, [this] {
        deliver([this] {
            emit keyRejected(QString::fromStdString("warrend at " + m_client->server().toStdString() +
                                                    " refused the API key (revoked or expired): enter a new one "
                                                    "in Settings, or `warren secrets set remote`"));
        });
    });
    stream->start();
}

void RemoteControlPlane::askIfWaiting(const control::ApprovalRecord& approval) {
    // Every call that needs approval shows as approval_requested, also one a rule decides at once: only the
    // server knows which wait for the user. Asked without waiting, so the events go on meanwhile.
    const QString path = taskPath(approval.taskId, "/approvals/" + QString::fromUtf8(QUrl::toPercentEncoding(
                                                                   QString::fromStdString(approval.callId))));
    QNetworkReply* reply = m_client->get(path);
    connect(reply, &QNetworkReply::finished, this, [this, reply, approval] {
        reply->deleteLater();
        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
            deliver([this, approval] { emit approvalNeeded(approval); });
    });
}

void RemoteControlPlane::streamWorks(const std::string& taskId) {
    if (m_interrupted.erase(taskId) > 0 && m_interrupted.empty())
        deliver([this] { emit connectionRestored(); });
}

void RemoteControlPlane::replaceKey(const std::string& key) {
    m_client->setKey(key);
    std::vector<std::pair<std::string, std::uint64_t>> restart;
    for (const auto& [id, stream] : m_streams)
        restart.emplace_back(id, stream->lastSeq());
    for (const auto& [id, seq] : restart)
        watch(id, seq);
}

Result<std::uint64_t> RemoteControlPlane::lastSeq(const std::string& taskId) {
    auto answer = m_client->callJson("GET", taskPath(taskId, "/events?before_seq=0&limit=1"));
    if (!answer)
        return answer.error();
    auto page = eventsPageFromJson(taskId, *answer);
    if (!page)
        return page.error();
    return page->lastSeq;
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

Result<TaskRecord> RemoteControlPlane::submitTo(const std::string& prompt, const std::string& workspace,
                                                const control::TaskSpec& spec, const json& script) {
    std::error_code error;
    const std::string local = fs::canonical(workspace, error).string();
    if (error || !fs::is_directory(local))
        return makeError(ErrorCode::InvalidArgument, "the workspace " + workspace + " is not a directory");
    auto uploaded = uploadWorkspace(*m_client, local, m_dataDir, m_maxUploadBytes);
    if (!uploaded)
        return uploaded.error();
    // The same key on a retry: a connection dropped after the server created the task answers that task
    // again instead of creating a second one.
    const QByteArray idempotency = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    const json body = taskRequestJson(prompt, uploaded->uploadId, spec, script);
    int status = 0;
    auto created = m_client->callJson("POST", "/v1/tasks", body, {{"Idempotency-Key", idempotency}}, &status);
    if (!created && status == 0) // no answer: the server may have created it before the connection went
        created = m_client->callJson("POST", "/v1/tasks", body, {{"Idempotency-Key", idempotency}});
    if (!created)
        return created.error();
    auto task = taskFromJson(*created);
    if (!task)
        return task.error();
    RemoteTaskHome home{m_client->server().toStdString(), local, uploaded->uploadId, uploaded->manifest, script,
                        spec.demo};
    if (auto saved = saveTaskHome(m_dataDir, task->id, home); !saved)
        return saved.error();
    watch(task->id, 0);
    return withLocalWorkspace(std::move(*task));
}

Result<TaskRecord> RemoteControlPlane::submit(const std::string& prompt, const std::string& workspace,
                                              const control::TaskSpec& spec) {
    json script;
    if (const auto choice = control::ProviderChoice::parse(spec.provider); choice.isScripted()) {
        const std::string path = choice.scriptFile();
        script = json::parse(readFile(path), nullptr, false);
        if (!script.is_object())
            return makeError(ErrorCode::InvalidArgument, "the script " + path + " is not a JSON object {\"turns\": [...]}");
    }
    return submitTo(prompt, workspace, spec, script);
}

Result<TaskRecord> RemoteControlPlane::submitDemo(control::TaskSpec spec) {
    const std::string directory = m_dataDir + "/demo/" + QUuid::createUuid().toString(QUuid::Id128).toStdString();
    if (auto written = control::writeDemo(directory); !written)
        return written.error();
    spec.demo = true;
    spec.provider = control::ProviderChoice::scripted(directory + "/script.json").toString();
    return submit(control::kDemoPrompt, directory + "/workspace", spec);
}

Status RemoteControlPlane::resume(const std::string& taskId, const control::SandboxMove& move) {
    if (move.backend || move.image)
        return makeError(ErrorCode::InvalidArgument,
                         "warrend decides which sandbox its tasks run in; resume without --backend and --image");
    auto last = lastSeq(taskId);
    if (!last)
        return last.error();
    if (auto resumed = m_client->call("POST", taskPath(taskId, "/resume")); !resumed)
        return resumed.error();
    watch(taskId, *last);
    return Ok{};
}

Status RemoteControlPlane::reply(const std::string& taskId, const std::string& message) {
    auto last = lastSeq(taskId);
    if (!last)
        return last.error();
    if (auto replied = m_client->callJson("POST", taskPath(taskId, "/reply"), wire::Reply{message}.toJson()); !replied)
        return replied.error();
    watch(taskId, *last);
    return Ok{};
}

Status RemoteControlPlane::cancel(const std::string& taskId) {
    if (auto cancelled = m_client->call("POST", taskPath(taskId, "/cancel")); !cancelled)
        return cancelled.error();
    return Ok{};
}

Status RemoteControlPlane::pause(const std::string&) {
    return makeError(ErrorCode::Unsupported, "a task on a server cannot be paused: Stop it, and Resume it later "
                                             "from its last checkpoint");
}

void RemoteControlPlane::answerApproval(const std::string& taskId, const std::string& callId, bool approved,
                                        const std::string& note, bool always) {
    const json body = wire::ApprovalAnswer{approved, note, always}.toJson();
    auto answered = m_client->call("POST", taskPath(taskId, "/approvals/" + QString::fromUtf8(QUrl::toPercentEncoding(
                                                                         QString::fromStdString(callId)))),
                                   QByteArray::fromStdString(body.dump()));
    if (!answered)
        emit connectionProblem(QString::fromStdString("the answer to " + taskId + "'s question did not reach the server: " +
                                                      answered.error().message));
}

Status RemoteControlPlane::allowCommands(const std::string&, const std::string&) {
    return makeError(ErrorCode::Unsupported,
                     "warrend keeps no command rules of yours: approve each call, or Always for the rest of this task");
}

Result<std::vector<TaskRecord>> RemoteControlPlane::tasks() {
    auto answer = m_client->callJson("GET", "/v1/tasks");
    if (!answer)
        return answer.error();
    auto read = tasksFromJson(*answer);
    if (!read)
        return read.error();
    std::vector<TaskRecord> tasks;
    for (auto& task : *read)
        tasks.push_back(withLocalWorkspace(std::move(task)));
    // What runs is watched from its latest event on, when a face listens (the window; not `warren tasks`):
    // it hears of its new events as of a local one's.
    if (!isSignalConnected(QMetaMethod::fromSignal(&ControlPlane::eventStored)))
        return tasks;
    for (const auto& task : tasks) {
        if ((task.status == TaskStatus::Queued || task.status == TaskStatus::Running) && !m_streams.contains(task.id)) {
            if (auto last = lastSeq(task.id))
                watch(task.id, *last);
        }
    }
    return tasks;
}

Result<std::optional<TaskRecord>> RemoteControlPlane::task(const std::string& taskId) {
    auto answer = m_client->callJson("GET", taskPath(taskId));
    if (!answer) {
        if (answer.error().code == ErrorCode::NotFound)
            return std::optional<TaskRecord>();
        return answer.error();
    }
    auto task = taskFromJson(*answer);
    if (!task)
        return task.error();
    return std::optional<TaskRecord>(withLocalWorkspace(std::move(*task)));
}

Result<std::vector<json>> RemoteControlPlane::events(const std::string& taskId, std::uint64_t afterSeq) {
    std::vector<json> events;
    while (true) {
        auto answer = m_client->callJson("GET", taskPath(taskId, "/events?after_seq=" + QString::number(afterSeq) +
                                                                     "&limit=" + QString::number(kEventPage)));
        if (!answer)
            return answer.error();
        auto page = eventsPageFromJson(taskId, *answer);
        if (!page)
            return page.error();
        const std::size_t count = page->events.size();
        for (auto& event : page->events)
            events.push_back(std::move(event));
        if (count < kEventPage)
            return events;
        const std::uint64_t next = events.back()["seq"].get<std::uint64_t>();
        if (next <= afterSeq)
            return makeError(ErrorCode::System, "warrend's events of " + taskId + " do not follow their seq");
        afterSeq = next;
    }
}

Result<std::vector<json>> RemoteControlPlane::eventsBefore(const std::string& taskId, std::uint64_t beforeSeq,
                                                           std::size_t limit) {
    // Pages of the server's size, from the end backwards, each put in front of the later ones.
    std::vector<json> events;
    while (limit > 0) {
        const std::size_t count = std::min(limit, kEventPage);
        auto answer = m_client->callJson("GET", taskPath(taskId, "/events?before_seq=" + QString::number(beforeSeq) +
                                                                     "&limit=" + QString::number(count)));
        if (!answer)
            return answer.error();
        auto page = eventsPageFromJson(taskId, *answer);
        if (!page)
            return page.error();
        const auto& list = page->events;
        events.insert(events.begin(), list.begin(), list.end());
        if (list.size() < count || list.empty())
            break;
        const std::uint64_t earlier = list.front()["seq"].get<std::uint64_t>();
        if (beforeSeq != 0 && earlier >= beforeSeq)
            return makeError(ErrorCode::System, "warrend's events of " + taskId + " do not follow their seq");
        beforeSeq = earlier;
        if (beforeSeq <= 1)
            break;
        limit -= std::min(limit, list.size());
    }
    return events;
}

Result<std::vector<control::ArtifactRecord>> RemoteControlPlane::artifacts(const std::string& taskId) {
    auto answer = m_client->callJson("GET", taskPath(taskId, "/artifacts"));
    if (!answer)
        return answer.error();
    return artifactsFromJson(taskId, *answer);
}

Status RemoteControlPlane::exportTask(const std::string& taskId, const std::string& directory) {
    auto record = task(taskId);
    if (!record)
        return record.error();
    if (!*record)
        return makeError(ErrorCode::NotFound, "no task " + taskId + " of yours on " + m_client->server().toStdString());
    auto all = events(taskId);
    if (!all)
        return all.error();
    auto listed = artifacts(taskId);
    if (!listed)
        return listed.error();
    const fs::path root(directory);
    std::error_code error;
    fs::create_directories(root / "output", error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + directory + ": " + error.message());
    std::ofstream summary(root / "task.json");
    summary << control::toJson(**record).dump(2) << "\n";
    std::ofstream lines(root / "events.jsonl");
    for (const auto& event : *all)
        lines << event.dump() << "\n";
    for (const auto& artifact : *listed) {
        // The server's names are relative paths below /output; one that is not stays on the server.
        const fs::path relative = fs::path(artifact.path).lexically_normal();
        if (relative.is_absolute() || relative.empty() || *relative.begin() == "..")
            return makeError(ErrorCode::System, "warrend named an artifact \"" + artifact.path + "\" outside /output");
        auto bytes = m_client->call("GET", taskPath(taskId, "/artifacts/" + QString::fromUtf8(QUrl::toPercentEncoding(
                                                                               QString::fromStdString(artifact.path)))));
        if (!bytes)
            return bytes.error();
        fs::create_directories((root / "output" / relative).parent_path(), error);
        std::ofstream out(root / "output" / relative, std::ios::binary | std::ios::trunc);
        out.write(bytes->constData(), bytes->size());
        if (!out.flush())
            return makeError(ErrorCode::System, "cannot write " + (root / "output" / relative).string() + "; is the disk full?");
    }
    if (!summary.flush() || !lines.flush())
        return makeError(ErrorCode::System, "cannot write the export in " + directory + "; is the disk full?");
    return Ok{};
}

Result<control::Settings> RemoteControlPlane::settings() { return control::loadSettings(*m_settings); }

Status RemoteControlPlane::saveSettings(const control::Settings& settings) {
    return control::saveSettings(*m_settings, settings);
}

Result<std::string> RemoteControlPlane::providerKeyName(const std::string& provider) {
    auto config = control::parseProviderSpec(provider, "any");
    if (!config)
        return config.error();
    if (config->keyName.empty())
        return std::string(); // a local model server's: no key
    // The server keeps a user's keys by the provider's name (PUT /v1/me/provider-keys/NAME).
    return provider.substr(0, provider.find(':'));
}

Status RemoteControlPlane::storeKey(const std::string& keyName, const std::string& key) {
    if (keyName.empty())
        return makeError(ErrorCode::InvalidArgument, "this provider takes no API key");
    auto stored = m_client->callJson("PUT", "/v1/me/provider-keys/" + QString::fromStdString(keyName), wire::ProviderKeyBody{key}.toJson());
    if (!stored)
        return stored.error();
    return Ok{};
}

Result<bool> RemoteControlPlane::hasKey(const std::string& keyName) {
    auto listed = m_client->callJson("GET", "/v1/me/provider-keys");
    if (!listed)
        return listed.error();
    return listsProviderKey(*listed, keyName);
}

void RemoteControlPlane::testModel(const std::string&, const std::string&, const std::string&, QObject*,
                                   std::function<void(Status)> done) {
    done(makeError(ErrorCode::Unsupported, "the server calls the model, not this machine: run a small task to try "
                                           "it; Test connection checks the server itself"));
}

std::vector<std::string> RemoteControlPlane::presetNames() { return agent::presetNames(); }

Result<control::ChangesPlan> RemoteControlPlane::planChanges(const std::string& taskId, const std::string& workspace) {
    return bringChangesHome(*m_client, m_dataDir, taskId, workspace, ApplyMode::PlanOnly);
}

Result<control::ChangesPlan> RemoteControlPlane::applyChanges(const std::string& taskId, const std::string& workspace) {
    return bringChangesHome(*m_client, m_dataDir, taskId, workspace, ApplyMode::Apply);
}

} // namespace warren::remote
