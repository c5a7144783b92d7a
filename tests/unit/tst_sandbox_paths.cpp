// hostPathOf() and commandFound(): a sandbox path traced back to the host through the profile's mounts,
// with a fake host (no real filesystem), one row per case.

#include "sandbox/policy/SandboxPaths.h"

#include <QtTest>

using namespace warren::sandbox;

namespace {

SandboxProfile profile() {
    auto resolved = resolveProfile({nlohmann::json::parse(R"({
        "workspace": {"source": "/home/u/project", "dest": "/workspace"},
        "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"},
        "mounts": {
            "/usr": {"type": "ro-bind", "source": "/usr"},
            "/bin": {"type": "mirror", "source": "/bin"},
            "/lib": {"type": "symlink", "target": "usr/lib"},
            "/opt/tools": {"type": "ro-bind", "source": "/srv/tools"},
            "/tmp": {"type": "tmpfs", "size_mb": 1}
        }})")});
    return resolved.value();
}

// A merged-/usr host: /bin is a symlink to usr/bin.
HostEntry fakeHost(const std::string& path) {
    if (path == "/bin")
        return {HostEntry::Kind::Symlink, "usr/bin"};
    return {HostEntry::Kind::Directory, {}};
}

} // namespace

class TestSandboxPaths : public QObject {
    Q_OBJECT
private slots:
    void hostPathOf_data() {
        QTest::addColumn<QString>("inside");
        QTest::addColumn<QString>("host"); // empty: not backed by a host path
        QTest::newRow("bound directory") << "/usr/bin/env" << "/usr/bin/env";
        QTest::newRow("mount with another source") << "/opt/tools/x" << "/srv/tools/x";
        QTest::newRow("mirrored symlink followed") << "/bin/sh" << "/usr/bin/sh";
        QTest::newRow("profile symlink followed") << "/lib/libc.so" << "/usr/lib/libc.so";
        QTest::newRow("workspace") << "/workspace/run.sh" << "/home/u/project/run.sh";
        QTest::newRow("tmpfs") << "/tmp/x" << "";
        QTest::newRow("nothing mounted there") << "/etc/shadow" << "";
        QTest::newRow("prefix that is not a parent") << "/usrx/bin" << "";
    }

    void hostPathOf() {
        QFETCH(QString, inside);
        QFETCH(QString, host);
        const auto actual = warren::sandbox::hostPathOf(profile(), inside.toStdString(), fakeHost);
        QCOMPARE(actual ? QString::fromStdString(*actual) : QString(), host);
    }

    void commandFound_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<bool>("found");
        QTest::newRow("bare name on PATH") << "ls" << true;
        QTest::newRow("bare name missing") << "nonexistent-cmd" << false;
        QTest::newRow("absolute through a mirrored symlink") << "/bin/ls" << true;
        QTest::newRow("absolute missing") << "/usr/bin/nonexistent" << false;
        QTest::newRow("relative to the workspace") << "./run.sh" << true;
        QTest::newRow("absolute on a tmpfs") << "/tmp/x" << false;
    }

    void commandFound() {
        QFETCH(QString, command);
        QFETCH(bool, found);
        const auto executable = [](const std::string& host) {
            return host == "/usr/bin/ls" || host == "/home/u/project/./run.sh";
        };
        QCOMPARE(warren::sandbox::commandFound(profile(), command.toStdString(), executable, fakeHost), found);
    }
};

QTEST_GUILESS_MAIN(TestSandboxPaths)
#include "tst_sandbox_paths.moc"
