#include "tests/support/PodmanTest.h"

#include "tests/support/AgentRun.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

namespace warren::test {
namespace {

bool podmanSucceeds(const QStringList& arguments) {
    QProcess process;
    process.start(QStringLiteral("podman"), arguments);
    return process.waitForFinished(120000) && process.exitStatus() == QProcess::NormalExit &&
           process.exitCode() == 0;
}

} // namespace

QString testImage() {
    const QString fromEnv = qEnvironmentVariable("WARREN_TEST_IMAGE");
    return fromEnv.isEmpty() ? QStringLiteral("localhost/warren-test:3") : fromEnv;
}

QString podmanSkipReason() {
    if (qEnvironmentVariable("WARREN_AGENT_STATIC") == QLatin1String("0"))
        return QStringLiteral(
            "the agent of this build is dynamically linked (sanitizers): it cannot run on an "
            "image without the host's libraries");
    if (QStandardPaths::findExecutable(QStringLiteral("podman")).isEmpty())
        return QStringLiteral("podman is not installed: the container backends cannot be tested here");
    if (qEnvironmentVariableIsEmpty("CONTAINERS_CONF") &&
        !QStandardPaths::findExecutable(QStringLiteral("runc")).isEmpty()) {
        const QString conf = QDir(resourcesDir()).filePath(QStringLiteral("../packaging/containers.conf"));
        if (QFileInfo::exists(conf))
            qputenv("CONTAINERS_CONF", QFileInfo(conf).canonicalFilePath().toLocal8Bit());
    }
    if (!podmanSucceeds({QStringLiteral("info")}))
        return QStringLiteral("podman does not answer here (`podman info` failed)");
    if (!podmanSucceeds({QStringLiteral("image"), QStringLiteral("inspect"), testImage()}))
        return QStringLiteral(
                   "the image %1 is not present: build it with packaging/make-test-image.sh, or set "
                   "WARREN_TEST_IMAGE")
            .arg(testImage());
    return {};
}

} // namespace warren::test
