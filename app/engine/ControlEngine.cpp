#include "app/engine/ControlEngine.h"

#include "app/engine/AgentBinary.h"
#include "app/engine/OpenFileLimit.h"
#include "app/metrics/EngineMetrics.h"
#include "app/proxy/TaskToken.h"
#include "app/tasks/SiteProfile.h"
#include "app/tasks/StoredEvents.h"
#include "app/tasks/TaskManager.h"

#include <QCoreApplication>
#include <QNetworkAccessManager>
#include <csignal>

namespace warren::control {

Result<std::unique_ptr<ControlEngine>> ControlEngine::open(EngineOptions options,
                                                           const std::function<Result<FaceSetup>(ControlEngine&)>& face) {
    // Writing to an agent (or a client of warrend) that died must be an error (EPIPE) for its owner, not the
    // end of this process.
    std::signal(SIGPIPE, SIG_IGN);
    // Hundreds of tasks' descriptors (OpenFileLimit.h). Not fatal: the tasks that fit still run.
    (void)raiseOpenFileLimit();
    std::unique_ptr<ControlEngine> engine(new ControlEngine());
    engine->m_data = options.data;
    engine->m_metrics = std::make_unique<EngineMetrics>();
    // Every connection the engine opens (its own, the writer's and the writer's reconnections) counts its
    // errors, and a connection that cannot be opened counts as one.
    const StoreOpener openStore = [open = options.openStore, metrics = engine->m_metrics.get()]() {
        auto opened = open();
        if (!opened) {
            metrics->databaseError(opened.error().code);
            return opened;
        }
        (*opened)->observeErrors([metrics](const Error& error) { metrics->databaseError(error.code); });
        return opened;
    };
    auto store = openStore();
    if (!store)
        return store.error();
    engine->m_store = std::move(*store);
    auto events = StoredEvents::open(openStore, engine->m_metrics.get());
    if (!events)
        return events.error();
    engine->m_events = std::move(*events);
    engine->m_tokens = std::make_unique<TaskTokens>();
    engine->m_network = std::make_unique<QNetworkAccessManager>();

    auto rules = parseApprovalRules(defaultApprovalRulesJson());
    if (!rules)
        return rules.error();
    engine->m_defaultRules = std::move(*rules);
    auto layers = siteProfileLayers();
    if (!layers)
        return layers.error();
    auto agent = options.agentBinary.empty()
                     ? findAgentBinary(QCoreApplication::applicationDirPath().toStdString())
                     : namedAgentBinary(options.agentBinary, "the agent binary ");
    if (!agent)
        return agent.error();
    auto setup = face(*engine);
    if (!setup)
        return setup.error();

    RunnerEnvironment environment;
    environment.store = engine->m_store.get();
    environment.metrics = engine->m_metrics.get();
    environment.events = engine->m_events.get();
    environment.tokens = engine->m_tokens.get();
    environment.network = engine->m_network.get();
    environment.data = engine->m_data;
    environment.agentBinary = std::move(*agent);
    environment.extraProfileLayers = std::move(*layers);
    for (auto& layer : options.extraProfileLayers)
        environment.extraProfileLayers.push_back(std::move(layer));
    environment.face = std::move(setup->hooks);
    environment.approvalRules = std::move(setup->approvalRules);
    environment.idleSleep = setup->idleSleep;
    environment.warmSandboxes = setup->warmSandboxes;
    engine->m_tasks = std::make_unique<TaskManager>(std::move(environment), setup->maxConcurrent);
    return engine;
}

ControlEngine::~ControlEngine() {
    m_tasks.reset(); // its runners hold on to everything else here
}

} // namespace warren::control
