// keptContainerPreflight: a second launch within kPreflightKept asks the engine nothing about itself, and
// only about an image it has not found yet; what failed is asked again (a problem fixed shows at once), and
// another configuration of the engine is another engine. The limits are checked at each launch against the
// kept answer. sweepDue: the first launch sweeps, the next within kPreflightKept does not. A fake `podman` on
// PATH logs what it is asked.
#include "sandbox/container/KeptPreflight.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>

using namespace warren::sandbox;

namespace {

// podman info: the answer of a rootful podman with both limits; image inspect: present unless named
// "missing"; each call appended to calls.log. A file "broken" beside it makes info fail.
const char* kFakePodman = R"(#!/bin/sh
dir=${0%/*}
echo "$*" >> "$dir/calls.log"
case "$1" in
info)
    [ -e "$dir/broken" ] && { echo "cannot connect" >&2; exit 125; }
    echo '{"host": {"cgroupVersion": "v2", "cgroupControllers": ["memory", "pids"], "security": {"rootless": false, "seccompEnabled": true}}, "version": {"Version": "4.3.1"}}' ;;
image)
    [ "$5" = missing ] && { echo "image not known" >&2; exit 125; }
    echo sha256:0123 ;;
esac
)";

} // namespace

class TestKeptPreflight : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QFile fake(m_dir.filePath("podman"));
        QVERIFY(fake.open(QIODevice::WriteOnly));
        fake.write(kFakePodman);
        fake.close();
        QVERIFY(fake.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        QVERIFY(::setenv("PATH", QFile::encodeName(m_dir.path()).constData(), 1) == 0);
        ::unsetenv("CONTAINERS_CONF");
    }

    void aSecondLaunchAsksOnlyAboutANewImage() {
        SandboxLimits limits;
        limits.memoryMb = 512;
        QVERIFY2(keptContainerPreflight(ContainerEngine::Podman, "a:1", limits).ok(), qPrintable(calls().join('\n')));
        QCOMPARE(calls(), (QStringList{"info --format json", "image inspect --format {{.Id}} a:1"}));
        const PreflightReport again = keptContainerPreflight(ContainerEngine::Podman, "a:1", limits);
        QVERIFY(again.ok());
        QVERIFY(again.find("engine info") && again.find("image") && again.find("container limits"));
        QCOMPARE(again.enginePath, m_dir.filePath("podman").toStdString());
        QVERIFY(again.engine.memoryLimit);
        QCOMPARE(calls().size(), 2); // nothing asked
        QVERIFY(keptContainerPreflight(ContainerEngine::Podman, "b:2", limits).ok());
        QCOMPARE(calls().size(), 3);
        QCOMPARE(calls().back(), QString("image inspect --format {{.Id}} b:2"));
    }

    // A missing image is asked about at each launch: once imported, the next launch finds it.
    void aMissingImageIsAskedAgain() {
        const int before = static_cast<int>(calls().size());
        QVERIFY(!keptContainerPreflight(ContainerEngine::Podman, "missing", {}).ok());
        QVERIFY(!keptContainerPreflight(ContainerEngine::Podman, "missing", {}).ok());
        QCOMPARE(calls().size(), before + 2);
        QVERIFY(calls().back().endsWith("missing"));
    }

    // Another containers.conf is another engine: asked afresh; one that does not answer is not kept.
    void anotherConfigurationIsAnotherEngine() {
        QVERIFY(::setenv("CONTAINERS_CONF", "/elsewhere.conf", 1) == 0);
        QFile broken(m_dir.filePath("broken"));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.close();
        const int before = static_cast<int>(calls().size());
        const PreflightReport failed = keptContainerPreflight(ContainerEngine::Podman, "a:1", {});
        QVERIFY(!failed.ok());
        QVERIFY(!engineAnswered(failed));
        QVERIFY(QFile::remove(m_dir.filePath("broken")));
        QVERIFY(keptContainerPreflight(ContainerEngine::Podman, "a:1", {}).ok());
        QVERIFY(calls().mid(before).count("info --format json") >= 2); // the failure was not kept
        ::unsetenv("CONTAINERS_CONF");
    }

    // The limits are the launch's own: checked against the kept answer each time.
    void theLimitsAreCheckedAtEachLaunch() {
        QFile::remove(m_dir.filePath("calls.log"));
        ::setenv("CONTAINERS_CONF", "/v1.conf", 1);
        QFile fake(m_dir.filePath("podman"));
        QVERIFY(fake.open(QIODevice::ReadOnly));
        QByteArray text = fake.readAll();
        fake.close();
        // This engine cannot limit memory: a launch that asks for a memory limit fails, one that does not passes.
        text.replace("[\"memory\", \"pids\"]", "[\"pids\"]");
        QFile::remove(m_dir.filePath("podman"));
        QVERIFY(fake.open(QIODevice::WriteOnly));
        fake.write(text);
        fake.close();
        QVERIFY(fake.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        SandboxLimits memory;
        memory.memoryMb = 256;
        QVERIFY(keptContainerPreflight(ContainerEngine::Podman, "a:1", {}).ok());
        const PreflightReport limited = keptContainerPreflight(ContainerEngine::Podman, "a:1", memory);
        QVERIFY(!limited.ok());
        QCOMPARE(limited.find("container limits")->status, PreflightCheck::Status::Failed);
        QCOMPARE(calls().count("info --format json"), 1);
        ::unsetenv("CONTAINERS_CONF");
    }

    void theFirstLaunchSweepsTheNextDoesNot() {
        QVERIFY(sweepDue("/usr/bin/podman"));
        QVERIFY(!sweepDue("/usr/bin/podman"));
        QVERIFY(sweepDue("/usr/bin/docker"));
    }

private:
    QStringList calls() const {
        QFile log(m_dir.filePath("calls.log"));
        if (!log.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(log.readAll()).split('\n', Qt::SkipEmptyParts);
    }

    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestKeptPreflight)
#include "tst_kept_preflight.moc"
