// AgentSandbox: the agent's sandbox as profile layers, resolved by the sandbox library exactly as a launch
// would resolve them.

#include "app/tasks/AgentSandbox.h"
#include "sandbox/policy/SandboxProfile.h"

#include <QtTest>

using namespace warren;
using namespace warren::control;
using nlohmann::json;

namespace {

AgentSandboxInput input() {
    AgentSandboxInput in;
    in.workspace = "/home/u/project";
    in.stateDir = "/data/tasks/t-1/state";
    in.outputDir = "/data/tasks/t-1/output";
    in.agentBinary = "/usr/lib/warren/warren-agent";
    return in;
}

const sandbox::MountSpec* mountAt(const sandbox::SandboxProfile& profile, const std::string& dest) {
    for (const auto& mount : profile.mounts)
        if (mount.dest == dest)
            return &mount;
    return nullptr;
}

} // namespace

class TestAgentSandbox : public QObject {
    Q_OBJECT

private slots:
    void agentMountsOverTheDefaultProfile();
    void memoriesMountedOnlyUnderThePrefix();
    void strictProfileTightensTheLimits();
    void chosenNetworkOutlastsTheStrictProfile();
    void egressProxyIsMountedAndAnnounced();
    void extraLayersComeLast();
    void commandIsTheAgentInServeMode();
};

void TestAgentSandbox::agentMountsOverTheDefaultProfile() {
    auto profile = sandbox::resolveProfile(agentProfileLayers(input()));
    QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
    QCOMPARE(profile->workspaceSource, "/home/u/project");
    QCOMPARE(profile->network, sandbox::NetworkPolicy::None);
    const auto* state = mountAt(*profile, "/state");
    QVERIFY(state && state->type == sandbox::MountSpec::Type::Bind && state->source == "/data/tasks/t-1/state");
    const auto* output = mountAt(*profile, "/output");
    QVERIFY(output && output->type == sandbox::MountSpec::Type::Bind);
    const auto* agent = mountAt(*profile, kAgentPathInSandbox);
    QVERIFY(agent && agent->type == sandbox::MountSpec::Type::RoBind && agent->source == "/usr/lib/warren/warren-agent");
    QVERIFY(!mountAt(*profile, "/memories"));
    QVERIFY(mountAt(*profile, "/usr")); // the default profile is underneath
}

void TestAgentSandbox::memoriesMountedOnlyUnderThePrefix() {
    auto in = input();
    in.memoriesDir = "/data/memories/local";
    in.memoryPrefix = "local";
    auto profile = sandbox::resolveProfile(agentProfileLayers(in));
    QVERIFY(profile);
    const auto* memories = mountAt(*profile, "/memories/local");
    QVERIFY(memories && memories->type == sandbox::MountSpec::Type::Bind && memories->source == "/data/memories/local");
    QVERIFY(!mountAt(*profile, "/memories"));
}

void TestAgentSandbox::strictProfileTightensTheLimits() {
    auto in = input();
    in.strict = true;
    auto profile = sandbox::resolveProfile(agentProfileLayers(in));
    QVERIFY(profile);
    QCOMPARE(profile->network, sandbox::NetworkPolicy::None);
    auto loose = sandbox::resolveProfile(agentProfileLayers(input()));
    QVERIFY(loose);
    QVERIFY(profile->limits.memoryMb < loose->limits.memoryMb);
    QVERIFY(profile->limits.pids < loose->limits.pids);
    QVERIFY(profile->limits.cpuSeconds > 0);
    QVERIFY(mountAt(*profile, "/tmp")->sizeMb < mountAt(*loose, "/tmp")->sizeMb);
}

// safe-mode's strict profile says "none", but a network the task chose is the user's word and comes after it.
void TestAgentSandbox::chosenNetworkOutlastsTheStrictProfile() {
    auto in = input();
    in.strict = true;
    in.network = "loopback";
    auto profile = sandbox::resolveProfile(agentProfileLayers(in));
    QVERIFY(profile);
    QCOMPARE(profile->network, sandbox::NetworkPolicy::Loopback);
    QVERIFY(profile->limits.pids > 0); // still strict otherwise
}

// An allow-list: loopback, the proxy's socket mounted where the agent's forwarder looks, and the proxy
// variables every tool reads pointing at the forwarder. Without one, none of that is there.
void TestAgentSandbox::egressProxyIsMountedAndAnnounced() {
    auto in = input();
    in.network = "loopback";
    in.egressSocket = "/data/tasks/t-1/egress.sock";
    auto profile = sandbox::resolveProfile(agentProfileLayers(in));
    QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
    QCOMPARE(profile->network, sandbox::NetworkPolicy::Loopback);
    const auto* socket = mountAt(*profile, kEgressSocketInSandbox);
    QVERIFY(socket && socket->type == sandbox::MountSpec::Type::Bind && socket->source == in.egressSocket);
    QCOMPARE(profile->env.at("WARREN_EGRESS_SOCKET"), kEgressSocketInSandbox);
    QCOMPARE(profile->env.at("WARREN_EGRESS_PORT"), std::to_string(kEgressPort));
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
        QCOMPARE(profile->env.at(name), "http://127.0.0.1:" + std::to_string(kEgressPort));
    QVERIFY(profile->env.at("NO_PROXY").find("127.0.0.1") != std::string::npos);

    auto plain = sandbox::resolveProfile(agentProfileLayers(input()));
    QVERIFY(plain);
    QVERIFY(!mountAt(*plain, kEgressSocketInSandbox));
    QVERIFY(!plain->env.contains("HTTPS_PROXY"));
}

void TestAgentSandbox::extraLayersComeLast() {
    auto in = input();
    in.strict = true;
    in.extraLayers = {json{{"limits", {{"memory_mb", 0u}}}, {"env", {{"ASAN_OPTIONS", "detect_leaks=0"}}}}};
    auto profile = sandbox::resolveProfile(agentProfileLayers(in));
    QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
    QCOMPARE(profile->limits.memoryMb, 0u);
    QCOMPARE(profile->env.at("ASAN_OPTIONS"), "detect_leaks=0");
}

void TestAgentSandbox::commandIsTheAgentInServeMode() {
    const auto command = agentCommand(AgentSandboxInput{});
    QCOMPARE(command.front(), kAgentPathInSandbox);
    QCOMPARE(command.at(1), "serve");
}

QTEST_GUILESS_MAIN(TestAgentSandbox)
#include "tst_agent_sandbox.moc"
