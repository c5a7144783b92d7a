// SingleInstance: the first claim wins and hears from later ones, a socket left by a killed primary is taken
// over, and names are per user and per data directory so tests never meet a real instance.

#include "ui/desktop/SingleInstance.h"

#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace warren::ui;

namespace {

// What a primary killed with SIGKILL leaves: a socket file nobody listens on.
bool createStaleSocket(const QString& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return false;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray encoded = QFile::encodeName(path);
    if (static_cast<std::size_t>(encoded.size()) >= sizeof(address.sun_path)) {
        ::close(fd);
        return false;
    }
    std::memcpy(address.sun_path, encoded.constData(), static_cast<std::size_t>(encoded.size()));
    const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
    ::close(fd); // closed without unlink: the file stays
    return bound && QFileInfo::exists(path);
}

} // namespace

class TestSingleInstance : public QObject {
    Q_OBJECT

private slots:
    void secondInstanceActivatesTheFirst() {
        QTemporaryDir dataDir;
        QVERIFY(dataDir.isValid());
        const QString name = SingleInstance::serverName(dataDir.path());
        SingleInstance primary(name);
        QVERIFY(primary.claim());
        QVERIFY(!primary.fullServerName().isEmpty());
        QSignalSpy activated(&primary, &SingleInstance::activated);

        SingleInstance second(name);
        QVERIFY(!second.claim());
        QVERIFY(second.fullServerName().isEmpty());
        QVERIFY(activated.wait(5000));
        QCOMPARE(activated.count(), 1);

        SingleInstance third(name); // again, after the first conversation ended
        QVERIFY(!third.claim());
        QTRY_COMPARE(activated.count(), 2);
    }

    void socketIsPrivateToTheUser() {
        QTemporaryDir dataDir;
        SingleInstance primary(SingleInstance::serverName(dataDir.path()));
        QVERIFY(primary.claim());
        const QFileInfo socket(primary.fullServerName());
        QVERIFY(socket.exists());
        QCOMPARE(socket.ownerId(), ::getuid());
        const auto others = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
                            QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
        QCOMPARE(socket.permissions() & others, QFileDevice::Permissions());
    }

    void staleSocketIsTakenOver() {
        QTemporaryDir dataDir;
        const QString name = SingleInstance::serverName(dataDir.path());
        QString path;
        {
            SingleInstance killed(name);
            QVERIFY(killed.claim());
            path = killed.fullServerName();
        } // closing removed the file; a killed process would have left it
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(createStaleSocket(path));

        SingleInstance primary(name);
        QVERIFY(primary.claim());
        QCOMPARE(primary.fullServerName(), path);
        QSignalSpy activated(&primary, &SingleInstance::activated);
        SingleInstance second(name);
        QVERIFY(!second.claim()); // the new primary really listens there
        QVERIFY(activated.wait(5000));
    }

    void destroyingThePrimaryFreesTheName() {
        QTemporaryDir dataDir;
        const QString name = SingleInstance::serverName(dataDir.path());
        {
            SingleInstance first(name);
            QVERIFY(first.claim());
        }
        SingleInstance next(name);
        QVERIFY(next.claim());
    }

    void differentDataDirsDoNotCollide() {
        QTemporaryDir a;
        QTemporaryDir b;
        const QString nameA = SingleInstance::serverName(a.path());
        const QString nameB = SingleInstance::serverName(b.path());
        QVERIFY(nameA != nameB);
        SingleInstance first(nameA);
        SingleInstance second(nameB);
        QSignalSpy activated(&first, &SingleInstance::activated);
        QVERIFY(first.claim());
        QVERIFY(second.claim());
        QCoreApplication::processEvents();
        QCOMPARE(activated.count(), 0);
    }

    void nameDependsOnDirectoryNotSpelling() {
        QTemporaryDir dataDir;
        QVERIFY(QDir(dataDir.path()).mkpath("data"));
        const QString direct = dataDir.path() + "/data";
        const QString name = SingleInstance::serverName(direct);
        QCOMPARE(SingleInstance::serverName(direct + "/"), name);
        QCOMPARE(SingleInstance::serverName(dataDir.path() + "/data/../data"), name);
        QVERIFY(QFile::link(direct, dataDir.path() + "/link"));
        QCOMPARE(SingleInstance::serverName(dataDir.path() + "/link"), name);
        QVERIFY(SingleInstance::serverName(dataDir.path() + "/missing") != name);
        // per user: the uid is part of the name
        QVERIFY(QFileInfo(name).fileName().startsWith(QStringLiteral("warren-%1-").arg(::getuid())));
    }
};

QTEST_GUILESS_MAIN(TestSingleInstance)
#include "tst_single_instance.moc"
