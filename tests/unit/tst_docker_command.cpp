// DockerCommand: the exact docker/podman argv for a profile, inspected without an engine. Each row states
// one profile feature and the argv words (or the not-enforced entry) it must produce. The host is a fake
// HostLookup, so each row says which host paths exist.

#include "sandbox/Preflight.h"
#include "sandbox/container/ContainerLauncher.h"
#include "sandbox/container/DockerCommand.h"

#include <QtTest>

using namespace warren;
using namespace warren::sandbox;
using nlohmann::json;

namespace {

const std::string kWorkspace = "/home/user/project";
const std::string kSeccomp = "/run/warren/c1/seccomp.json";
const std::string kDataDir = "/run/warren/c1";

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

QString joined(const std::vector<std::string>& words) {
    QStringList out;
    for (const auto& word : words)
        out << qs(word);
    return out.join(" | ");
}

// A small profile without the default's mounts, env or protected paths, so each row shows only its own.
Result<SandboxProfile> profileWith(const QString& patch) {
    const json base = {{"hostname", "box"}, {"workspace", {{"source", kWorkspace}}}, {"env", {{"PATH", "/usr/bin"}}}};
    return resolveProfile({base, json::parse(patch.toStdString())});
}

HostLookup fakeHost() {
    return [](const std::string& path) -> HostEntry {
        if (path == "/srv/data" || path == "/srv/state" || path == "/usr")
            return {HostEntry::Kind::Directory, {}};
        if (path == "/compat")
            return {HostEntry::Kind::Symlink, "usr/compat"};
        return {};
    };
}

ProtectionPlan protection(const QStringList& entries) {
    const std::map<QString, ProtectionEntry::Kind> kinds = {
        {"pin", ProtectionEntry::Kind::Pin},
        {"read-only", ProtectionEntry::Kind::ReadOnly},
        {"placeholder-file", ProtectionEntry::Kind::PlaceholderFile},
        {"placeholder-dir", ProtectionEntry::Kind::PlaceholderDir}};
    ProtectionPlan plan;
    for (const QString& entry : entries) {
        const QStringList words = entry.split(' ');
        plan.entries.push_back({words[1].toStdString(), kinds.at(words[0])});
    }
    return plan;
}

DockerRequest request(const QString& engine = "docker", bool rootless = false, std::uint32_t invokerUid = 1234) {
    DockerRequest r;
    r.engine = engine == "podman" ? ContainerEngine::Podman : ContainerEngine::Docker;
    r.rootlessEngine = rootless;
    r.invokerUid = invokerUid;
    r.invokerGid = invokerUid;
    r.command = {"sh", "-c", "true"};
    r.containerName = "warren-test";
    r.seccompProfilePath = kSeccomp;
    r.dataDir = kDataDir;
    return r;
}

// True when `words` (separated by spaces) appear one after the other in argv.
bool containsSequence(const std::vector<std::string>& argv, const QString& sequence) {
    std::vector<std::string> words;
    for (const QString& word : sequence.split(' '))
        words.push_back(word.toStdString());
    return std::search(argv.begin(), argv.end(), words.begin(), words.end()) != argv.end();
}

bool mentions(const std::vector<std::string>& lines, const QString& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& line) { return qs(line).contains(text); });
}

} // namespace

class TestDockerCommand : public QObject {
    Q_OBJECT

private slots:
    void profileFeature_data();
    void profileFeature();
    void workspaceOwner_data();
    void workspaceOwner();
    void commandComesLast();
    void initOnlyForACommandThatIsNone_data();
    void initOnlyForACommandThatIsNone();
    void environmentFromFileOnly();
    void passwdNamesTheUidInside();
    void aWarmShapeHoldsNoTasksPathsOrEnvironment();
    void everyRequestedLimitIsSetOrReported();
    void rejects_data();
    void rejects();
    void podmanUlimitsStayWithinInheritedLimits_data();
    void podmanUlimitsStayWithinInheritedLimits();
    void orphanedContainers_data();
    void orphanedContainers();
    void engineInfo_data();
    void engineInfo();
};

void TestDockerCommand::profileFeature_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("engine");
    QTest::addColumn<bool>("rootless");
    QTest::addColumn<int>("invokerUid");
    QTest::addColumn<QStringList>("protectionPlan");
    QTest::addColumn<QStringList>("present");      // word sequences, words separated by spaces
    QTest::addColumn<QStringList>("absent");       // single words that must not appear
    QTest::addColumn<QStringList>("notEnforced");  // text each expected entry contains
    const QStringList none;

    QTest::newRow("always: removed, named, labelled, never pulled, init")
        << "{}" << "docker" << false << 1234 << none
        << QStringList{"docker run --interactive --rm --name warren-test --label warren.sandbox=1",
                       "--pull never --init"}
        << QStringList{"--privileged", "--pull=always"} << none;
    QTest::newRow("always: no privileges, the seccomp profile")
        << "{}" << "docker" << false << 1234 << none
        << QStringList{"--cap-drop ALL", "--security-opt no-new-privileges",
                       "--security-opt seccomp=" + qs(kSeccomp)}
        << QStringList{"--cap-add", "seccomp=unconfined"} << none;
    QTest::newRow("always: read-only root, own namespaces, no core dumps")
        << "{}" << "docker" << false << 1234 << none
        << QStringList{"--read-only", "--network none", "--ipc private", "--cgroupns private", "--hostname box",
                       "--ulimit core=0:0"}
        << QStringList{"--read-only-tmpfs=false", "--passwd=false"} << none;
    QTest::newRow("podman: no extra tmpfs, no passwd edits")
        << "{}" << "podman" << false << 0 << none
        << QStringList{"podman run", "--read-only --read-only-tmpfs=false", "--passwd=false"} << none << none;
    QTest::newRow("user: rootful engine runs as the invoking user")
        << "{}" << "docker" << false << 1234 << none << QStringList{"--user 1234:1234"}
        << QStringList{"--userns"} << none;
    QTest::newRow("user: invoker root, never root inside")
        << "{}" << "docker" << false << 0 << none << QStringList{"--user 1000:1000"}
        << QStringList{"--user 0:0", "--userns"} << none;
    QTest::newRow("user: rootless podman maps the invoker like bwrap")
        << "{}" << "podman" << true << 1234 << none
        << QStringList{"--userns keep-id:uid=1000,gid=1000", "--user 1000:1000"} << none << none;
    QTest::newRow("user: rootless docker cannot keep ownership")
        << "{}" << "docker" << true << 1234 << none << QStringList{"--user 1000:1000"} << QStringList{"--userns"}
        << QStringList{"subordinate uid"};
    QTest::newRow("network loopback: still no interface but lo")
        << "{\"network\": \"loopback\"}" << "docker" << false << 1234 << none << QStringList{"--network none"}
        << QStringList{"host", "bridge"} << none;
    QTest::newRow("limits: memory without swap")
        << "{\"limits\": {\"memory_mb\": 512}}" << "docker" << false << 1234 << none
        << QStringList{"--memory 512m --memory-swap 512m"} << none << none;
    QTest::newRow("limits: none asked, none set")
        << "{\"limits\": {\"memory_mb\": 0, \"pids\": 0}}" << "docker" << false << 1234 << none << none
        << QStringList{"--memory", "--memory-swap", "--pids-limit"} << none;
    QTest::newRow("limits: pids") << "{\"limits\": {\"pids\": 64}}" << "podman" << false << 0 << none
                                  << QStringList{"--pids-limit 64"} << none << none;
    QTest::newRow("limits: cpu seconds") << "{\"limits\": {\"cpu_seconds\": 30}}" << "docker" << false << 1234
                                         << none << QStringList{"--ulimit cpu=30:30"} << none << none;
    QTest::newRow("limits: file size in bytes") << "{\"limits\": {\"file_size_mb\": 1}}" << "docker" << false
                                                << 1234 << none << QStringList{"--ulimit fsize=1048576:1048576"}
                                                << none << none;
    QTest::newRow("limits: open files") << "{\"limits\": {\"open_files\": 100}}" << "docker" << false << 1234
                                        << none << QStringList{"--ulimit nofile=100:100"} << none << none;
    QTest::newRow("limits: address space is not enforceable")
        << "{\"limits\": {\"address_space_mb\": 100}}" << "docker" << false << 1234 << none << none
        << QStringList{"as=104857600:104857600"} << QStringList{"address_space_mb"};
    QTest::newRow("mounts: tmpfs with its size, executable like bwrap's")
        << "{\"mounts\": {\"/tmp\": {\"type\": \"tmpfs\", \"size_mb\": 64}}}" << "docker" << false << 1234 << none
        << QStringList{"--tmpfs /tmp:rw,exec,nosuid,nodev,size=64m,mode=1777"} << none << none;
    QTest::newRow("mounts: read-only bind")
        << "{\"mounts\": {\"/data\": {\"type\": \"ro-bind\", \"source\": \"/srv/data\"}}}" << "docker" << false << 1234
        << none << QStringList{"--mount type=bind,source=/srv/data,target=/data,readonly"} << none << none;
    QTest::newRow("mounts: read-write bind (/state)")
        << "{\"mounts\": {\"/state\": {\"type\": \"bind\", \"source\": \"/srv/state\"}}}" << "docker" << false << 1234
        << none << QStringList{"--mount type=bind,source=/srv/state,target=/state"}
        << QStringList{"type=bind,source=/srv/state,target=/state,readonly"} << none;
    QTest::newRow("mounts: missing optional source is skipped")
        << "{\"mounts\": {\"/opt/x\": {\"type\": \"ro-bind\", \"source\": \"/opt/nothing\", \"optional\": true}}}"
        << "docker" << false << 1234 << none << none
        << QStringList{"type=bind,source=/opt/nothing,target=/opt/x,readonly"} << none;
    QTest::newRow("mounts: the host's /usr comes from the image")
        << "{\"mounts\": {\"/usr\": {\"type\": \"ro-bind\", \"source\": \"/usr\"}}}" << "docker" << false << 1234 << none
        << none << QStringList{"type=bind,source=/usr,target=/usr,readonly"} << none;
    QTest::newRow("mounts: a symlink cannot be created")
        << "{\"mounts\": {\"/opt/link\": {\"type\": \"symlink\", \"target\": \"usr/bin\"}}}" << "docker" << false << 1234
        << none << none << none << QStringList{"/opt/link"};
    QTest::newRow("mounts: a mirrored symlink cannot be created")
        << "{\"mounts\": {\"/compat\": {\"type\": \"mirror\", \"source\": \"/compat\"}}}" << "docker" << false << 1234
        << none << none << QStringList{"type=bind,source=/compat,target=/compat,readonly"}
        << QStringList{"/compat"};
    QTest::newRow("workspace: writable")
        << "{}" << "docker" << false << 1234 << none
        << QStringList{"--mount type=bind,source=/home/user/project,target=/workspace", "--workdir /workspace"}
        << none << none;
    QTest::newRow("workspace: read-only")
        << "{\"workspace\": {\"writable\": false}}" << "docker" << false << 1234 << none
        << QStringList{"--mount type=bind,source=/home/user/project,target=/workspace,readonly"} << none << none;
    QTest::newRow("protected paths")
        << "{}" << "docker" << false << 1234
        << QStringList{"pin .git", "read-only .git/config", "placeholder-file .envrc", "placeholder-dir .vscode"}
        << QStringList{"--mount type=bind,source=/home/user/project/.git,target=/workspace/.git",
                       "--mount type=bind,source=/home/user/project/.git/config,target=/workspace/.git/config,readonly",
                       "--mount type=bind,source=/run/warren/c1/empty,target=/workspace/.envrc,readonly",
                       "--tmpfs /workspace/.vscode:ro,nosuid,nodev,noexec,size=4k,mode=0555"}
        << none << none;
}

void TestDockerCommand::profileFeature() {
    QFETCH(QString, patch);
    QFETCH(QString, engine);
    QFETCH(bool, rootless);
    QFETCH(int, invokerUid);
    QFETCH(QStringList, protectionPlan);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    QFETCH(QStringList, notEnforced);

    auto profile = profileWith(patch);
    QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
    DockerRequest r = request(engine, rootless, static_cast<std::uint32_t>(invokerUid));
    r.protection = protection(protectionPlan);
    auto command = buildDockerCommand(*profile, r, fakeHost());
    QVERIFY2(command, command ? "" : command.error().message.c_str());
    const QString argv = joined(command->argv);
    for (const QString& sequence : present)
        QVERIFY2(containsSequence(command->argv, sequence), qPrintable(sequence + "\nnot in: " + argv));
    for (const QString& word : absent)
        QVERIFY2(std::find(command->argv.begin(), command->argv.end(), word.toStdString()) == command->argv.end(),
                 qPrintable(word + "\nin: " + argv));
    for (const QString& text : notEnforced)
        QVERIFY2(mentions(command->notEnforced, text), qPrintable(text + " not reported"));
    QCOMPARE(command->notEnforced.size(), static_cast<std::size_t>(notEnforced.size()));
}

// clang-format off
// Who the container runs as, and so who owns on the host what it writes, from who runs Warren and who owns
// the workspace.
void TestDockerCommand::workspaceOwner_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<bool>("rootless");
    QTest::addColumn<int>("invokerUid");
    QTest::addColumn<int>("ownerUid");
    QTest::addColumn<int>("ownerGid");
    QTest::addColumn<QString>("user");      // the --user value
    QTest::addColumn<int>("hostOwnerUid");  // -1: unknown
    QTest::addColumn<int>("hostOwnerGid");
    QTest::addColumn<QString>("boundFrom"); // the workspace's bind source: itself or the idmapped view

    const QString real = qs(kWorkspace);
    const QString view = qs(kDataDir) + "/workspace";
    QTest::newRow("root runs docker on a user's workspace: the owner")
        << "docker" << false << 0 << 1234 << 1235 << "1234:1235" << 1234 << 1235 << real;
    QTest::newRow("root runs podman on a user's workspace: the owner")
        << "podman" << false << 0 << 1234 << 1235 << "1234:1235" << 1234 << 1235 << real;
    QTest::newRow("root runs podman on the profile user's workspace")
        << "podman" << false << 0 << 1000 << 1000 << "1000:1000" << 1000 << 1000 << real;
    QTest::newRow("root on its own workspace: the profile's uid on an idmapped view, never root")
        << "docker" << false << 0 << 0 << 0 << "1000:1000" << 1000 << 1000 << view;
    QTest::newRow("root runs podman on its own workspace: the same view")
        << "podman" << false << 0 << 0 << 0 << "1000:1000" << 1000 << 1000 << view;
    QTest::newRow("root's workspace of another group: the view maps that group")
        << "podman" << false << 0 << 0 << 50 << "1000:1000" << 1000 << 1000 << view;
    QTest::newRow("a user runs a rootful engine: the user, whoever owns the workspace")
        << "docker" << false << 1234 << 4321 << 4321 << "1234:1234" << 1234 << 1234 << real;
    QTest::newRow("a user runs a rootful engine on root's workspace: the user, no view")
        << "docker" << false << 1234 << 0 << 0 << "1234:1234" << 1234 << 1234 << real;
    QTest::newRow("rootless podman: the invoker through keep-id, whoever owns the workspace")
        << "podman" << true << 1234 << 4321 << 4321 << "1000:1000" << 1234 << 1234 << real;
    QTest::newRow("rootless podman on root's workspace: keep-id, no view")
        << "podman" << true << 1234 << 0 << 0 << "1000:1000" << 1234 << 1234 << real;
    QTest::newRow("rootless docker: a subordinate uid")
        << "docker" << true << 1234 << 1234 << 1234 << "1000:1000" << -1 << -1 << real;
}
// clang-format on

void TestDockerCommand::workspaceOwner() {
    QFETCH(QString, engine);
    QFETCH(bool, rootless);
    QFETCH(int, invokerUid);
    QFETCH(int, ownerUid);
    QFETCH(int, ownerGid);
    QFETCH(QString, user);
    QFETCH(int, hostOwnerUid);
    QFETCH(int, hostOwnerGid);
    QFETCH(QString, boundFrom);

    auto profile = profileWith("{}");
    QVERIFY(profile);
    DockerRequest r = request(engine, rootless, static_cast<std::uint32_t>(invokerUid));
    r.workspaceOwnerUid = static_cast<std::uint32_t>(ownerUid);
    r.workspaceOwnerGid = static_cast<std::uint32_t>(ownerGid);
    r.protection = protection({"pin .git", "read-only .git/config"});
    auto command = buildDockerCommand(*profile, r, fakeHost());
    QVERIFY2(command, command ? "" : command.error().message.c_str());
    // The workspace and its protected paths are bound from the same place.
    QVERIFY2(containsSequence(command->argv, "--mount type=bind,source=" + boundFrom + ",target=/workspace"),
             qPrintable(joined(command->argv)));
    QVERIFY(containsSequence(command->argv,
                             "--mount type=bind,source=" + boundFrom + "/.git,target=/workspace/.git"));
    QVERIFY(containsSequence(command->argv, "--mount type=bind,source=" + boundFrom +
                                                "/.git/config,target=/workspace/.git/config,readonly"));
    QCOMPARE(command->workspaceView.has_value(), boundFrom != qs(kWorkspace));
    if (command->workspaceView) {
        // On disk the owner, seen (and written) as the uid the container runs as.
        const IdmappedView expected{kWorkspace,
                                    boundFrom.toStdString(),
                                    static_cast<std::uint32_t>(ownerUid),
                                    static_cast<std::uint32_t>(ownerGid),
                                    1000,
                                    1000};
        QCOMPARE(*command->workspaceView, expected);
    }
    QVERIFY2(containsSequence(command->argv, "--user " + user), qPrintable(joined(command->argv)));
    QVERIFY(!containsSequence(command->argv, "--user 0:0"));
    QCOMPARE(command->hostOwnerUid.has_value(), hostOwnerUid >= 0);
    if (hostOwnerUid >= 0) {
        QCOMPARE(static_cast<int>(*command->hostOwnerUid), hostOwnerUid);
        QCOMPARE(static_cast<int>(*command->hostOwnerGid), hostOwnerGid);
    }
    // The sandbox's own /etc/passwd names the uid it runs as.
    const auto passwd = std::find_if(command->files.begin(), command->files.end(),
                                     [](const DockerDataFile& file) { return file.purpose == "/etc/passwd"; });
    QVERIFY(passwd != command->files.end());
    QVERIFY2(QString::fromStdString(passwd->bytes).contains(":x:" + user + ":"), passwd->bytes.c_str());
}

void TestDockerCommand::commandComesLast() {
    auto profile = profileWith("{}");
    QVERIFY(profile);
    auto command = buildDockerCommand(*profile, request(), fakeHost());
    QVERIFY(command);
    const std::vector<std::string> tail(command->argv.end() - 5, command->argv.end());
    QCOMPARE(tail, (std::vector<std::string>{"--entrypoint", "sh", "debian:bookworm-slim", "-c", "true"}));
    QCOMPARE(qs(command->commandLine()).count("'true'") + qs(command->commandLine()).count(" true"), 1);
}

void TestDockerCommand::initOnlyForACommandThatIsNone_data() {
    QTest::addColumn<bool>("commandIsInit");
    QTest::addColumn<bool>("init");
    QTest::newRow("a command: podman's init reaps and passes signals on") << false << true;
    // The agent: pid 1 itself, so that no init holds its stdio where /proc/1/fd reopens it.
    QTest::newRow("its own init: no other pid 1") << true << false;
}

void TestDockerCommand::initOnlyForACommandThatIsNone() {
    QFETCH(bool, commandIsInit);
    QFETCH(bool, init);
    auto profile = profileWith("{}");
    QVERIFY(profile);
    DockerRequest r = request("podman");
    r.commandIsInit = commandIsInit;
    auto command = buildDockerCommand(*profile, r, fakeHost());
    QVERIFY(command);
    const auto entrypoint = std::find(command->argv.begin(), command->argv.end(), "--entrypoint");
    QCOMPARE(std::find(command->argv.begin(), entrypoint, "--init") != entrypoint, init);
    QVERIFY(containsSequence(command->argv, "--pull never"));
}

// Values stay out of argv (visible in ps); only the profile's variables and the passed-through ones.
void TestDockerCommand::environmentFromFileOnly() {
    auto profile = profileWith("{\"env\": {\"SECRETISH\": \"value with spaces\"}, \"env_passthrough\": [\"TERM\", \"LANG\"]}");
    QVERIFY(profile);
    DockerRequest r = request();
    r.hostEnv = {{"TERM", "xterm"}, {"HOME", "/root"}, {"AWS_SECRET_ACCESS_KEY", "k"}};
    auto command = buildDockerCommand(*profile, r, fakeHost());
    QVERIFY(command);
    QVERIFY(containsSequence(command->argv, "--env-file " + qs(kDataDir) + "/env"));
    QVERIFY(!qs(command->commandLine()).contains("value with spaces"));
    QVERIFY(std::find(command->argv.begin(), command->argv.end(), "--env") == command->argv.end());
    const auto file = std::find_if(command->files.begin(), command->files.end(),
                                   [](const DockerDataFile& f) { return f.purpose == "environment"; });
    QVERIFY(file != command->files.end());
    QCOMPARE(qs(file->bytes), QString("PATH=/usr/bin\nSECRETISH=value with spaces\nTERM=xterm\n"));
}

// A warm container's command (WarmPool) is started before its task: every bind of the host comes from an
// empty slot, received from the host; what lies in the workspace, the environment and the command are the
// claim's; only the waiter runs.
void TestDockerCommand::aWarmShapeHoldsNoTasksPathsOrEnvironment() {
    auto profile = profileWith("{\"env\": {\"SECRETISH\": \"value\"}, \"mounts\": {\"/data\": {\"type\": "
                               "\"bind\", \"source\": \"/srv/data\"}}}");
    QVERIFY(profile);
    DockerRequest r = request("podman", false, 0);
    r.workspaceOwnerUid = 1000;
    r.workspaceOwnerGid = 1000;
    r.protection = protection({"pin .git", "placeholder-file .envrc", "placeholder-dir .vscode"});
    r.warm = DockerRequest::Warm{kDataDir + "/slots", kDataDir + "/claim", "/usr/lib/warren/warren-agent"};
    auto command = buildDockerCommand(*profile, r, fakeHost());
    QVERIFY2(command, command ? "" : command.error().message.c_str());
    const QString line = qs(command->commandLine());
    for (const QString& task : {qs(kWorkspace), QString("/srv/data"), QString("SECRETISH"),
                                QString("sh -c true"), QString("--env-file")})
        QVERIFY2(!line.contains(task), qPrintable(task + " in " + line));
    QCOMPARE(qs(command->env.at("SECRETISH")), QString("value"));
    // Every bind of the host from a slot, by kind: the workspace and /data directories, the /etc files not.
    QStringList binds;
    for (const SlotBind& bind : command->slotBinds) {
        binds << qs(bind.slot) + " " + qs(bind.mount.dest) + " " + qs(bind.mount.source);
        QVERIFY(containsSequence(command->argv, "--mount type=bind,source=" + qs(kDataDir) + "/slots/" +
                                                    qs(bind.slot) + ",target=" + qs(bind.mount.dest) +
                                                    (bind.mount.readOnly ? ",readonly" : "") +
                                                    ",bind-propagation=rslave"));
    }
    QCOMPARE(binds,
             (QStringList{"d0 /data /srv/data", "f1 /etc/passwd " + qs(kDataDir) + "/passwd",
                          "f2 /etc/group " + qs(kDataDir) + "/group", "d3 /workspace " + qs(kWorkspace)}));
    QCOMPARE(qs(command->workspaceSlot), QString("d3"));
    // What lies inside the workspace is the claim's: in the argv it would need the task's own mount points.
    QStringList inside;
    for (const ContainerMount& mount : command->claimMounts)
        inside << qs(mount.dest);
    QCOMPARE(inside, (QStringList{"/workspace/.git", "/workspace/.envrc", "/workspace/.vscode"}));
    QVERIFY(!line.contains("/workspace/."));
    QVERIFY(containsSequence(command->argv, "--mount type=bind,source=/usr/lib/warren/warren-agent,target=" +
                                                qs(kWaiterInContainer) + ",readonly"));
    QVERIFY(containsSequence(command->argv, "--mount type=bind,source=" + qs(kDataDir) +
                                                "/claim,target=" + qs(kClaimDirInContainer)));
    QCOMPARE(qs(command->argv.back()), qs(kClaimDirInContainer) + "/" + kClaimSocketName);
    QVERIFY(containsSequence(command->argv, "--entrypoint " + qs(kWaiterInContainer)));
    QCOMPARE(command->uid, 1000u);
}

void TestDockerCommand::passwdNamesTheUidInside() {
    auto profile = profileWith("{}");
    QVERIFY(profile);
    auto command = buildDockerCommand(*profile, request("docker", false, 1234), fakeHost());
    QVERIFY(command);
    const auto passwd = std::find_if(command->files.begin(), command->files.end(),
                                     [](const DockerDataFile& f) { return f.purpose == "/etc/passwd"; });
    QVERIFY(passwd != command->files.end());
    QVERIFY(qs(passwd->bytes).contains("agent:x:1234:1234:"));
    QVERIFY(containsSequence(command->argv, "--mount type=bind,source=" + qs(passwd->hostPath) +
                                                ",target=/etc/passwd,readonly"));
    QVERIFY(containsSequence(command->argv, "--mount type=bind,source=" + qs(kDataDir) +
                                                "/group,target=/etc/group,readonly"));
}

// The default profile: every limit it sets appears in argv, or in notEnforced.
void TestDockerCommand::everyRequestedLimitIsSetOrReported() {
    auto profile = resolveProfile({defaultProfileJson(), json{{"workspace", {{"source", kWorkspace}}},
                                                              {"limits", {{"address_space_mb", 1u}, {"cpu_seconds", 9u}}}}});
    QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
    auto command = buildDockerCommand(*profile, request(), [](const std::string&) {
        return HostEntry{HostEntry::Kind::Directory, {}};
    });
    QVERIFY2(command, command ? "" : command.error().message.c_str());
    const auto& l = profile->limits;
    QVERIFY(containsSequence(command->argv, "--memory " + QString::number(l.memoryMb) + "m"));
    QVERIFY(containsSequence(command->argv, "--pids-limit " + QString::number(l.pids)));
    QVERIFY(containsSequence(command->argv, "--ulimit cpu=9:9"));
    QVERIFY(containsSequence(command->argv, "--ulimit nofile=" + QString::number(l.openFiles) + ":" +
                                                QString::number(l.openFiles)));
    QVERIFY(mentions(command->notEnforced, "address_space_mb"));
    // The default's host system mounts come from the image; its tmpfs mounts stay.
    QVERIFY(!qs(command->commandLine()).contains("source=/usr,"));
    QVERIFY(containsSequence(command->argv, "--tmpfs /home/agent:rw,exec,nosuid,nodev,size=256m,mode=1777"));
}

void TestDockerCommand::rejects_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("field"); // which request field the row breaks
    QTest::addColumn<QString>("message");
    QTest::newRow("missing required mount source")
        << "{\"mounts\": {\"/x\": {\"type\": \"ro-bind\", \"source\": \"/nowhere\"}}}" << "" << "does not exist";
    QTest::newRow("comma in a mount path")
        << "{\"mounts\": {\"/a,b\": {\"type\": \"tmpfs\", \"size_mb\": 1}}}" << "" << "comma";
    QTest::newRow("newline in an env value") << "{\"env\": {\"X\": \"a\\nb\"}}" << "" << "newline";
    QTest::newRow("no seccomp profile") << "{}" << "seccomp" << "seccomp";
    QTest::newRow("container name without the prefix") << "{}" << "name" << "warren-";
    QTest::newRow("no command") << "{}" << "command" << "no command";
    QTest::newRow("no image") << "{}" << "image" << "image";
}

void TestDockerCommand::rejects() {
    QFETCH(QString, patch);
    QFETCH(QString, field);
    QFETCH(QString, message);
    auto profile = profileWith(patch);
    QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
    DockerRequest r = request();
    if (field == "seccomp")
        r.seccompProfilePath.clear();
    else if (field == "name")
        r.containerName = "mybox";
    else if (field == "command")
        r.command.clear();
    else if (field == "image")
        r.image.clear();
    auto command = buildDockerCommand(*profile, r, fakeHost());
    QVERIFY(!command);
    QVERIFY2(qs(command.error().message).contains(message), command.error().message.c_str());
}

void TestDockerCommand::podmanUlimitsStayWithinInheritedLimits_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<int>("openFiles");
    QTest::addColumn<QStringList>("present");
    QTest::addColumn<QStringList>("absent");
    // Podman drops containers.conf's default_ulimits once any --ulimit is given and would set ~1M for both.
    QTest::newRow("podman, profile sets open files") << "podman" << 100
        << QStringList{"--ulimit nofile=100:100", "--ulimit nproc=32768:32768"} << QStringList{"nofile=20000:20000"};
    QTest::newRow("podman, profile leaves open files") << "podman" << 0
        << QStringList{"--ulimit nofile=20000:20000", "--ulimit nproc=32768:32768"} << QStringList{};
    QTest::newRow("docker keeps the daemon's defaults") << "docker" << 0 << QStringList{}
        << QStringList{"nofile=20000:20000", "nproc=32768:32768"};
}

void TestDockerCommand::podmanUlimitsStayWithinInheritedLimits() {
    QFETCH(QString, engine);
    QFETCH(int, openFiles);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    auto profile = profileWith(QStringLiteral("{\"limits\": {\"open_files\": %1}}").arg(openFiles));
    QVERIFY(profile);
    DockerRequest r = request(engine);
    r.hostOpenFilesHard = 20000;
    r.hostProcessesHard = 32768;
    auto command = buildDockerCommand(*profile, r, fakeHost());
    QVERIFY2(command, command ? "" : command.error().message.c_str());
    const QString line = qs(command->commandLine());
    for (const auto& sequence : present)
        QVERIFY2(containsSequence(command->argv, sequence), qPrintable(sequence + " missing from " + line));
    for (const auto& word : absent)
        QVERIFY2(!line.contains(word), qPrintable(word + " present in " + line));
}

void TestDockerCommand::orphanedContainers_data() {
    QTest::addColumn<QString>("ps");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("owner alive") << "warren-1-a\tm1:100:555\n" << QStringList{};
    QTest::newRow("owner gone") << "warren-2-b\tm1:200:555\n" << QStringList{"warren-2-b"};
    QTest::newRow("pid reused by another process") << "warren-3-c\tm1:100:999\n" << QStringList{"warren-3-c"};
    QTest::newRow("another machine's container") << "warren-4-d\tm2:200:555\n" << QStringList{};
    QTest::newRow("no owner label") << "warren-5-e\t\nwarren-6-f\t<no value>\n" << QStringList{};
    QTest::newRow("several") << "warren-1-a\tm1:100:555\nwarren-2-b\tm1:200:1\nwarren-7-g\tm1:300:2\n"
                             << QStringList{"warren-2-b", "warren-7-g"};
}

void TestDockerCommand::orphanedContainers() {
    QFETCH(QString, ps);
    QFETCH(QStringList, expected);
    // Only pid 100 runs, started at tick 555.
    const auto startTimeOf = [](pid_t pid) { return pid == 100 ? std::string("555") : std::string(); };
    QStringList found;
    for (const auto& name : warren::sandbox::orphanedContainers(ps.toStdString(), "m1", startTimeOf))
        found << qs(name);
    QCOMPARE(found, expected);
}

void TestDockerCommand::engineInfo_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("info");
    QTest::addColumn<bool>("rootless");
    QTest::addColumn<bool>("memory");
    QTest::addColumn<bool>("pids");
    QTest::addColumn<bool>("limitsOk");
    QTest::newRow("podman rootful, cgroup v1") << "podman"
        << "{\"host\": {\"cgroupVersion\": \"v1\", \"cgroupControllers\": [\"memory\", \"pids\"], "
           "\"security\": {\"rootless\": false, \"seccompEnabled\": true}}, \"version\": {\"Version\": \"4.3.1\"}}"
        << false << true << true << true;
    QTest::newRow("podman rootless, cgroup v1: no limits") << "podman"
        << "{\"host\": {\"cgroupVersion\": \"v1\", \"cgroupControllers\": [\"memory\", \"pids\"], "
           "\"security\": {\"rootless\": true, \"seccompEnabled\": true}}}"
        << true << false << false << false;
    QTest::newRow("podman rootless, cgroup v2 without memory delegated") << "podman"
        << "{\"host\": {\"cgroupVersion\": \"v2\", \"cgroupControllers\": [\"cpu\", \"pids\"], "
           "\"security\": {\"rootless\": true, \"seccompEnabled\": true}}}"
        << true << false << true << false;
    QTest::newRow("docker rootless") << "docker"
        << "{\"ServerVersion\": \"24.0.5\", \"MemoryLimit\": true, \"PidsLimit\": true, \"CgroupVersion\": \"2\", "
           "\"SecurityOptions\": [\"name=seccomp,profile=builtin\", \"name=rootless\"]}"
        << true << true << true << true;
}

void TestDockerCommand::engineInfo() {
    QFETCH(QString, engine);
    QFETCH(QString, info);
    QFETCH(bool, rootless);
    QFETCH(bool, memory);
    QFETCH(bool, pids);
    QFETCH(bool, limitsOk);
    const ContainerEngine which = engine == "podman" ? ContainerEngine::Podman : ContainerEngine::Docker;
    auto parsed = parseEngineInfo(which, info.toStdString());
    QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
    QCOMPARE(parsed->rootless, rootless);
    QVERIFY(parsed->seccomp);
    QCOMPARE(parsed->memoryLimit, memory);
    QCOMPARE(parsed->pidsLimit, pids);
    SandboxLimits limits;
    limits.memoryMb = 512;
    limits.pids = 64;
    const PreflightCheck check = containerLimitsCheck(which, *parsed, limits);
    QCOMPARE(check.status == PreflightCheck::Status::Ok, limitsOk);
    if (!limitsOk)
        QVERIFY(!check.fix.empty());
    QVERIFY(!parseEngineInfo(which, "not json"));
}

QTEST_GUILESS_MAIN(TestDockerCommand)
#include "tst_docker_command.moc"
