// ContainerSpec: what a container of a profile holds, decided once for DockerCommand and KubeManifest. Each
// row is a profile and a place (this host, or a cluster's node) and the mounts in order, as text; the
// renderers' own tests (tst_docker_command, tst_kube_manifest) check what each engine makes of them.

#include "sandbox/container/ContainerSpec.h"

#include <QtTest>

using namespace warren;
using namespace warren::sandbox;
using nlohmann::json;

namespace {

const std::string kWorkspace = "/home/user/project";
const std::string kDataDir = "/run/warren/c1";

Result<SandboxProfile> profileWith(const QString& patch) {
    const json base = {{"hostname", "box"}, {"workspace", {{"source", kWorkspace}}}, {"env", {{"PATH", "/usr/bin"}}}};
    return resolveProfile({base, json::parse(patch.toStdString())});
}

HostEntry fakeHost(const std::string& path) {
    if (path == "/srv/data" || path == "/usr")
        return {HostEntry::Kind::Directory, {}};
    if (path == "/srv/tool")
        return {HostEntry::Kind::File, {}};
    if (path == "/compat")
        return {HostEntry::Kind::Symlink, "usr/compat"};
    return {};
}

ContainerSpecInput input(bool onHost) {
    ContainerSpecInput in;
    in.image = "localhost/warren-test:3";
    in.engineWords = "an engine";
    if (onHost) {
        in.dataDir = kDataDir;
        in.workspaceHostPath = kWorkspace;
    }
    in.protection.entries = {{".git", ProtectionEntry::Kind::Pin},
                             {".git/config", ProtectionEntry::Kind::ReadOnly},
                             {".envrc", ProtectionEntry::Kind::PlaceholderFile},
                             {".vscode", ProtectionEntry::Kind::PlaceholderDir}};
    in.uid = 1000;
    in.gid = 1000;
    return in;
}

// "dest <- what ro|rw", what being the host path, memory:SIZE, empty, uploaded or workspace:RELATIVE.
QStringList describe(const ContainerSpec& spec) {
    QStringList lines;
    for (const auto& mount : spec.mounts) {
        QString what;
        switch (mount.kind) {
        case ContainerMount::Kind::HostPath:
            what = QString::fromStdString(mount.source) + (mount.directory ? "/" : "");
            break;
        case ContainerMount::Kind::Memory:
            what = QStringLiteral("memory:%1").arg(mount.sizeMb);
            break;
        case ContainerMount::Kind::EmptyDirectory:
            what = "empty";
            break;
        case ContainerMount::Kind::UploadedWorkspace:
            what = "uploaded";
            break;
        case ContainerMount::Kind::WorkspacePath:
            what = "workspace:" + QString::fromStdString(mount.relative);
            break;
        }
        lines << QString::fromStdString(mount.dest) + " <- " + what + (mount.readOnly ? " ro" : " rw");
    }
    return lines;
}

QString joined(const std::vector<std::string>& texts) {
    QStringList list;
    for (const auto& text : texts)
        list << QString::fromStdString(text);
    return list.join('\n');
}

} // namespace

class TestContainerSpec : public QObject {
    Q_OBJECT
private slots:
    void mounts_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("onHost");
        QTest::addColumn<QStringList>("expected");
        QTest::addColumn<QString>("notEnforced"); // text one entry contains; empty: none

        const QStringList hostWorkspace{"/etc/passwd <- /run/warren/c1/passwd ro",
                                        "/etc/group <- /run/warren/c1/group ro",
                                        "/workspace <- /home/user/project/ rw",
                                        "/workspace/.git <- /home/user/project/.git rw",
                                        "/workspace/.git/config <- /home/user/project/.git/config ro",
                                        "/workspace/.envrc <- /run/warren/c1/empty ro",
                                        "/workspace/.vscode <- empty ro"};
        QTest::newRow("this host: the profile's binds, then the system files, the workspace and its protected paths")
            << "{\"mounts\": {\"/data\": {\"type\": \"ro-bind\", \"source\": \"/srv/data\"}, "
               "\"/opt/tool\": {\"type\": \"bind\", \"source\": \"/srv/tool\"}}}"
            << true << QStringList{"/data <- /srv/data/ ro", "/opt/tool <- /srv/tool rw"} + hostWorkspace << "";
        QTest::newRow("this host: a tmpfs is memory of its size")
            << "{\"mounts\": {\"/tmp\": {\"type\": \"tmpfs\", \"size_mb\": 64}}}" << true
            << QStringList{"/tmp <- memory:64 rw"} + hostWorkspace << "";
        QTest::newRow("this host: what the image provides is not bound")
            << "{\"mounts\": {\"/usr\": {\"type\": \"ro-bind\", \"source\": \"/usr\"}}}" << true << hostWorkspace
            << "";
        QTest::newRow("this host: an optional source that is missing is skipped")
            << "{\"mounts\": {\"/opt/x\": {\"type\": \"ro-bind\", \"source\": \"/opt/nothing\", \"optional\": true}}}"
            << true << hostWorkspace << "";
        QTest::newRow("this host: a mirrored symlink is not created")
            << "{\"mounts\": {\"/compat\": {\"type\": \"mirror\", \"source\": \"/compat\"}}}" << true << hostWorkspace
            << "an engine cannot create symlinks";
        QTest::newRow("a cluster: the workspace is uploaded, its protected paths are its own, no file is held")
            << "{\"mounts\": {\"/tmp\": {\"type\": \"tmpfs\", \"size_mb\": 8}, "
               "\"/opt/x\": {\"type\": \"ro-bind\", \"source\": \"/opt/nothing\", \"optional\": true}}}"
            << false
            << QStringList{"/tmp <- memory:8 rw",           "/workspace <- uploaded rw",
                           "/workspace/.git <- workspace:.git rw", "/workspace/.git/config <- workspace:.git/config ro",
                           "/workspace/.vscode <- empty ro"}
            << "on a cluster it is not held";
    }
    void mounts() {
        QFETCH(QString, profile);
        QFETCH(bool, onHost);
        QFETCH(QStringList, expected);
        QFETCH(QString, notEnforced);
        auto resolved = profileWith(profile);
        QVERIFY2(resolved, resolved ? "" : resolved.error().message.c_str());
        auto spec = buildContainerSpec(*resolved, input(onHost), fakeHost);
        QVERIFY2(spec, spec ? "" : spec.error().message.c_str());
        QCOMPARE(describe(*spec), expected);
        if (notEnforced.isEmpty())
            QVERIFY2(spec->notEnforced.empty(), qPrintable(joined(spec->notEnforced)));
        else
            QVERIFY2(joined(spec->notEnforced).contains(notEnforced), qPrintable(joined(spec->notEnforced)));
        QCOMPARE(spec->files.empty(), !onHost);
        QCOMPARE(spec->env.at("PATH"), std::string("/usr/bin"));
    }

    // Refused before anything is rendered: a required source this host lacks, a bind a cluster's node cannot
    // have, and half of a place.
    void refusals_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("onHost");
        QTest::addColumn<bool>("halfPlace");
        QTest::addColumn<QString>("message");
        QTest::newRow("a missing required source")
            << "{\"mounts\": {\"/opt/x\": {\"type\": \"ro-bind\", \"source\": \"/opt/nothing\"}}}" << true << false
            << "does not exist on this host";
        QTest::newRow("a host bind on a cluster")
            << "{\"mounts\": {\"/data\": {\"type\": \"ro-bind\", \"source\": \"/srv/data\"}}}" << false << false
            << "which no cluster node has";
        QTest::newRow("a data directory without the workspace's host path") << "{}" << true << true << "needs both";
    }
    void refusals() {
        QFETCH(QString, profile);
        QFETCH(bool, onHost);
        QFETCH(bool, halfPlace);
        QFETCH(QString, message);
        auto resolved = profileWith(profile);
        QVERIFY(resolved);
        ContainerSpecInput in = input(onHost);
        if (halfPlace)
            in.workspaceHostPath.clear();
        auto spec = buildContainerSpec(*resolved, in, fakeHost);
        QVERIFY(!spec);
        QVERIFY2(QString::fromStdString(spec.error().message).contains(message), spec.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestContainerSpec)
#include "tst_container_spec.moc"
