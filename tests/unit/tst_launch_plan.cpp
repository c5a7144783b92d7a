// LaunchPlan: what one launch of a task's agent decides before it touches anything, row by row.

#include "app/proxy/TaskToken.h"
#include "app/tasks/AgentSandbox.h"
#include "app/tasks/LaunchPlan.h"
#include "sandbox/pod/KubeManifest.h"
#include "sandbox/policy/SandboxProfile.h"
#include "tests/support/StringLists.h"

#include <QtTest>
#include <algorithm>
#include <utility>

using warren::test::toQt;
using warren::test::toStd;
using namespace warren;
using namespace warren::control;
using nlohmann::json;

namespace {

const QString kRoot = "/data";

TaskRecord task(std::uint64_t runs = 0) {
    TaskRecord record;
    record.id = "t-1";
    record.prompt = "fix the build";
    record.workspace = "/home/u/project";
    record.runs = runs;
    return record;
}

TaskSpec spec(const QStringList& presets, const QString& overrides, const QString& network, bool demo,
              std::uint64_t timeoutSec) {
    TaskSpec result;
    result.provider = "scripted:/home/u/script.json";
    for (const auto& preset : presets)
        result.presets.push_back(preset.toStdString());
    result.overrides = json::parse(overrides.toStdString());
    result.network = network.toStdString();
    result.demo = demo;
    result.timeoutSec = timeoutSec;
    return result;
}

PlanEnvironment environment(const QString& root = kRoot, const ClusterPlacement& cluster = {}) {
    return {DataDir{root.toStdString()}, "/usr/lib/warren/warren-agent", {}, cluster, {}};
}

const sandbox::MountSpec* mountAt(const sandbox::SandboxProfile& profile, const std::string& dest) {
    for (const auto& mount : profile.mounts)
        if (mount.dest == dest)
            return &mount;
    return nullptr;
}

} // namespace

class TestLaunchPlan : public QObject {
    Q_OBJECT

private slots:
    void plansTheLaunch_data();
    void plansTheLaunch();
    void refusesBeforeAnythingRuns_data();
    void refusesBeforeAnythingRuns();
    void tokenAndStartRequest();
    void clampedLimitsComeLast();
    void aClusterTaskNeedsWhatAPodCanReach_data();
    void aClusterTaskNeedsWhatAPodCanReach();
    void aClusterPodsAgentConnectsOverTheNetwork();
    void aPodsAgentConnects_data();
    void aPodsAgentConnects();
    void aCliAgentGetsItsInstallAndTheModelSocket_data();
    void aCliAgentGetsItsInstallAndTheModelSocket();
    void aCliAgentNeedsAProviderItSpeaks_data();
    void aCliAgentNeedsAProviderItSpeaks();
    void aCliAgentOnAClusterRunsTheImages();
    void theUsersSkillsAreMountedReadOnlyForWarrensAgent();
    void theOwnersMcpServersJoinTheTasksOwn_data();
    void theOwnersMcpServersJoinTheTasksOwn();
    void tooManyMcpServersWithTheOwnersAreRefused();
    void cliAgentsAskWhatTheirSettingsWant_data();
    void cliAgentsAskWhatTheirSettingsWant();
};

void TestLaunchPlan::plansTheLaunch_data() {
    QTest::addColumn<QStringList>("presets");
    QTest::addColumn<QString>("overrides");
    QTest::addColumn<QString>("network");
    QTest::addColumn<bool>("demo");
    QTest::addColumn<QString>("memoryPrefix");
    QTest::addColumn<bool>("strict");
    QTest::addColumn<QStringList>("directories");
    QTest::addColumn<QStringList>("ownedDirs");
    QTest::addColumn<bool>("isolated"); // the sandbox's network is "none"
    QTest::addColumn<QString>("egressSocket");

    const QString state = "/data/tasks/t-1/state", output = "/data/tasks/t-1/output";
    const QString memories = "/data/memories/local";
    QTest::newRow("default") << QStringList{} << "{}"
                             << "none" << false << "local" << false << QStringList{state, output, memories}
                             << QStringList{state, output, memories} << true << "";
    QTest::newRow("empty memory prefix is local")
        << QStringList{} << R"({"memory_prefix": ""})"
        << "none" << false << "local" << false << QStringList{state, output, memories}
        << QStringList{state, output, memories} << true << "";
    QTest::newRow("filesystem memory under its own prefix")
        << QStringList{} << R"({"memory_prefix": "team/alice", "memory_backend": "filesystem"})"
        << "none" << false << "team/alice" << false << QStringList{state, output, "/data/memories/team/alice"}
        << QStringList{state, output, "/data/memories/team/alice"} << true << "";
    QTest::newRow("in-memory memory mounts none")
        << QStringList{"local-light"} << "{}"
        << "none" << false << "local" << false << QStringList{state, output} << QStringList{state, output}
        << true << "";
    QTest::newRow("safe-mode strict")
        << QStringList{"safe-mode"} << "{}"
        << "none" << false << "local" << true << QStringList{state, output, memories}
        << QStringList{state, output, memories} << true << "";
    QTest::newRow("loopback network")
        << QStringList{} << "{}"
        << "loopback" << false << "local" << false << QStringList{state, output, memories}
        << QStringList{state, output, memories} << false << "";
    QTest::newRow("allow-list network")
        << QStringList{} << "{}"
        << "allow:example.com,*.github.com:443" << false << "local" << false
        << QStringList{state, output, memories} << QStringList{state, output, memories} << false
        << "/data/tasks/t-1/egress.sock";
    QTest::newRow("allow-list network outlasts safe-mode")
        << QStringList{"safe-mode"} << "{}"
        << "allow:example.com" << false << "local" << true << QStringList{state, output, memories}
        << QStringList{state, output, memories} << false << "/data/tasks/t-1/egress.sock";
    QTest::newRow("demo workspace not handed over")
        << QStringList{} << "{}"
        << "none" << true << "local" << false << QStringList{state, output, memories}
        << QStringList{state, output, memories} << true << "";
}

void TestLaunchPlan::plansTheLaunch() {
    QFETCH(QStringList, presets);
    QFETCH(QString, overrides);
    QFETCH(QString, network);
    QFETCH(bool, demo);
    auto plan = planLaunch(task(), spec(presets, overrides, network, demo, 0), environment());
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());

    QTEST(QString::fromStdString(plan->config.memoryPrefix), "memoryPrefix");
    QTEST(QString::fromStdString(plan->start.overrides.value("memory_prefix", "")), "memoryPrefix");
    QTEST(plan->strict, "strict");
    QTEST(toQt(plan->directories), "directories");
    QTEST(toQt(plan->launch.ownedDirs), "ownedDirs");
    QTEST(QString::fromStdString(plan->egressSocket), "egressSocket");
    QCOMPARE(plan->network.kind == TaskNetwork::Kind::Allow, !plan->egressSocket.empty());

    // The layers are the sandbox as it will run: resolved here exactly as the launch resolves them.
    auto profile = sandbox::resolveProfile(plan->launch.layers);
    QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
    QCOMPARE(profile->workspaceSource, "/home/u/project");
    QTEST(profile->network == sandbox::NetworkPolicy::None, "isolated");
    const auto* stateMount = mountAt(*profile, "/state");
    QVERIFY(stateMount && stateMount->source == "/data/tasks/t-1/state");
    QFETCH(QStringList, directories);
    const auto* memoriesMount = mountAt(*profile, "/memories/" + plan->config.memoryPrefix);
    QCOMPARE(memoriesMount != nullptr, directories.size() == 3);
    QFETCH(QString, egressSocket);
    const auto* socketMount = mountAt(*profile, "/opt/warren/egress.sock");
    QCOMPARE(socketMount ? QString::fromStdString(socketMount->source) : QString(), egressSocket);
}

void TestLaunchPlan::refusesBeforeAnythingRuns_data() {
    QTest::addColumn<QStringList>("presets");
    QTest::addColumn<QString>("overrides");
    QTest::addColumn<QString>("network");
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("root");
    QTest::addColumn<QString>("message"); // a part of the error

    const QString script = "scripted:/home/u/script.json";
    QTest::newRow("bad preset") << QStringList{"no-such-preset"} << "{}"
                                << "none" << script << kRoot << "unknown preset \"no-such-preset\"";
    QTest::newRow("bad setting") << QStringList{} << R"({"no_such_setting": 1})"
                                 << "none" << script << kRoot << "no_such_setting";
    QTest::newRow("bad memory prefix") << QStringList{} << R"({"memory_prefix": "../up"})"
                                       << "none" << script << kRoot << "memory_prefix";
    QTest::newRow("bad network") << QStringList{} << "{}"
                                 << "everywhere" << script << kRoot << "everywhere";
    QTest::newRow("bad provider") << QStringList{} << "{}"
                                  << "none"
                                  << "no-such-provider" << kRoot << "no-such-provider";
    QTest::newRow("socket path too long") << QStringList{} << "{}"
                                          << "allow:example.com" << script << "/" + QString(100, 'd')
                                          << "is too long for a Unix socket; pass a shorter --data-dir";
    QTest::newRow("agent's socket path too long") << QStringList{} << "{}"
                                                  << "kube" << script << "/" + QString(80, 'd')
                                                  << "agent's socket path";
}

void TestLaunchPlan::refusesBeforeAnythingRuns() {
    QFETCH(QStringList, presets);
    QFETCH(QString, overrides);
    QFETCH(QString, network);
    QFETCH(QString, provider);
    QFETCH(QString, root);
    QFETCH(QString, message);
    TaskSpec taskSpec = spec(presets, overrides, network == "kube" ? "none" : network, false, 0);
    taskSpec.provider = provider.toStdString();
    if (network == "kube") // the row's backend: its agent's socket is in the task's directory
        taskSpec.backend = sandbox::Backend::Kube;
    auto plan = planLaunch(task(), taskSpec, environment(root));
    QVERIFY(!plan);
    QVERIFY2(plan.error().message.find(message.toStdString()) != std::string::npos,
             plan.error().message.c_str());
}

void TestLaunchPlan::tokenAndStartRequest() {
    auto once = planLaunch(task(), spec({}, "{}", "none", false, 0), environment());
    QVERIFY(once);
    QCOMPARE(toQt(once->tokenScopes), (QStringList{scope::kLlm, scope::kMemory, scope::kApproval}));
    QCOMPARE(once->tokenLifetime, std::chrono::seconds(7 * 24 * 3600)); // no timeout: a week
    QCOMPARE(once->run, 1u);
    QCOMPARE(once->start.taskId, "t-1");
    QCOMPARE(once->start.prompt, "fix the build");
    QVERIFY(!once->start.token); // issued when the plan is carried out
    // The facts of the run the agent tells the model.
    QCOMPARE(once->start.sandbox.value_or(""), "bwrap");
    QCOMPARE(once->start.network.value_or(""), "none");
    QCOMPARE(once->start.provider.value_or(""), "scripted");
    QVERIFY(!once->start.model);
    QCOMPARE(once->provider.kind, ProviderConfig::Kind::Scripted);
    QVERIFY(once->provider.apiKey.empty());

    auto resumed = planLaunch(task(2), spec({"safe-mode"}, "{}", "none", false, 60), environment());
    QVERIFY(resumed);
    QCOMPARE(resumed->tokenLifetime, std::chrono::seconds(60 + 300)); // outlives the timeout
    QCOMPARE(resumed->run, 3u);
    QCOMPARE(resumed->start.presets, std::vector<std::string>{"safe-mode"});

    TaskSpec remote = spec({}, "{}", "allow:pypi.org", false, 0);
    remote.provider = "anthropic";
    remote.model = "claude-sonnet-4-5";
    remote.backend = sandbox::Backend::Podman;
    auto withModel = planLaunch(task(), remote, environment());
    QVERIFY(withModel);
    QCOMPARE(withModel->start.sandbox.value_or(""), "podman");
    QCOMPARE(withModel->start.network.value_or(""), "allow:pypi.org");
    QCOMPARE(withModel->start.provider.value_or(""), "anthropic");
    QCOMPARE(withModel->start.model.value_or(""), "claude-sonnet-4-5");
}

// A pod on a cluster reaches nothing of this host but warrend's listener for agents: without one, or with what
// needs this host's sockets or directories, the plan refuses, naming what to change, before anything is made.
void TestLaunchPlan::aClusterTaskNeedsWhatAPodCanReach_data() {
    QTest::addColumn<QString>("address");
    QTest::addColumn<QString>("overrides");
    QTest::addColumn<QString>("network");
    QTest::addColumn<QString>("why");
    QTest::newRow("no listener for agents") << "" << R"({"memory_backend":"host"})" << "none" << "--agent-address HOST:PORT";
    QTest::newRow("an egress proxy on this host")
        << "warrend:8421" << R"({"memory_backend":"host"})" << "allow:pypi.org" << "--network none";
    QTest::newRow("memories in a directory of this host")
        << "warrend:8421" << "{}" << "none" << "memory_backend=host";
}

void TestLaunchPlan::aClusterTaskNeedsWhatAPodCanReach() {
    QFETCH(QString, address);
    QFETCH(QString, overrides);
    QFETCH(QString, network);
    QFETCH(QString, why);
    TaskSpec onCluster = spec({}, overrides, network, false, 0);
    onCluster.backend = sandbox::Backend::Kubernetes;
    auto plan =
        planLaunch(task(), onCluster, environment(kRoot, {address.toStdString(), std::nullopt, "", ""}));
    QVERIFY(!plan);
    QCOMPARE(plan.error().code, ErrorCode::Unsupported);
    QVERIFY2(plan.error().message.find(why.toStdString()) != std::string::npos, plan.error().message.c_str());
}

// The pod's agent is the image's, connecting to the address warrend advertises, with the token its Secret
// mounts; nothing of this host is mounted, so the cluster variant of the Pod renders (a host bind would be
// refused there), its command the plan's.
void TestLaunchPlan::aClusterPodsAgentConnectsOverTheNetwork() {
    TaskSpec onCluster = spec({}, R"({"memory_backend":"host"})", "none", false, 0);
    onCluster.backend = sandbox::Backend::Kubernetes;
    const sandbox::ControlPlanePeer warrend{{{"app.kubernetes.io/name", "warrend"}}, "warren", 8421, ""};
    auto plan =
        planLaunch(task(), onCluster, environment(kRoot, {"warrend.warren.svc:8421", warrend, "gvisor", ""}));
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    QCOMPARE(plan->clusterAddress, std::string("tcp:warrend.warren.svc:8421"));
    QVERIFY(plan->channelDir.empty());
    QVERIFY(plan->launch.ownedDirs.empty());
    // The token is the Secret's, read where the command reads it; warrend's pods are the pod's one peer.
    QCOMPARE(plan->launch.tokenDir, std::string(kChannelDirInSandbox));
    QVERIFY(plan->launch.taskToken.empty()); // issued when the plan is carried out
    QVERIFY(plan->launch.controlPlane);
    QCOMPARE(plan->launch.controlPlane->podLabels, warrend.podLabels);
    QCOMPARE(plan->launch.controlPlane->port, 8421);
    QCOMPARE(plan->launch.runtimeClass, std::string("gvisor"));
    QVERIFY(std::find(plan->tokenScopes.begin(), plan->tokenScopes.end(), scope::kChannel) != plan->tokenScopes.end());
    QCOMPARE(toQt(plan->launch.command),
             (QStringList{"warren-agent", "serve", "--workspace", "/workspace", "--state", "/state", "--output",
                          "/output", "--connect", "tcp:warrend.warren.svc:8421", "--token-file",
                          "/opt/warren/channel/token", "--carry-trees"}));
    // A replica that names itself (its pod's address) and every replica's Service: the agent connects again
    // there too once its connection is lost (--agent-service).
    auto replica =
        planLaunch(task(), onCluster,
                   environment(kRoot, {"10.1.2.3:8421", warrend, "gvisor", "warrend.warren.svc:8421"}));
    QVERIFY2(replica, replica ? "" : replica.error().message.c_str());
    QCOMPARE(toQt(replica->launch.command).mid(8),
             (QStringList{"--connect", "tcp:10.1.2.3:8421", "--token-file", "/opt/warren/channel/token",
                          "--carry-trees", "--reconnect", "tcp:warrend.warren.svc:8421"}));
    QVERIFY(std::find(plan->tokenScopes.begin(), plan->tokenScopes.end(), scope::kTrees) != plan->tokenScopes.end());
    QCOMPARE(plan->carriedTrees.size(), 3u);
    QCOMPARE(plan->carriedTrees.at("state"), plan->directories.at(0));
    QCOMPARE(plan->carriedTrees.at("output"), plan->directories.at(1));
    QVERIFY(std::find(plan->directories.begin(), plan->directories.end(), plan->carriedTreesScratch) !=
            plan->directories.end());
    auto profile = sandbox::resolveProfile(plan->launch.layers);
    QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
    for (const char* scratch : {"/state", "/output"}) {
        const auto* mount = mountAt(*profile, scratch);
        QVERIFY(mount);
        QCOMPARE(mount->type, sandbox::MountSpec::Type::Tmpfs);
    }
    QVERIFY(!mountAt(*profile, kAgentPathInSandbox) && !mountAt(*profile, kChannelDirInSandbox));

    sandbox::KubeRequest pod;
    pod.name = "warren-t-1";
    pod.namespaceName = "warren-sandboxes";
    pod.command = plan->launch.command;
    pod.user.uid = pod.user.gid = 1000;
    pod.taskToken = "the-token";
    pod.tokenDir = plan->launch.tokenDir;
    pod.controlPlane = plan->launch.controlPlane;
    pod.runtimeClass = plan->launch.runtimeClass;
    pod.seccompProfile = "warren-seccomp-0123456789abcdef.json";
    auto manifests = sandbox::buildKubeManifests(*profile, pod);
    QVERIFY2(manifests, manifests ? "" : manifests.error().message.c_str());
    QCOMPARE(manifests->pod["spec"]["containers"][0]["command"], json(plan->launch.command));
    QCOMPARE(manifests->pod["spec"]["runtimeClassName"], json("gvisor"));
    QCOMPARE(manifests->networkPolicy["spec"]["egress"][0]["ports"][0]["port"], json(8421));
    for (const auto& volume : manifests->pod["spec"]["volumes"])
        QVERIFY2(!volume.contains("hostPath"), volume.dump().c_str());
}

// A pod has no stdin: its agent connects to a socket in a directory of the task's own, mounted read-only with
// the token beside it, and the token may say hello on it. Other backends keep stdin and stdout.
void TestLaunchPlan::aPodsAgentConnects_data() {
    QTest::addColumn<sandbox::Backend>("backend");
    QTest::newRow("kube") << sandbox::Backend::Kube;
    QTest::newRow("podman") << sandbox::Backend::Podman; // a warm container has no stdin of its task's
}

void TestLaunchPlan::aPodsAgentConnects() {
    QFETCH(sandbox::Backend, backend);
    TaskSpec kube = spec({}, "{}", "none", false, 0);
    kube.backend = backend;
    auto plan = planLaunch(task(), kube, environment());
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    const std::string dir = kRoot.toStdString() + "/tasks/t-1/channel";
    QCOMPARE(plan->channelDir, dir);
    QCOMPARE(toQt(plan->launch.command).mid(8), (QStringList{"--connect", "unix:/opt/warren/channel/agent.sock",
                                                             "--token-file", "/opt/warren/channel/token"}));
    QVERIFY(plan->carriedTrees.empty()); // the pod on this host mounts the trees
    QVERIFY(std::find(plan->launch.ownedDirs.begin(), plan->launch.ownedDirs.end(), dir) !=
            plan->launch.ownedDirs.end()); // the sandbox's uid reads the token and connects
    QVERIFY(std::find(plan->tokenScopes.begin(), plan->tokenScopes.end(), scope::kChannel) != plan->tokenScopes.end());
    auto profile = sandbox::resolveProfile(plan->launch.layers);
    QVERIFY(profile);
    const auto* mount = mountAt(*profile, kChannelDirInSandbox);
    QVERIFY(mount);
    QCOMPARE(mount->source, dir);
    QCOMPARE(mount->type, sandbox::MountSpec::Type::RoBind);

    for (auto stdioBackend : {sandbox::Backend::Bwrap, sandbox::Backend::Docker}) {
        TaskSpec other = spec({}, "{}", "none", false, 0);
        other.backend = stdioBackend;
        auto stdio = planLaunch(task(), other, environment());
        QVERIFY(stdio);
        QVERIFY(stdio->channelDir.empty() && stdio->launch.command.size() == 8); // no --connect
        QVERIFY(std::find(stdio->tokenScopes.begin(), stdio->tokenScopes.end(), scope::kChannel) ==
                stdio->tokenScopes.end());
        auto otherProfile = sandbox::resolveProfile(stdio->launch.layers);
        QVERIFY(otherProfile && !mountAt(*otherProfile, kChannelDirInSandbox));
    }
}

// A server's clamped limits win over every other layer, the site's included, and the rest of the
// profile's limits stay as the layers made them.
void TestLaunchPlan::clampedLimitsComeLast() {
    TaskSpec clamped = spec({}, "{}", "none", false, 0);
    clamped.limits = protocol::LimitsAppliedData{{{"memory_mb", 256}, {"pids", 32}}, {{"memory_mb", "tenant"}}};
    PlanEnvironment site = environment();
    site.extraProfileLayers = {json{{"limits", {{"memory_mb", 4096u}, {"open_files", 77u}}}}};
    auto plan = planLaunch(task(), clamped, site);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    auto profile = sandbox::resolveProfile(plan->launch.layers);
    QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
    QCOMPARE(profile->limits.memoryMb, 256u);
    QCOMPARE(profile->limits.pids, 32u);
    QCOMPARE(profile->limits.openFiles, 77u);

    auto unclamped = planLaunch(task(), spec({}, "{}", "none", false, 0), site);
    QVERIFY(unclamped);
    auto siteProfile = sandbox::resolveProfile(unclamped->launch.layers);
    QVERIFY(siteProfile);
    QCOMPARE(siteProfile->limits.memoryMb, 4096u);
}

// The user's skills folders: read-only at /opt/warren/skills/N, named in skills_dirs after the user's own
// entries; never for a CLI agent (which reads its own) nor a pod (no host folder reaches a node).
void TestLaunchPlan::theUsersSkillsAreMountedReadOnlyForWarrensAgent() {
    PlanEnvironment site = environment();
    site.userSkills = {"/home/u/.claude/skills", "/home/u/.agents/skills"};
    auto plan = planLaunch(task(), spec({}, R"({"skills_dirs": ["/workspace/more"]})", "none", false, 0), site);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    QCOMPARE(plan->start.overrides["skills_dirs"],
             json({"/workspace/more", "/opt/warren/skills/0", "/opt/warren/skills/1"}));
    QCOMPARE(plan->config.skillsDirs.size(), std::size_t(3));
    auto profile = sandbox::resolveProfile(plan->launch.layers);
    QVERIFY(profile);
    for (const auto& [dest, source] : {std::pair{"/opt/warren/skills/0", "/home/u/.claude/skills"},
                                       std::pair{"/opt/warren/skills/1", "/home/u/.agents/skills"}}) {
        const auto* mount = mountAt(*profile, dest);
        QVERIFY2(mount && mount->source == source && mount->type == sandbox::MountSpec::Type::RoBind && mount->optional,
                 dest);
    }
    TaskSpec cli = spec({}, "{}", "none", false, 0);
    cli.agent = protocol::AgentKind::ClaudeCode;
    cli.provider = "anthropic";
    cli.model = "m";
    auto cliPlan = planLaunch(task(), cli, site, CliInstall{"/usr/bin/claude", false, "/usr/bin/claude", {}});
    QVERIFY2(cliPlan, cliPlan ? "" : cliPlan.error().message.c_str());
    QVERIFY(!cliPlan->start.overrides.contains("skills_dirs"));
    auto cliProfile = sandbox::resolveProfile(cliPlan->launch.layers);
    QVERIFY(cliProfile && !mountAt(*cliProfile, "/opt/warren/skills/0"));
}

// The owner's MCP servers (warrend: their tenant's) join the task's mcp_servers; a server of the same name the
// task names is the task's; a CLI agent, which reads its own configuration, is given none.
void TestLaunchPlan::theOwnersMcpServersJoinTheTasksOwn_data() {
    QTest::addColumn<QString>("own");
    QTest::addColumn<QString>("owners");
    QTest::addColumn<QString>("expected");
    QTest::newRow("the owner's alone") << "{}" << R"({"docs": {"command": "docs-server"}})"
                                       << R"({"docs": {"command": "docs-server"}})";
    QTest::newRow("both, side by side")
        << R"({"mcp_servers": {"mine": {"command": "my-server"}}})"
        << R"({"docs": {"type": "http", "url": "https://docs.example/mcp", "headers": {"X-Key": "k"}}})"
        << R"({"docs": {"type": "http", "url": "https://docs.example/mcp", "headers": {"X-Key": "k"}},
              "mine": {"command": "my-server"}})";
    QTest::newRow("the task's own of the same name wins")
        << R"({"mcp_servers": {"docs": {"command": "my-docs", "args": ["--local"]}}})"
        << R"({"docs": {"command": "docs-server", "env": {"TOKEN": "t"}}, "issues": {"command": "issues"}})"
        << R"({"docs": {"command": "my-docs", "args": ["--local"]}, "issues": {"command": "issues"}})";
    QTest::newRow("none from the owner") << R"({"mcp_servers": {"mine": {"command": "m"}}})" << "{}"
                                         << R"({"mine": {"command": "m"}})";
}

void TestLaunchPlan::theOwnersMcpServersJoinTheTasksOwn() {
    QFETCH(QString, own);
    QFETCH(QString, owners);
    QFETCH(QString, expected);
    PlanEnvironment site = environment();
    site.ownerMcpServers = json::parse(owners.toStdString());
    auto plan = planLaunch(task(), spec({}, own, "none", false, 0), site);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    const json want = json::parse(expected.toStdString());
    QCOMPARE(plan->start.overrides.value("mcp_servers", json::object()), want);
    QCOMPARE(plan->config.mcpServers, want);

    TaskSpec cli = spec({}, "{}", "none", false, 0);
    cli.agent = protocol::AgentKind::ClaudeCode;
    cli.provider = "anthropic";
    cli.model = "m";
    auto cliPlan = planLaunch(task(), cli, site, CliInstall{"/usr/bin/claude", false, "/usr/bin/claude", {}});
    QVERIFY2(cliPlan, cliPlan ? "" : cliPlan.error().message.c_str());
    QVERIFY(!cliPlan->start.overrides.contains("mcp_servers"));
}

void TestLaunchPlan::tooManyMcpServersWithTheOwnersAreRefused() {
    PlanEnvironment site = environment();
    json own = json::object();
    for (int i = 0; i < 20; ++i) {
        site.ownerMcpServers["tenant" + std::to_string(i)] = {{"command", "t"}};
        own["own" + std::to_string(i)] = {{"command", "o"}};
    }
    auto plan = planLaunch(task(), spec({}, QString::fromStdString(json{{"mcp_servers", own}}.dump()), "none", false, 0), site);
    QVERIFY(!plan);
    QVERIFY2(plan.error().message.find("the task's 20 MCP servers (mcp_servers) and its tenant's 20 make 40") !=
                 std::string::npos,
             plan.error().message.c_str());
}

void TestLaunchPlan::aCliAgentGetsItsInstallAndTheModelSocket_data() {
    QTest::addColumn<int>("agent");
    QTest::addColumn<QString>("provider");
    QTest::addColumn<bool>("directory");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("mountedAt");
    QTest::newRow("claude-code: one executable") << int(protocol::AgentKind::ClaudeCode) << "anthropic" << false
                                                 << "/usr/lib/node_modules/claude.exe" << "/opt/warren/cli/claude"
                                                 << "/opt/warren/cli/claude";
    QTest::newRow("codex: its vendor directory") << int(protocol::AgentKind::Codex) << "openai" << true
                                                 << "/usr/lib/node_modules/vendor" << "/opt/warren/cli/bin/codex"
                                                 << "/opt/warren/cli";
}

void TestLaunchPlan::aCliAgentGetsItsInstallAndTheModelSocket() {
    QFETCH(int, agent);
    QFETCH(QString, provider);
    QFETCH(bool, directory);
    QFETCH(QString, source);
    QFETCH(QString, program);
    QFETCH(QString, mountedAt);
    TaskSpec cli = spec({}, "{}", "none", false, 0);
    cli.agent = protocol::AgentKind(agent);
    cli.provider = provider.toStdString();
    cli.model = "m";
    const CliInstall install{source.toStdString(), directory, program.toStdString(), {}};
    auto plan = planLaunch(task(), cli, environment(), install);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    QVERIFY(plan->cli == install);
    QCOMPARE(plan->modelSocket, std::string("/data/tasks/t-1/model.sock"));
    auto profile = sandbox::resolveProfile(plan->launch.layers);
    QVERIFY(profile);
    const auto* cliMount = mountAt(*profile, mountedAt.toStdString());
    QVERIFY(cliMount);
    QCOMPARE(cliMount->source, source.toStdString());
    QCOMPARE(cliMount->type, sandbox::MountSpec::Type::RoBind); // the sandbox cannot change the user's install
    const auto* socket = mountAt(*profile, kModelSocketInSandbox);
    QVERIFY(socket);
    QCOMPARE(socket->source, plan->modelSocket);
    // Its HTTP to the forwarder needs the sandbox's own loopback; nothing routes out of it.
    QCOMPARE(profile->network, sandbox::NetworkPolicy::Loopback);
    // The agent is told to run the CLI, where the sandbox has it, and where its model is.
    QVERIFY(plan->start.cli);
    QCOMPARE(plan->start.cli->kind, protocol::AgentKind(agent));
    QCOMPARE(plan->start.cli->program, program.toStdString());
    QCOMPARE(plan->start.cli->modelSocket, std::string(kModelSocketInSandbox));
    QCOMPARE(plan->start.cli->model, std::string("m"));

    // Warren's own agent has neither.
    auto own = planLaunch(task(), spec({}, "{}", "none", false, 0), environment());
    QVERIFY(own);
    QVERIFY(!own->cli);
    QVERIFY(!own->start.cli);
    QVERIFY(own->modelSocket.empty());
    auto ownProfile = sandbox::resolveProfile(own->launch.layers);
    QVERIFY(ownProfile);
    QVERIFY(!mountAt(*ownProfile, kModelSocketInSandbox));
}

void TestLaunchPlan::aCliAgentNeedsAProviderItSpeaks_data() {
    QTest::addColumn<int>("agent");
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("named");
    QTest::newRow("claude-code on openai") << int(protocol::AgentKind::ClaudeCode) << "openai" << "--provider anthropic";
    QTest::newRow("claude-code on ollama") << int(protocol::AgentKind::ClaudeCode) << "ollama" << "--provider anthropic";
    QTest::newRow("codex on anthropic") << int(protocol::AgentKind::Codex) << "anthropic" << "--provider openai";
    QTest::newRow("codex on a script") << int(protocol::AgentKind::Codex) << "scripted:/s.json" << "--provider openai";
}

void TestLaunchPlan::aCliAgentNeedsAProviderItSpeaks() {
    QFETCH(int, agent);
    QFETCH(QString, provider);
    QFETCH(QString, named);
    TaskSpec cli = spec({}, "{}", "none", false, 0);
    cli.agent = protocol::AgentKind(agent);
    cli.provider = provider.toStdString();
    cli.model = "m";
    auto plan = planLaunch(task(), cli, environment(), CliInstall{"/x", false, "/opt/warren/cli/x", {}});
    QVERIFY(!plan);
    QVERIFY2(QString::fromStdString(plan.error().message).contains(named), plan.error().message.c_str());
}

// A cluster's pod has nothing of this host: the CLI is its image's, by its command name, and its model calls
// cross warrend's agents' listener with the task token (llm scope), not a socket of this host.
void TestLaunchPlan::aCliAgentOnAClusterRunsTheImages() {
    TaskSpec cli = spec({}, R"({"memory_backend":"host"})", "none", false, 0);
    cli.agent = protocol::AgentKind::ClaudeCode;
    cli.provider = "anthropic";
    cli.model = "m";
    cli.backend = sandbox::Backend::Kubernetes;
    auto image = taskCli(cli.agent, "", {}, cli.backend);
    QVERIFY(image && *image);
    auto plan = planLaunch(task(), cli, environment(kRoot, {"warrend:8421", std::nullopt, "", ""}), **image);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    QVERIFY(plan->modelSocket.empty());
    QCOMPARE(plan->clusterAddress, std::string("tcp:warrend:8421"));
    QVERIFY(plan->start.cli);
    QCOMPARE(plan->start.cli->program, std::string("claude"));
    QVERIFY(plan->start.cli->modelSocket.empty());
    for (const char* needed : {scope::kLlm, scope::kChannel})
        QVERIFY(std::find(plan->tokenScopes.begin(), plan->tokenScopes.end(), needed) !=
                plan->tokenScopes.end());
    auto profile = sandbox::resolveProfile(plan->launch.layers);
    QVERIFY(profile);
    QVERIFY(!mountAt(*profile, kModelSocketInSandbox));
    QVERIFY(!mountAt(*profile, kCliDirInSandbox));
    for (const auto& mount :
         profile->mounts) // nothing of the task's on this host: not its directories, no socket
        QVERIFY2(!QString::fromStdString(mount.source).startsWith(kRoot), mount.dest.c_str());
}

// Safe-mode (or approval_tools of the user's own) asks before writes: both CLIs put their asks to Warren's
// approvals, so such a task runs, and its CLI is told which of Warren's tools ask.
void TestLaunchPlan::cliAgentsAskWhatTheirSettingsWant_data() {
    QTest::addColumn<QStringList>("presets");
    QTest::addColumn<QString>("overrides");
    QTest::addColumn<QString>("asked");
    QTest::newRow("safe-mode") << QStringList{"safe-mode"} << "{}"
                               << "apply_patch";
    QTest::newRow("approval_tools") << QStringList{} << R"({"approval_tools": ["shell"]})"
                                    << "shell";
}

void TestLaunchPlan::cliAgentsAskWhatTheirSettingsWant() {
    QFETCH(QStringList, presets);
    QFETCH(QString, overrides);
    QFETCH(QString, asked);
    TaskSpec cli = spec(presets, overrides, "none", false, 0);
    for (const auto& [agent, provider] : {std::pair{protocol::AgentKind::Codex, "openai"},
                                          std::pair{protocol::AgentKind::ClaudeCode, "anthropic"}}) {
        cli.agent = agent;
        cli.provider = provider;
        cli.model = "m";
        QVERIFY(validateSpec(cli));
        auto plan = planLaunch(task(), cli, environment(), CliInstall{"/x", false, "/opt/warren/cli/x", {}});
        QVERIFY(plan && plan->start.cli);
        QCOMPARE(plan->start.cli->approvalTools, plan->config.approvalTools);
        const auto& tools = plan->start.cli->approvalTools;
        QVERIFY(std::find(tools.begin(), tools.end(), asked.toStdString()) != tools.end());
    }
    // No CLI sleeps while it waits (its question would go with its process): its idle_sleep_sec is refused.
    TaskSpec sleepy = cli;
    sleepy.overrides["idle_sleep_sec"] = 60;
    const auto refused = validateSpec(sleepy);
    QVERIFY(!refused);
    QVERIFY2(refused.error().message.find("idle_sleep_sec: 60") != std::string::npos,
             refused.error().message.c_str());

    // Warren's own agent asks; the same settings are its to run.
    cli.agent = protocol::AgentKind::Warren;
    cli.provider = "scripted:/s.json";
    QVERIFY(validateSpec(cli));
    QVERIFY(planLaunch(task(), cli, environment()));
}

QTEST_APPLESS_MAIN(TestLaunchPlan)
#include "tst_launch_plan.moc"
