#include "server/api/Warrend.h"

#include "agent_core/protocol/EventTypes.h"
#include "app/engine/ControlEngine.h"
#include "app/metrics/EngineMetrics.h"
#include "app/secrets/SecretStore.h"
#include "app/store/OpenStore.h"
#include "app/store/Store.h"
#include "app/store/postgres/PgConnection.h"
#include "app/tasks/AgentListener.h"
#include "app/tasks/ProviderKey.h"
#include "app/tasks/RetentionSweep.h"
#include "app/tasks/StoredEvents.h"
#include "app/tasks/TaskManager.h"
#include "app/tasks/TaskRetention.h"
#include "server/accounts/AccountStore.h"
#include "server/accounts/ProviderKeySecret.h"
#include "server/accounts/TenantSkillPacks.h"
#include "server/api/EventStreams.h"
#include "server/api/EventsApi.h"
#include "server/api/HostSecretsApi.h"
#include "server/api/McpServersApi.h"
#include "server/api/MetricsApi.h"
#include "server/api/ProviderEndpoints.h"
#include "server/api/ProviderKeysApi.h"
#include "server/api/Quotas.h"
#include "server/api/SandboxLabels.h"
#include "server/api/ServerInfoApi.h"
#include "server/api/ServerParts.h"
#include "server/api/TaskMoveApi.h"
#include "server/api/TaskQuestions.h"
#include "server/api/TaskWebhooks.h"
#include "server/api/TasksApi.h"
#include "server/api/UploadsApi.h"
#include "server/api/WaitingTasks.h"
#include "server/api/WebhooksApi.h"
#include "server/replicas/ReplicaRequests.h"
#include "server/replicas/TaskLeases.h"
#include "server/replicas/TaskNotifications.h"
#include "server/webhooks/WebhookDispatcher.h"
#include "server/work/DiskWork.h"

#include <QTimer>

namespace warren::server {

using control::TaskStatus;

namespace {

// A task whose run is still to come or going on: its streams stay open, its reservation is kept.
bool queuedOrRunning(const Result<std::optional<control::TaskRecord>>& task) {
    return task && *task && ((*task)->status == TaskStatus::Queued || (*task)->status == TaskStatus::Running);
}

} // namespace

Result<std::unique_ptr<Warrend>> Warrend::open(const ServeOptions& options) {
    std::unique_ptr<Warrend> server(new Warrend());
    if (auto opened = server->openControl(options); !opened)
        return opened.error();
    if (auto listening = server->listen(options); !listening)
        return listening.error();
    server->resumeLeftOver();
    return server;
}

Warrend::~Warrend() {
    m_http.reset(); // no request reaches what goes next
    m_work.reset(); // its workers done before what their jobs use
    m_parts.reset();
    m_webhooks.reset();
    m_webhookDispatcher.reset(); // its attempts under way are dropped (docs/SERVER.md, "Webhooks")
    if (m_accounts)
        m_accounts->connection().observeErrors({}); // it counted into the engine's metrics
    m_engine.reset(); // stops the runners (their tasks are taken over by another replica, or recovered next
                      // time; a cluster task's pod runs on, for the replica that takes it over to rejoin)
    if (m_leases)
        m_leases->releaseAll(); // another replica takes them over now, not once the leases expired
}

Status Warrend::openControl(const ServeOptions& options) {
    auto data = control::DataDir::prepare(options.dataDir, {"uploads", "workspaces", "scripts", "incoming", "tenant-skills"});
    if (!data)
        return data.error();
    const std::string root = data->root;
    auto accounts = accounts::AccountStore::open(options.databaseUrl);
    if (!accounts)
        return accounts.error();
    m_accounts = std::make_unique<accounts::AccountStore>(std::move(*accounts));
    // This replica's name: the holder of its leases, and the writer of its events, which the database
    // refuses for a task another holder's lease covers (fenceEventWrites).
    const std::string holder = replicaName();
    m_leases = std::make_unique<TaskLeases>(*m_accounts, holder, std::chrono::seconds(options.leaseSec));
    connect(m_leases.get(), &TaskLeases::problem, this, &Warrend::storeProblem);
    m_secrets = control::SecretStore::openFile(root); // server-wide keys: the environment, or this 0600 file
    if (!options.providerKeySecret.empty()) {
        auto secret = accounts::readProviderKeySecret(options.providerKeySecret);
        if (!secret)
            return secret.error();
        m_providerKeySecret = std::move(*secret);
    }
    if (!options.metricsTokenFile.empty()) {
        auto token = readMetricsToken(options.metricsTokenFile);
        if (!token)
            return token.error();
        m_metricsToken = std::move(*token);
    }

    // The keys are the accounts' (or the server's); where a task may reach, the operator's; the cluster's
    // agents come in through one listener.
    const auto face = [&](control::ControlEngine& engine) -> Result<control::FaceSetup> {
        if (auto agents = listenForAgents(options, engine.tokens()); !agents)
            return agents.error();
        control::FaceSetup setup;
        control::FaceHooks& hooks = setup.hooks;
        hooks.providerKey = [this](const control::TaskRecord& task, const control::ProviderConfig& provider) {
            return providerKeyFor(task, provider);
        };
        // A provider endpoint a user names is connected to only outside the server's host and networks, or
        // where the operator allows; the operator's own endpoints wherever they are.
        hooks.providerAccess = [provider = options.provider, access = options.insideAccess()](
                                   const control::ProviderConfig& config) -> std::optional<control::InsideAccess> {
            if (isOperatorEndpoint(config, provider))
                return std::nullopt;
            return access;
        };
        hooks.egressAccess = options.insideAccess();
        hooks.egressPinned = options.resolve;
        hooks.egressCa = options.egressCa;
        hooks.hostSecret = [this](const control::TaskRecord& task, const std::string& name) {
            return m_accounts->taskOwnersHostSecret(task.id, name, m_providerKeySecret);
        };
        hooks.agentClis = options.agentClis;
        hooks.claims = m_leases.get();
        hooks.sandboxLabels = [this](const control::TaskRecord& task) -> Result<std::map<std::string, std::string>> {
            auto owner = m_accounts->taskOwner(task.id);
            if (!owner)
                return owner.error();
            return *owner ? sandboxLabels(**owner) : std::map<std::string, std::string>();
        };
        // What the operator gives every user of the owner's tenant: read at each launch, so what changed since
        // the last is in this one (and the skills' folder, mounted, shows a pack installed while it runs).
        hooks.ownerMcpServers = [this](const control::TaskRecord& task) {
            return m_accounts->taskOwnersTenantMcpServers(task.id);
        };
        hooks.ownerSkills = [this, root](const control::TaskRecord& task) -> Result<std::vector<std::string>> {
            auto owner = m_accounts->taskOwner(task.id);
            if (!owner)
                return owner.error();
            if (!*owner)
                return std::vector<std::string>();
            // A folder warrend cannot make (tenant-skills/ is another user's: the operator's admin made it
            // first) is no reason to refuse the task: it runs without the tenant's skills.
            auto dir = accounts::prepareTenantSkillsDir(root, (*owner)->tenantName);
            return dir ? std::vector<std::string>{dir->string()} : std::vector<std::string>();
        };
        // The owner's quota of idle time, at each launch: a quota the operator lowered since binds the next run.
        hooks.ownerIdleSleep = [this](const control::TaskRecord& task) -> Result<std::optional<std::uint64_t>> {
            auto owner = m_accounts->taskOwner(task.id);
            if (!owner)
                return owner.error();
            if (!*owner)
                return std::optional<std::uint64_t>();
            auto quotas = m_accounts->quotas((*owner)->userId);
            if (!quotas)
                return quotas.error();
            return accounts::effectiveLimits({}, quotas->user, quotas->tenant)
                .get(accounts::LimitName::IdleSleepSec)
                .value;
        };
        if (m_agents) {
            hooks.cluster.agentAddress = m_agentAddress.substr(4); // without "tcp:"
            hooks.cluster.serviceAddress = options.agentService;
            hooks.cluster.peer = options.agentPeer;
            if (hooks.cluster.peer) // the policy names the port the listener bound, on warrend's pod
                hooks.cluster.peer->port = m_agents->port();
            hooks.cluster.runtimeClass = options.runtimeClass;
            hooks.clusterAgents = m_agents.get();
        }
        setup.maxConcurrent = options.maxTasks;
        setup.approvalRules = engine.defaultApprovalRules();
        setup.idleSleep = std::chrono::seconds(options.idleSleepSec);
        setup.warmSandboxes = static_cast<int>(options.warmContainers);
        return setup;
    };
    auto engine =
        control::ControlEngine::open({*data, control::storeOpener(options.databaseUrl, holder), {}, {}}, face);
    if (!engine)
        return engine.error();
    if (auto fenced = m_accounts->fenceEventWrites(); !fenced)
        return fenced;
    m_engine = std::move(*engine);
    // The accounts' connection counts its errors with the engine's.
    m_accounts->connection().observeErrors(
        [metrics = &m_engine->metrics()](const Error& error) { metrics->databaseError(error.code); });
    control::Store& store = m_engine->store();
    control::TaskManager& manager = m_engine->tasks();
    m_leases->start(manager, store, m_engine->metrics());
    m_quotas = std::make_unique<Quotas>(*m_accounts, store);
    m_waiting = std::make_unique<WaitingTasks>(*m_accounts, store, manager);
    // The operator may raise a quota with `warrend admin` (another process) at any time.
    auto* offer = new QTimer(this);
    offer->setInterval(kOfferSlotsEvery);
    connect(offer, &QTimer::timeout, this, &Warrend::offerSlots);
    offer->start();
    m_streams = std::make_unique<EventStreams>(
        store, [&store](const std::string& id) { return queuedOrRunning(store.task(id)); });
    // What only the replica running a task can do, asked of it by the one a client asked (docs/SERVER.md,
    // "Replicas"), and carried out here for the tasks this one runs.
    m_requests = std::make_unique<ReplicaRequests>(
        *m_accounts,
        [&manager](const std::string& id, const ReplicaRequest& request, const ReplicaRequests::Done& done) {
            serveReplicaRequest(manager, id, request, done);
        },
        [&manager] { return manager.claimedHere(); });
    connect(m_requests.get(), &ReplicaRequests::problem, this, &Warrend::storeProblem);
    // Another warrend over the same database may run the tasks these streams follow: its commits are heard
    // as notifications (docs/SERVER.md, "Replicas"). Only a PostgreSQL store has them (openStore's rule).
    if (control::isPostgresUrl(options.databaseUrl)) {
        m_notifications = std::make_unique<TaskNotifications>(options.databaseUrl);
        connect(m_notifications.get(), &TaskNotifications::taskChanged, this,
                [this](const std::string& id) { m_streams->wake(id); });
        connect(m_notifications.get(), &TaskNotifications::anythingMayHaveChanged, this,
                [this] { m_streams->wakeEveryone(); });
        connect(m_notifications.get(), &TaskNotifications::logLine, this, &Warrend::storeProblem);
        connect(m_notifications.get(), &TaskNotifications::requestWaiting, m_requests.get(),
                &ReplicaRequests::requestWaiting);
        connect(m_notifications.get(), &TaskNotifications::requestAnswered, m_requests.get(),
                &ReplicaRequests::requestAnswered);
    }
    // The users' webhooks hear of a task's creation (TasksApi), each run's start and how each run ended.
    m_webhookDispatcher = std::make_unique<WebhookDispatcher>(
        options.insideAccess(), m_engine->metrics(),
        [this](const std::string& delivery) { (void)m_accounts->removeWebhookDelivery(delivery); });
    m_webhooks = std::make_unique<TaskWebhooks>(*m_accounts, *m_webhookDispatcher, options.insideAccess());
    connect(&m_engine->events(), &control::StoredEvents::eventStored, this,
            [this](const std::string& id, const nlohmann::json& event) {
                m_streams->eventStored(id, event);
                const std::string type = event.is_object() ? event.value("type", "") : "";
                if (type == protocol::event_type::kTaskStarted || type == protocol::event_type::kTaskResumed)
                    m_webhooks->taskEvent(id, wire::WebhookEvent::TaskStarted, TaskStatus::Running);
            });
    connect(&m_engine->events(), &control::StoredEvents::problem, this, &Warrend::storeProblem);
    connect(&manager, &control::TaskManager::taskFinished, this, [this](const std::string& id) { runEnded(id); });
    connect(&manager, &control::TaskManager::outputPaused, this,
            [this](const std::string& id, bool paused, std::size_t uncommitted) {
                emit storeProblem(QString::fromStdString(
                    "task " + id + ": " + std::to_string(uncommitted) + " events wait for the database; " +
                    (paused ? "the agent waits until they are stored" : "the agent goes on")));
            });

    ServeOptions kept = options;
    kept.dataDir = root;
    m_work = std::make_unique<DiskWork>(kDiskWorkers, kDiskWorkersPerUser);
    m_parts = std::unique_ptr<ServerParts>(new ServerParts{
        store, *m_accounts, manager, *m_streams, *m_quotas, *m_work, m_engine->metrics(), *m_webhooks,
        *m_requests, ServerPaths{root}, kept, control::storeOpener(options.databaseUrl, holder), holder});
    m_retentionDays = options.retentionDays;
    m_retention = std::make_unique<control::RetentionSweep>(
        store, m_engine->data(), [this](const control::TaskRecord& task) { return retentionDays(task); },
        [paths = ServerPaths{root}](const control::TaskRecord& task) {
            return std::vector<std::string>{paths.workspace(task.id), paths.script(task.id)};
        },
        [this] { return m_accounts->tasksDueForRemoval(m_retentionDays, kRetentionBatch); });
    auto* hourly = new QTimer(this);
    connect(hourly, &QTimer::timeout, this, &Warrend::sweepRetention);
    hourly->start(std::chrono::hours(1));
    return Ok{};
}

// The shortest period set: serve --retention-days, the owner's quota (user, then tenant); none set: 0, kept.
std::uint64_t Warrend::retentionDays(const control::TaskRecord& task) {
    std::uint64_t days = m_retentionDays;
    auto owner = m_accounts->taskOwner(task.id);
    if (!owner || !*owner)
        return days;
    auto quotas = m_accounts->quotas((*owner)->userId);
    if (!quotas)
        return days;
    const auto quota = accounts::effectiveLimits({}, quotas->user, quotas->tenant)
                           .get(accounts::LimitName::RetentionDays)
                           .value;
    return quota && (days == 0 || *quota < days) ? *quota : days;
}

void Warrend::sweepRetention() {
    auto due = m_retention->due();
    if (!due)
        return emit storeProblem(QString::fromStdString("retention: " + due.error().message));
    for (const auto& id : *due) {
        auto claim = m_retention->claim(id);
        if (!claim) {
            emit storeProblem(
                QString::fromStdString("retention of task " + id + ": " + claim.error().message));
            continue;
        }
        if (!*claim) // queued, running or replied to since: another sweep
            continue;
        m_work->run<Status>(
            "retention", [paths = (*claim)->paths] { return control::removeParts(paths); },
            [this, id, lock = (*claim)->lock](Status removed) {
                if (removed)
                    removed = m_retention->recordRemoved(id);
                if (!removed)
                    emit storeProblem(QString::fromStdString("retention of task " + id + ": " +
                                                             removed.error().message +
                                                             "; tried again within the hour"));
            });
    }
}

// One listener for the agents of every cluster task, told apart by their tokens' task. Pods are told the
// advertised address, else the one listened on with the port bound (port 0 asks for any).
Status Warrend::listenForAgents(const ServeOptions& options, control::TaskTokens& tokens) {
    if (options.agentAddress.empty())
        return Ok{};
    auto listener = control::AgentListener::listenTcp(options.agentAddress, tokens);
    if (!listener)
        return makeError(listener.error().code, "--agent-address: " + listener.error().message);
    m_agents = std::move(*listener);
    connect(m_agents.get(), &control::AgentListener::refused, this,
            [this](const QString& why) { emit storeProblem(why); });
    if (!options.agentAdvertise.empty()) {
        m_agentAddress = "tcp:" + options.agentAdvertise;
    } else {
        const std::string& given = options.agentAddress;
        m_agentAddress = "tcp:" + given.substr(0, given.rfind(':') + 1) + std::to_string(m_agents->port());
    }
    return Ok{};
}

// The owner's own key for the provider, else the server-wide one when the provider is the endpoint the
// operator configured it for (ProviderEndpoints). An owner's key that cannot be read or
// opened fails the task: never another key in its place.
Result<std::string> Warrend::providerKeyFor(const control::TaskRecord& task,
                                            const control::ProviderConfig& provider) {
    auto own = m_accounts->taskOwnersProviderKey(task.id, provider.keyName, m_providerKeySecret);
    if (!own)
        return own.error();
    if (*own)
        return std::move(**own);
    // The operator's key goes to the endpoint it was given for, never to one a user names: that would hand
    // it to whoever runs the server at that URL.
    if (!isOperatorEndpoint(provider, m_parts->options.provider))
        return makeError(ErrorCode::InvalidArgument,
                         "the server's " + provider.keyName + " key is sent only to the endpoints the operator "
                         "configured it for, not to " + provider.baseUrl + ": store your own key for it with "
                         "PUT /v1/me/provider-keys/" + provider.keyName);
    auto serverWide = control::lookUpKey(provider, m_secrets.get());
    if (!serverWide && serverWide.error().code == ErrorCode::NotFound) // its advice is the desktop's
        return makeError(ErrorCode::NotFound, "no API key for " + provider.name +
                                                  ": store your own with PUT /v1/me/provider-keys/" +
                                                  provider.keyName +
                                                  ", or ask the operator to give warrend one (" +
                                                  control::keyEnvironmentVariable(provider.keyName) + ")");
    return serverWide;
}

Status Warrend::listen(const ServeOptions& options) {
    http::Router router;
    addServerInfoRoutes(router, *m_parts);
    addUploadRoutes(router, *m_parts);
    addTaskRoutes(router, *m_parts);
    addTaskMoveRoutes(router, *m_parts);
    addEventRoutes(router, *m_parts);
    addProviderKeyRoutes(router, *m_parts, m_providerKeySecret);
    addHostSecretRoutes(router, *m_parts, m_providerKeySecret);
    addMcpServerRoutes(router, *m_parts);
    addMetricsRoutes(router, *m_parts, m_metricsToken);
    addWebhookRoutes(router, *m_parts);
    http::HttpServerLimits limits;
    limits.maxConnectionsPerIp = options.maxConnectionsPerClient;
    m_http = std::make_unique<http::HttpServer>(std::move(router),
                                                QString::fromStdString(m_parts->paths.incoming()), limits);
    std::optional<http::TlsFiles> tls;
    if (!options.tlsCertificate.empty())
        tls = http::TlsFiles{QString::fromStdString(options.tlsCertificate),
                             QString::fromStdString(options.tlsKey)};
    QHostAddress host;
    if (!host.setAddress(QString::fromStdString(options.host)))
        return makeError(ErrorCode::InvalidArgument, "--listen " + options.host + ": not an IP address");
    auto port = m_http->listen(host, options.port, tls);
    if (!port)
        return port.error();
    m_port = *port;
    return Ok{};
}

// What a dead server left: its webhook deliveries are sent; the tasks it left running or queued that no other
// replica holds are adopted (TaskLeases: the running ones resume from their checkpoints); a reservation whose
// task does not run (it ended while the server died) goes back to its tenant.
void Warrend::resumeLeftOver() {
    m_webhooks->resumeWaiting(); // the deliveries a dead server kept
    sweepRetention();
    (void)m_leases->beat();
    // What adoption does not see: a task answered while asleep whose wake the dead server did not queue.
    for (const auto& id : m_engine->tasks().recoverInterrupted()) {
        if (auto resumed = m_engine->tasks().resume(id, {}); !resumed)
            emit storeProblem(
                QString::fromStdString("cannot resume task " + id + ": " + resumed.error().message));
    }
    auto reserved = m_accounts->reservedTasks();
    if (!reserved)
        return emit storeProblem(QString::fromStdString(reserved.error().message));
    for (const auto& id : *reserved) {
        auto task = m_engine->store().task(id);
        if (task && !queuedOrRunning(task) && !m_engine->tasks().isActive(id))
            (void)m_quotas->runEnded(id);
    }
    offerSlots();
}

void Warrend::runEnded(const std::string& taskId) {
    if (!m_engine->tasks().isActive(taskId)) {
        if (auto task = m_engine->store().task(taskId); task && *task)
            if (const auto event = TaskWebhooks::endEvent((*task)->status))
                m_webhooks->taskEvent(taskId, *event, (*task)->status);
        if (auto ended = m_quotas->runEnded(taskId); !ended)
            emit storeProblem(QString::fromStdString("task " + taskId + ": " + ended.error().message));
        offerSlots();
    }
    m_streams->taskFinished(taskId);
}

void Warrend::offerSlots() {
    if (auto offered = m_waiting->offerSlots(); !offered)
        emit storeProblem(QString::fromStdString(offered.error().message));
}

} // namespace warren::server
