// SandboxProfile: the layers (built-in default < profile file < command line) merged as JSON Merge Patch,
// strict validation of the merged document, and the resolved profile's JSON (what --explain prints) read
// back into the same profile.

#include "sandbox/policy/SandboxProfile.h"

#include <QtTest>

using namespace warren;
using namespace warren::sandbox;
using nlohmann::json;

namespace {

const std::string kWorkspace = "/home/user/project";
const QString kAbsent = QStringLiteral("<absent>");

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

json parse(const QString& text) {
    return json::parse(text.toStdString());
}

// What warren-sandbox passes: the default, the workspace the command line always sets, then the layers
// under test (a profile file, then further command-line overrides).
Result<SandboxProfile> resolveOverDefault(const json& profileLayer, const json& cliLayer = json::object()) {
    const json workspace = {{"workspace", {{"source", kWorkspace}}}};
    return resolveProfile({defaultProfileJson(), workspace, profileLayer, cliLayer});
}

QString describeMount(const MountSpec& mount) {
    QString text = "mount " + qs(mount.dest) + " " + qs(mountTypeName(mount.type));
    if (!mount.source.empty())
        text += " source=" + qs(mount.source);
    if (!mount.target.empty())
        text += " target=" + qs(mount.target);
    if (mount.sizeMb)
        text += " size_mb=" + QString::number(mount.sizeMb);
    if (mount.optional)
        text += " optional";
    return text;
}

// Every typed field, one line each, so two profiles compare field by field with a readable diff.
QStringList describe(const SandboxProfile& profile) {
    QStringList lines;
    const SandboxUser& user = profile.user;
    lines << "hostname " + qs(profile.hostname);
    lines << QString("user %1 %2:%3 home=%4 shell=%5")
                 .arg(qs(user.name))
                 .arg(user.uid)
                 .arg(user.gid)
                 .arg(qs(user.home), qs(user.shell));
    lines << QString("workspace %1 at %2 %3")
                 .arg(qs(profile.workspaceSource), qs(profile.workspaceDest),
                      profile.workspaceWritable ? "writable" : "read-only");
    for (const auto& mount : profile.mounts)
        lines << describeMount(mount);
    for (const auto& [name, value] : profile.env)
        lines << "env " + qs(name) + "=" + qs(value);
    for (const auto& name : profile.envPassthrough)
        lines << "passthrough " + qs(name);
    lines << "network " + qs(networkPolicyName(profile.network));
    const SandboxLimits& l = profile.limits;
    lines << QString("limits memory=%1 pids=%2 cpu=%3 fsize=%4 nofile=%5 as=%6 timeout=%7")
                 .arg(l.memoryMb)
                 .arg(l.pids)
                 .arg(l.cpuSeconds)
                 .arg(l.fileSizeMb)
                 .arg(l.openFiles)
                 .arg(l.addressSpaceMb)
                 .arg(l.timeoutSec);
    for (const auto& id : profile.seccompSkip)
        lines << "seccomp skip " + qs(id);
    for (const auto& path : profile.protectedPaths)
        lines << "protected " + qs(path.path) + (path.directory ? "/" : "") +
                     (path.onlyIfExists ? " if-exists" : "");
    return lines;
}

const MountSpec* findMount(const SandboxProfile& profile, const std::string& dest) {
    for (const auto& mount : profile.mounts)
        if (mount.dest == dest)
            return &mount;
    return nullptr;
}

bool isUnder(const std::string& path, const std::string& dir) {
    return path == dir || path.rfind(dir + "/", 0) == 0;
}

} // namespace

class TestSandboxProfile : public QObject {
    Q_OBJECT

private slots:
    void defaultProfileMatchesTheDesign();
    void defaultProfileShowsNoMoreOfTheHostThanTheSystem();
    void workspaceIsRequired();
    void layering_data();
    void layering();
    void invalidProfile_data();
    void invalidProfile();
    void numbersOutOfRange_data();
    void numbersOutOfRange();
    void mountSpec_data();
    void mountSpec();
    void mountsSortedParentsFirst();
    void protectedPaths_data();
    void protectedPaths();
    void roundTrip_data();
    void roundTrip();
    void parseLayer_data();
    void parseLayer();
    void names();
};

void TestSandboxProfile::defaultProfileMatchesTheDesign() {
    auto profile = resolveOverDefault(json::object());
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());

    QCOMPARE(qs(profile->hostname), QString("warren"));
    QCOMPARE(qs(profile->user.name), QString("agent"));
    QCOMPARE(profile->user.uid, 1000u);
    QCOMPARE(profile->user.gid, 1000u);
    QCOMPARE(qs(profile->user.home), QString("/home/agent"));
    QCOMPARE(qs(profile->workspaceSource), qs(kWorkspace));
    QCOMPARE(qs(profile->workspaceDest), QString("/workspace"));
    QVERIFY(profile->workspaceWritable);
    QCOMPARE(profile->network, NetworkPolicy::None);

    const QStringList mounts = describe(*profile).filter(QRegularExpression("^mount "));
    const QStringList expectedMounts = {"mount /usr ro-bind source=/usr",
                                        "mount /bin mirror source=/bin",
                                        "mount /lib mirror source=/lib",
                                        "mount /lib64 mirror source=/lib64 optional",
                                        "mount /tmp tmpfs size_mb=512",
                                        "mount /home/agent tmpfs size_mb=256",
                                        "mount /proc proc",
                                        "mount /dev dev"};
    for (const QString& expected : expectedMounts)
        QVERIFY2(mounts.contains(expected), qPrintable(expected + " missing from:\n" + mounts.join('\n')));

    QCOMPARE(qs(profile->env.at("HOME")), QString("/home/agent"));
    QCOMPARE(qs(profile->env.at("PATH")), QString("/usr/local/bin:/usr/bin:/bin"));
    QVERIFY(profile->limits.memoryMb > 0);
    QVERIFY(profile->limits.pids > 0);

    const QStringList protectedPaths = describe(*profile).filter(QRegularExpression("^protected "));
    const QStringList expectedProtected = {
        "protected .git/hooks/", "protected .git/config",           "protected .vscode/",
        "protected .envrc",      "protected .gitmodules if-exists", "protected .bashrc if-exists"};
    for (const QString& expected : expectedProtected)
        QVERIFY2(protectedPaths.contains(expected), qPrintable(expected + " missing"));
}

// DESIGN §3: nothing of the host but the system directories; no $HOME, /run, sockets; nothing host-writable.
void TestSandboxProfile::defaultProfileShowsNoMoreOfTheHostThanTheSystem() {
    auto profile = resolveOverDefault(json::object());
    QVERIFY(profile.ok());
    const std::vector<std::string> systemDirs = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"};
    for (const auto& mount : profile->mounts) {
        if (mount.type == MountSpec::Type::Tmpfs)
            QVERIFY2(mount.sizeMb > 0, mount.dest.c_str());
        if (mount.source.empty())
            continue;
        QVERIFY2(mount.type != MountSpec::Type::Bind, ("host-writable mount " + mount.dest).c_str());
        const bool system = std::any_of(systemDirs.begin(), systemDirs.end(),
                                        [&](const std::string& dir) { return isUnder(mount.source, dir); });
        QVERIFY2(system, ("host path outside the system directories: " + mount.source).c_str());
        QVERIFY2(!isUnder(mount.source, "/etc/shadow") && !isUnder(mount.source, "/etc/sudoers"),
                 mount.source.c_str());
    }
}

void TestSandboxProfile::workspaceIsRequired() {
    auto profile = resolveProfile({defaultProfileJson()});
    QVERIFY(!profile.ok());
    QCOMPARE(profile.error().code, ErrorCode::InvalidArgument);
    QVERIFY2(profile.error().message.find("--workspace") != std::string::npos,
             profile.error().message.c_str());
}

// pointer is a JSON pointer into the resolved profile's toJson() ("~1" stands for "/" inside a key).
// clang-format off
void TestSandboxProfile::layering_data() {
    QTest::addColumn<QString>("profileLayer");
    QTest::addColumn<QString>("cliLayer");
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("expected"); // JSON, or kAbsent

    QTest::newRow("default value stands without layers") << "{}" << "{}" << "/limits/pids" << "512";
    QTest::newRow("profile file overrides default")
        << R"({"hostname": "box"})" << "{}" << "/hostname" << R"("box")";
    QTest::newRow("command line overrides profile file")
        << R"({"limits": {"memory_mb": 100}})" << R"({"limits": {"memory_mb": 200}})" << "/limits/memory_mb"
        << "200";
    QTest::newRow("profile keeps the default's sibling keys")
        << R"({"limits": {"pids": 10}})" << "{}" << "/limits/memory_mb" << "4096";
    QTest::newRow("profile adds a mount")
        << R"({"mounts": {"/opt/tools": {"type": "ro-bind", "source": "/opt/tools"}}})" << "{}"
        << "/mounts/~1opt~1tools" << R"({"type": "ro-bind", "source": "/opt/tools"})";
    QTest::newRow("adding a mount keeps the default ones")
        << R"({"mounts": {"/opt/tools": {"type": "ro-bind", "source": "/opt/tools"}}})" << "{}"
        << "/mounts/~1usr" << R"({"type": "ro-bind", "source": "/usr"})";
    QTest::newRow("profile changes one field of a mount")
        << R"({"mounts": {"/tmp": {"size_mb": 64}}})" << "{}" << "/mounts/~1tmp"
        << R"({"type": "tmpfs", "size_mb": 64})";
    QTest::newRow("null removes a mount")
        << R"({"mounts": {"/lib32": null}})" << "{}" << "/mounts/~1lib32" << kAbsent;
    QTest::newRow("null removes a field of a mount")
        << R"({"mounts": {"/lib64": {"optional": null}}})" << "{}" << "/mounts/~1lib64"
        << R"({"type": "mirror", "source": "/lib64"})";
    QTest::newRow("null removes an env variable")
        << R"({"env": {"LANG": null}})" << "{}" << "/env/LANG" << kAbsent;
    QTest::newRow("command line null removes what the profile added")
        << R"({"env": {"FOO": "1"}})" << R"({"env": {"FOO": null}})" << "/env/FOO" << kAbsent;
    QTest::newRow("command line adds env next to the profile's")
        << R"({"env": {"FOO": "1"}})" << R"({"env": {"BAR": "2"}})" << "/env/FOO" << R"("1")";
    QTest::newRow("array is replaced whole")
        << R"({"env_passthrough": ["LC_ALL"]})" << "{}" << "/env_passthrough" << R"(["LC_ALL"])";
    QTest::newRow("protected path switched off with false")
        << R"({"protected_paths": {".envrc": false}})" << "{}" << "/protected_paths/.envrc" << kAbsent;
    QTest::newRow("protected path removed with null")
        << R"({"protected_paths": {".envrc": null}})" << "{}" << "/protected_paths/.envrc" << kAbsent;
    QTest::newRow("other protected paths stay when one is switched off")
        << R"({"protected_paths": {".envrc": false}})" << "{}" << "/protected_paths/.gitmodules"
        << R"("if-exists")";
    QTest::newRow("protected file added")
        << R"({"protected_paths": {"Makefile": true}})" << "{}" << "/protected_paths/Makefile" << "true";
    QTest::newRow("protected path relaxed to if-exists")
        << R"({"protected_paths": {".git/config": "if-exists"}})" << "{}" << "/protected_paths/.git~1config"
        << R"("if-exists")";
    QTest::newRow("if-exists path made strict")
        << R"({"protected_paths": {".gitmodules": true}})" << "{}" << "/protected_paths/.gitmodules" << "true";
    QTest::newRow("protected directory added")
        << R"({"protected_paths": {".github/workflows/": true}})" << "{}"
        << "/protected_paths/.github~1workflows~1" << "true";
    QTest::newRow("all protected paths removed with null")
        << "{}" << R"({"protected_paths": null})" << "/protected_paths" << "{}";
    QTest::newRow("network loopback")
        << R"({"network": "loopback"})" << "{}" << "/network" << R"("loopback")";
    QTest::newRow("empty hostname falls back")
        << R"({"hostname": ""})" << "{}" << "/hostname" << R"("sandbox")";
    QTest::newRow("seccomp rows skipped")
        << R"({"seccomp": {"skip": ["ptrace"]}})" << "{}" << "/seccomp/skip" << R"(["ptrace"])";
    QTest::newRow("read-only workspace")
        << R"({"workspace": {"writable": false}})" << "{}" << "/workspace/writable" << "false";
    QTest::newRow("command line workspace wins over the profile's")
        << R"({"workspace": {"source": "/srv/a"}})" << R"({"workspace": {"source": "/srv/b"}})"
        << "/workspace/source" << R"("/srv/b")";
    QTest::newRow("custom user") << R"({"user": {"name": "dev", "uid": 1500}})" << "{}" << "/user"
                                 << R"({"name": "dev", "uid": 1500, "gid": 1000, "home": "/home/agent",
                                        "shell": "/bin/sh"})";
}
// clang-format on

void TestSandboxProfile::layering() {
    QFETCH(QString, profileLayer);
    QFETCH(QString, cliLayer);
    QFETCH(QString, pointer);
    QFETCH(QString, expected);

    auto profile = resolveOverDefault(parse(profileLayer), parse(cliLayer));
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    const json resolved = profile->toJson();
    const json::json_pointer at(pointer.toStdString());
    if (expected == kAbsent) {
        QVERIFY2(!resolved.contains(at), resolved.contains(at) ? resolved.at(at).dump().c_str() : "");
        return;
    }
    QVERIFY2(resolved.contains(at), qPrintable(pointer + " missing"));
    QCOMPARE(qs(resolved.at(at).dump()), qs(parse(expected).dump()));
}

// Each row is a profile layer over the default (the command-line layer sets the workspace before it).
// clang-format off
void TestSandboxProfile::invalidProfile_data() {
    QTest::addColumn<QString>("layer");
    QTest::addColumn<QString>("message"); // a part of the error the user must see

    // Unknown keys: a typo must not become a setting that silently does nothing.
    QTest::newRow("unknown top-level key") << R"({"hostnme": "x"})" << R"(unknown key "hostnme" (known: hostname, user, workspace, mounts, env, env_passthrough, network, limits, seccomp, protected_paths))";
    QTest::newRow("unknown limits key")
        << R"({"limits": {"memroy_mb": 1}})" << R"(limits: unknown key "memroy_mb" (known: memory_mb, pids,)";
    QTest::newRow("unknown mount key")
        << R"({"mounts": {"/tmp": {"sizemb": 1}}})" << R"(mounts["/tmp"]: unknown key "sizemb" (known: type, source, target, size_mb, optional))";
    QTest::newRow("unknown user key") << R"({"user": {"home_dir": "/h"}})" << R"(user: unknown key "home_dir" (known: name, uid, gid, home, shell))";
    QTest::newRow("unknown workspace key")
        << R"({"workspace": {"src": "/x"}})" << R"(workspace: unknown key "src" (known: source, dest, writable))";
    QTest::newRow("unknown seccomp key")
        << R"({"seccomp": {"skipped": []}})" << R"(seccomp: unknown key "skipped" (known: skip))";

    // Wrong types.
    QTest::newRow("hostname not a string") << R"({"hostname": 5})" << "hostname: must be a string, got the integer 5";
    QTest::newRow("limit given as a string")
        << R"({"limits": {"pids": "10"}})" << "limits.pids: must be a non-negative integer, got a string";
    QTest::newRow("limit given as a boolean")
        << R"({"limits": {"pids": true}})" << "limits.pids: must be a non-negative integer, got true";
    QTest::newRow("writable not a boolean")
        << R"({"workspace": {"writable": "yes"}})" << "workspace.writable: must be true or false, got a string";
    QTest::newRow("env_passthrough not an array")
        << R"({"env_passthrough": "TERM"})" << "env_passthrough: must be an array, got a string";
    QTest::newRow("mount optional not a boolean")
        << R"({"mounts": {"/lib32": {"optional": "yes"}}})"
        << R"(mounts["/lib32"].optional: must be true or false, got a string)";
    QTest::newRow("uid given as a string") << R"({"user": {"uid": "1000"}})" << "user.uid: must be a whole number from 0 to 4294967295, got a string";
    QTest::newRow("network not a string") << R"({"network": false})" << "network: must be a string, got false";
    QTest::newRow("seccomp skip not an array")
        << R"({"seccomp": {"skip": "ptrace"}})" << "seccomp.skip: must be an array, got a string";
    QTest::newRow("mounts not an object") << R"({"mounts": ["/usr"]})" << "mounts must be an object";
    QTest::newRow("mount not an object")
        << R"({"mounts": {"/opt": "ro-bind"}})" << R"(mounts["/opt"]: must be an object, got a string)";
    QTest::newRow("limits not an object") << R"({"limits": 5})" << "limits: must be an object, got the integer 5";
    QTest::newRow("user not an object") << R"({"user": "agent"})" << "user: must be an object, got a string";
    QTest::newRow("env not an object") << R"({"env": ["A=1"]})" << "env must be an object";
    QTest::newRow("env value not a string") << R"({"env": {"DEBUG": 1}})" << "env.DEBUG: must be a string, got the integer 1";
    QTest::newRow("env name with an equals sign")
        << R"({"env": {"A=B": "c"}})" << R"(invalid variable name "A=B")";
    QTest::newRow("env name empty") << R"({"env": {"": "c"}})" << R"(invalid variable name "")";
    QTest::newRow("seccomp not an object") << R"({"seccomp": ["ptrace"]})" << "seccomp: must be an object, got an array";
    QTest::newRow("hostname with a newline") << R"({"hostname": "a\nb"})" << "hostname";
    QTest::newRow("hostname too long") << R"({"hostname": ")" + QString(64, 'a') + R"("})" << "at most 63";
    QTest::newRow("unknown network")
        << R"({"network": "host"})" << R"(network "host" is not one of none, loopback)";

    // Mounts.
    QTest::newRow("unknown mount type")
        << R"({"mounts": {"/opt": {"type": "overlay"}}})" << R"(mounts["/opt"].type "overlay" is not one of)";
    QTest::newRow("mount without a type")
        << R"({"mounts": {"/opt": {"source": "/opt"}}})" << R"(mounts["/opt"].type "" is not one of)";
    QTest::newRow("relative mount destination")
        << R"({"mounts": {"opt": {"type": "proc"}}})"
        << R"(mounts["opt"]: the destination must be an absolute path)";
    QTest::newRow("mount destination with dot-dot")
        << R"({"mounts": {"/opt/../etc": {"type": "proc"}}})" << "the destination must be an absolute path";
    QTest::newRow("mount destination with dot")
        << R"({"mounts": {"/opt/./x": {"type": "proc"}}})" << "the destination must be an absolute path";
    QTest::newRow("mount destination with double slash")
        << R"({"mounts": {"//opt": {"type": "proc"}}})" << "the destination must be an absolute path";
    QTest::newRow("mount destination with trailing slash")
        << R"({"mounts": {"/opt/": {"type": "proc"}}})" << "the destination must be an absolute path";
    QTest::newRow("mount over the root")
        << R"({"mounts": {"/": {"type": "tmpfs", "size_mb": 1}}})"
        << "the destination must be an absolute path below /";
    QTest::newRow("relative mount source")
        << R"({"mounts": {"/opt": {"type": "ro-bind", "source": "opt"}}})"
        << R"(mounts["/opt"].source must be an absolute host path)";
    QTest::newRow("mount source with dot-dot")
        << R"({"mounts": {"/opt": {"type": "ro-bind", "source": "/opt/../etc"}}})"
        << R"(mounts["/opt"].source must be an absolute host path)";
    QTest::newRow("bind without a source")
        << R"({"mounts": {"/opt": {"type": "bind"}}})"
        << R"(mounts["/opt"].source must be an absolute host path)";
    QTest::newRow("mirror without a source")
        << R"({"mounts": {"/opt": {"type": "mirror"}}})"
        << R"(mounts["/opt"].source must be an absolute host path)";
    QTest::newRow("tmpfs without a size")
        << R"({"mounts": {"/scratch": {"type": "tmpfs"}}})"
        << R"(mounts["/scratch"].size_mb is required for a tmpfs)";
    QTest::newRow("tmpfs of size zero")
        << R"({"mounts": {"/scratch": {"type": "tmpfs", "size_mb": 0}}})"
        << R"(mounts["/scratch"].size_mb is required for a tmpfs)";
    QTest::newRow("size on a bind")
        << R"({"mounts": {"/opt": {"type": "ro-bind", "source": "/opt", "size_mb": 5}}})"
        << R"(mounts["/opt"].size_mb only applies to type tmpfs)";
    QTest::newRow("source on a tmpfs")
        << R"({"mounts": {"/opt": {"type": "tmpfs", "source": "/opt", "size_mb": 5}}})"
        << R"(mounts["/opt"].source does not apply to type tmpfs)";
    QTest::newRow("source on proc")
        << R"({"mounts": {"/proc": {"source": "/proc"}}})"
        << R"(mounts["/proc"].source does not apply to type proc)";
    QTest::newRow("symlink without a target")
        << R"({"mounts": {"/opt": {"type": "symlink"}}})"
        << R"(mounts["/opt"].target is required for a symlink)";
    QTest::newRow("target on a bind")
        << R"({"mounts": {"/opt": {"type": "ro-bind", "source": "/opt", "target": "/x"}}})"
        << R"(mounts["/opt"].target only applies to type symlink)";
    QTest::newRow("mount hides the workspace")
        << R"({"mounts": {"/workspace": {"type": "tmpfs", "size_mb": 1}}})"
        << R"(mounts["/workspace"] hides the workspace)";
    QTest::newRow("mount hides a moved workspace")
        << R"({"workspace": {"dest": "/src"}, "mounts": {"/src": {"type": "ro-bind", "source": "/srv"}}})"
        << R"(mounts["/src"] hides the workspace)";

    // User.
    QTest::newRow("uid 0") << R"({"user": {"uid": 0}})" << "user.uid and user.gid must not be 0";
    QTest::newRow("gid 0") << R"({"user": {"gid": 0}})" << "user.uid and user.gid must not be 0";
    QTest::newRow("uppercase user name")
        << R"({"user": {"name": "Agent"}})" << "user.name must be a lowercase login name";
    QTest::newRow("user name with a colon")
        << R"({"user": {"name": "a:b"}})" << "user.name must be a lowercase login name";
    QTest::newRow("empty user name")
        << R"({"user": {"name": ""}})" << "user.name must be a lowercase login name";
    QTest::newRow("relative home")
        << R"({"user": {"home": "home/agent"}})" << "user.home and user.shell must be absolute";
    QTest::newRow("relative shell")
        << R"({"user": {"shell": "sh"}})" << "user.home and user.shell must be absolute";

    // Workspace.
    QTest::newRow("relative workspace source")
        << R"({"workspace": {"source": "project"}})" << "workspace.source must be an absolute path";
    QTest::newRow("workspace source removed")
        << R"({"workspace": {"source": null}})" << "workspace.source is not set: pass --workspace DIR";
    QTest::newRow("workspace at the root")
        << R"({"workspace": {"dest": "/"}})" << "workspace.dest must be an absolute path below /";
    QTest::newRow("relative workspace dest")
        << R"({"workspace": {"dest": "workspace"}})" << "workspace.dest must be an absolute path below /";
    QTest::newRow("workspace dest with dot-dot")
        << R"({"workspace": {"dest": "/a/../workspace"}})"
        << "workspace.dest must be an absolute path below /";

    // Protected paths.
    QTest::newRow("absolute protected path")
        << R"({"protected_paths": {"/etc/passwd": true}})"
        << R"(protected_paths["/etc/passwd"] must be a path relative to the workspace)";
    QTest::newRow("protected path leaving the workspace")
        << R"({"protected_paths": {"../x": true}})" << R"(protected_paths["../x"] must be a path relative)";
    QTest::newRow("protected path with dot")
        << R"({"protected_paths": {"./.envrc": true}})"
        << R"(protected_paths["./.envrc"] must be a path relative)";
    QTest::newRow("protected path with double slash")
        << R"({"protected_paths": {"a//b": true}})" << R"(protected_paths["a//b"] must be a path relative)";
    QTest::newRow("protected path that is only a slash")
        << R"({"protected_paths": {"/": true}})" << R"(protected_paths["/"] must be a path relative)";
    QTest::newRow("protected path not a boolean")
        << R"({"protected_paths": {".envrc": "yes"}})"
        << R"(protected_paths[".envrc"] must be true, "if-exists" or false)";
    QTest::newRow("protected path mode misspelt")
        << R"({"protected_paths": {".envrc": "if_exists"}})"
        << R"(protected_paths[".envrc"] must be true, "if-exists" or false)";
    QTest::newRow("protected path mode as a number")
        << R"({"protected_paths": {".envrc": 1}})"
        << R"(protected_paths[".envrc"] must be true, "if-exists" or false)";
    QTest::newRow("protected paths not an object")
        << R"({"protected_paths": [".envrc"]})" << "protected_paths must be an object";
}
// clang-format on

void TestSandboxProfile::invalidProfile() {
    QFETCH(QString, layer);
    QFETCH(QString, message);

    auto profile = resolveOverDefault(parse(layer));
    QVERIFY2(!profile.ok(), qPrintable("accepted: " + layer));
    QCOMPARE(profile.error().code, ErrorCode::InvalidArgument);
    const QString actual = qs(profile.error().message);
    QVERIFY2(actual.startsWith("invalid sandbox profile: "), qPrintable(actual));
    QVERIFY2(actual.contains(message), qPrintable("\"" + message + "\" not in: " + actual));
}

// JSON has one number type; a value a count or id cannot hold must be refused, not converted: -1 must not
// wrap to the largest value (an uncapped tmpfs, an unlimited memory limit), 1.5 must not be truncated,
// 2^32 + 1000 must not become uid 1000.
// clang-format off
void TestSandboxProfile::numbersOutOfRange_data() {
    QTest::addColumn<QString>("layer");
    QTest::addColumn<QString>("key"); // the error must name it

    QTest::newRow("negative memory limit") << R"({"limits": {"memory_mb": -1}})" << "limits.memory_mb";
    QTest::newRow("fractional memory limit") << R"({"limits": {"memory_mb": 1.5}})" << "limits.memory_mb";
    QTest::newRow("negative tmpfs size") << R"({"mounts": {"/tmp": {"size_mb": -1}}})" << "size_mb";
    QTest::newRow("uid beyond 32 bits") << R"({"user": {"uid": 4294968296}})" << "user.uid";
    QTest::newRow("negative uid") << R"({"user": {"uid": -1}})" << "user.uid";
    QTest::newRow("uid given as a boolean") << R"({"user": {"uid": true}})" << "user.uid";
}
// clang-format on

void TestSandboxProfile::numbersOutOfRange() {
    QFETCH(QString, layer);
    QFETCH(QString, key);

    auto profile = resolveOverDefault(parse(layer));
    QVERIFY2(!profile.ok(), qPrintable("accepted: " + layer + " as " +
                                       (profile.ok() ? describe(*profile).join("; ") : QString())));
    QVERIFY2(qs(profile.error().message).contains(key), profile.error().message.c_str());
}

// clang-format off
void TestSandboxProfile::mountSpec_data() {
    QTest::addColumn<QString>("mount"); // the value of mounts["/opt/x"]
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("target");
    QTest::addColumn<qulonglong>("sizeMb");
    QTest::addColumn<bool>("optional");

    using Type = MountSpec::Type;
    QTest::newRow("ro-bind")
        << R"({"type": "ro-bind", "source": "/opt/y"})" << int(Type::RoBind) << "/opt/y" << "" << 0ull
        << false;
    QTest::newRow("bind")
        << R"({"type": "bind", "source": "/srv"})" << int(Type::Bind) << "/srv" << "" << 0ull << false;
    QTest::newRow("optional mirror")
        << R"({"type": "mirror", "source": "/lib32", "optional": true})" << int(Type::Mirror) << "/lib32"
        << "" << 0ull << true;
    QTest::newRow("symlink with a relative target")
        << R"({"type": "symlink", "target": "usr/bin"})" << int(Type::Symlink) << "" << "usr/bin" << 0ull
        << false;
    QTest::newRow("tmpfs")
        << R"({"type": "tmpfs", "size_mb": 64})" << int(Type::Tmpfs) << "" << "" << 64ull << false;
    QTest::newRow("proc") << R"({"type": "proc"})" << int(Type::Proc) << "" << "" << 0ull << false;
    QTest::newRow("dev") << R"({"type": "dev"})" << int(Type::Dev) << "" << "" << 0ull << false;
}
// clang-format on

void TestSandboxProfile::mountSpec() {
    QFETCH(QString, mount);
    QFETCH(int, type);
    QFETCH(QString, source);
    QFETCH(QString, target);
    QFETCH(qulonglong, sizeMb);
    QFETCH(bool, optional);

    auto profile = resolveOverDefault({{"mounts", {{"/opt/x", parse(mount)}}}});
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    const MountSpec* spec = findMount(*profile, "/opt/x");
    QVERIFY(spec);
    QCOMPARE(int(spec->type), type);
    QCOMPARE(qs(spec->source), source);
    QCOMPARE(qs(spec->target), target);
    QCOMPARE(qulonglong(spec->sizeMb), sizeMb);
    QCOMPARE(spec->optional, optional);
}

void TestSandboxProfile::mountsSortedParentsFirst() {
    // Written children first, and with a sibling ("/opt/a-b") that sorts between a parent and its child.
    const json layer = parse(R"({"mounts": {
        "/opt/a/b/c": {"type": "tmpfs", "size_mb": 1},
        "/opt/a/b": {"type": "tmpfs", "size_mb": 1},
        "/opt/a-b": {"type": "tmpfs", "size_mb": 1},
        "/opt/a": {"type": "tmpfs", "size_mb": 1},
        "/opt": {"type": "tmpfs", "size_mb": 1},
        "/home/agent/.cache": {"type": "tmpfs", "size_mb": 1}}})");
    auto profile = resolveOverDefault(layer);
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());

    const auto& mounts = profile->mounts;
    for (std::size_t child = 0; child < mounts.size(); ++child)
        for (std::size_t parent = 0; parent < mounts.size(); ++parent)
            if (parent != child && isUnder(mounts[child].dest, mounts[parent].dest))
                QVERIFY2(parent < child,
                         (mounts[parent].dest + " after its child " + mounts[child].dest).c_str());
    QVERIFY(findMount(*profile, "/opt/a/b/c"));
    QVERIFY(findMount(*profile, "/home/agent/.cache"));
}

// clang-format off
void TestSandboxProfile::protectedPaths_data() {
    QTest::addColumn<QString>("layer"); // replaces the default's protected paths
    QTest::addColumn<QStringList>("expected");

    QTest::newRow("file") << R"({".envrc": true})" << QStringList{"protected .envrc"};
    QTest::newRow("directory keeps its trailing slash as a flag")
        << R"({".git/hooks/": true})" << QStringList{"protected .git/hooks/"};
    QTest::newRow("false entries are left out")
        << R"({".envrc": false, ".vscode/": true})" << QStringList{"protected .vscode/"};
    QTest::newRow("file only if it exists")
        << R"({".envrc": "if-exists"})" << QStringList{"protected .envrc if-exists"};
    QTest::newRow("directory only if it exists")
        << R"({".idea/": "if-exists"})" << QStringList{"protected .idea/ if-exists"};
    QTest::newRow("nested path")
        << R"({".github/workflows/ci.yml": true})" << QStringList{"protected .github/workflows/ci.yml"};
    QTest::newRow("none") << "{}" << QStringList{};
}
// clang-format on

void TestSandboxProfile::protectedPaths() {
    QFETCH(QString, layer);
    QFETCH(QStringList, expected);

    auto profile = resolveOverDefault({{"protected_paths", nullptr}}, {{"protected_paths", parse(layer)}});
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    QCOMPARE(describe(*profile).filter(QRegularExpression("^protected ")), expected);

    for (const auto& path : profile->protectedPaths)
        QVERIFY2(path.path.back() != '/', path.path.c_str());
}

// clang-format off
void TestSandboxProfile::roundTrip_data() {
    QTest::addColumn<QString>("layer");

    QTest::newRow("default") << "{}";
    QTest::newRow("every mount type") << R"({"mounts": {
        "/opt/ro": {"type": "ro-bind", "source": "/opt/ro", "optional": true},
        "/opt/rw": {"type": "bind", "source": "/srv/rw"},
        "/opt/mirror": {"type": "mirror", "source": "/opt/mirror"},
        "/opt/link": {"type": "symlink", "target": "../usr/lib"},
        "/opt/scratch": {"type": "tmpfs", "size_mb": 7}}})";
    QTest::newRow("read-only moved workspace, loopback, custom user")
        << R"({"workspace": {"dest": "/src", "writable": false}, "network": "loopback",
               "user": {"name": "dev", "uid": 1500, "gid": 1600, "home": "/home/dev",
                        "shell": "/bin/bash"}})";
    QTest::newRow("every limit set") << R"({"limits": {"memory_mb": 1, "pids": 2, "cpu_seconds": 3,
               "file_size_mb": 4, "open_files": 5, "address_space_mb": 6, "timeout_sec": 7}})";
    QTest::newRow("env, passthrough, seccomp skip")
        << R"({"env": {"A": "1", "EMPTY": ""}, "env_passthrough": ["TERM", "LC_ALL"],
               "seccomp": {"skip": ["ptrace"]}})";
    QTest::newRow("strict and if-exists protected paths")
        << R"({"protected_paths": {"Makefile": "if-exists", ".github/": true, ".envrc": true}})";
    QTest::newRow("protected file and directory of the same name")
        << R"({"protected_paths": {"x": true, "x/": true, ".envrc": false}})";
    QTest::newRow("no protected paths, no mounts") << R"({"protected_paths": null, "mounts": null})";
}
// clang-format on

void TestSandboxProfile::roundTrip() {
    QFETCH(QString, layer);

    auto profile = resolveOverDefault(parse(layer));
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    const json printed = profile->toJson();
    auto reread = SandboxProfile::fromJson(printed);
    QVERIFY2(reread.ok(), reread.ok() ? "" : reread.error().message.c_str());
    QCOMPARE(describe(*reread), describe(*profile));
    QCOMPARE(qs(reread->toJson().dump(2)), qs(printed.dump(2)));
}

// clang-format off
void TestSandboxProfile::parseLayer_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message"); // empty: the layer parses

    QTest::newRow("object") << R"({"hostname": "x", "mounts": {"/usr": null}})" << "";
    QTest::newRow("empty object") << "{}" << "";
    QTest::newRow("array") << R"(["hostname"])" << "my.json: a sandbox profile must be a JSON object";
    QTest::newRow("string") << R"("x")" << "my.json: a sandbox profile must be a JSON object";
    QTest::newRow("truncated") << R"({"hostname": )" << "my.json: not valid JSON";
    QTest::newRow("trailing comma") << R"({"hostname": "x",})" << "my.json: not valid JSON";
    QTest::newRow("empty file") << "" << "my.json: not valid JSON";
}
// clang-format on

void TestSandboxProfile::parseLayer() {
    QFETCH(QString, text);
    QFETCH(QString, message);

    auto layer = parseProfileLayer(text.toStdString(), "my.json");
    if (message.isEmpty()) {
        QVERIFY2(layer.ok(), layer.ok() ? "" : layer.error().message.c_str());
        QCOMPARE(qs(layer->dump()), qs(parse(text).dump()));
        return;
    }
    QVERIFY(!layer.ok());
    QCOMPARE(layer.error().code, ErrorCode::InvalidArgument);
    QVERIFY2(qs(layer.error().message).startsWith(message), layer.error().message.c_str());
}

void TestSandboxProfile::names() {
    QCOMPARE(qs(networkPolicyName(NetworkPolicy::None)), QString("none"));
    QCOMPARE(qs(networkPolicyName(NetworkPolicy::Loopback)), QString("loopback"));
    using Type = MountSpec::Type;
    const std::vector<std::pair<Type, QString>> types = {
        {Type::RoBind, "ro-bind"}, {Type::Bind, "bind"}, {Type::Mirror, "mirror"}, {Type::Symlink, "symlink"},
        {Type::Tmpfs, "tmpfs"},    {Type::Proc, "proc"}, {Type::Dev, "dev"}};
    for (const auto& [type, name] : types)
        QCOMPARE(qs(mountTypeName(type)), name);
}

QTEST_GUILESS_MAIN(TestSandboxProfile)
#include "tst_sandbox_profile.moc"
