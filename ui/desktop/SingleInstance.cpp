#include "ui/desktop/SingleInstance.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLockFile>
#include <unistd.h>

namespace warren::ui {

namespace {

constexpr int kConnectTimeoutMs = 1000;
constexpr int kLockTimeoutMs = 3000;
constexpr qint64 kMaxMessageBytes = 64;
const QByteArray kActivateMessage = QByteArrayLiteral("activate");

// Where Qt puts the socket: a bare name goes to the temporary directory.
QString socketPath(const QString& serverName) {
    return QDir::isAbsolutePath(serverName) ? serverName : QDir(QDir::tempPath()).filePath(serverName);
}

} // namespace

QString SingleInstance::serverName(const QString& dataDir) {
    // One directory written two ways ("data/", "./data", through a symlink) is still one instance.
    const QFileInfo info(dataDir);
    const QString path = info.exists() ? info.canonicalFilePath() : QDir::cleanPath(info.absoluteFilePath());
    const QByteArray hash =
        QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha256).toHex().left(12);
    const QString name = QStringLiteral("warren-%1-%2").arg(::getuid()).arg(QString::fromLatin1(hash));
    const QString runtimeDir = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!runtimeDir.isEmpty() && QFileInfo(runtimeDir).isDir())
        return QDir(runtimeDir).filePath(name);
    return name;
}

SingleInstance::SingleInstance(QString serverName, QObject* parent)
    : QObject(parent), m_serverName(std::move(serverName)) {}

SingleInstance::~SingleInstance() = default; // the server is a child: closing it removes the socket

bool SingleInstance::claim() {
    if (m_server)
        return true;
    // Two instances started together (a double click) must not both find no one, and then each remove the
    // socket the other has just created. Without the lock (someone else's file) this still works, racily.
    QLockFile lock(socketPath(m_serverName) + QStringLiteral(".lock"));
    const bool locked = lock.tryLock(kLockTimeoutMs);

    if (sendActivate())
        return false;
    // Nobody answered: a socket file still there was left by a primary that was killed.
    QLocalServer::removeServer(m_serverName);
    auto* server = new QLocalServer(this);
    server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!server->listen(m_serverName)) {
        m_error =
            QStringLiteral("Cannot listen on %1 (%2)%3; a second warren will open a second window.")
                .arg(socketPath(m_serverName), server->errorString(),
                     locked ? QString() : QStringLiteral(", and its lock file is held by someone else"));
        delete server;
        return true;
    }
    m_server = server;
    connect(m_server, &QLocalServer::newConnection, this, &SingleInstance::onNewConnection);
    return true;
}

QString SingleInstance::fullServerName() const {
    return m_server ? m_server->fullServerName() : QString();
}

bool SingleInstance::sendActivate() {
    QLocalSocket socket;
    socket.connectToServer(m_serverName);
    if (!socket.waitForConnected(kConnectTimeoutMs))
        return false;
    socket.write(kActivateMessage + '\n');
    socket.waitForBytesWritten(kConnectTimeoutMs);
    // The primary may be this very thread (or busy): the message waits in the socket for it, so no reply is
    // awaited. Disconnecting flushes what is still buffered.
    socket.disconnectFromServer();
    if (socket.state() != QLocalSocket::UnconnectedState)
        socket.waitForDisconnected(kConnectTimeoutMs);
    return true;
}

void SingleInstance::onNewConnection() {
    while (QLocalSocket* socket = m_server->nextPendingConnection()) {
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] { onMessage(socket); });
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        onMessage(socket); // the message may have arrived with the connection
    }
}

void SingleInstance::onMessage(QLocalSocket* socket) {
    if (!socket->canReadLine()) {
        if (socket->bytesAvailable() > kMaxMessageBytes)
            socket->abort(); // not one of ours
        return;
    }
    const QByteArray message = socket->readLine(kMaxMessageBytes).trimmed();
    socket->disconnectFromServer();
    if (message == kActivateMessage)
        emit activated();
}

} // namespace warren::ui
