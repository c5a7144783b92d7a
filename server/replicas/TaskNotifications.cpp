#include "server/replicas/TaskNotifications.h"

#include "app/store/postgres/PgStore.h"
#include "server/accounts/AccountStore.h"

namespace warren::server {

namespace {

const std::string kListen = std::string("LISTEN ") + control::kTaskChangesChannel + "; LISTEN " +
                            accounts::kTaskRequestsChannel + "; LISTEN " + accounts::kTaskAnswersChannel;
constexpr const char* kWhat = "listen for changed tasks";

} // namespace

TaskNotifications::TaskNotifications(std::string databaseUrl, QObject* parent)
    : QObject(parent), m_url(std::move(databaseUrl)) {
    m_retry.setSingleShot(true);
    m_retry.setInterval(kRetryEvery);
    connect(&m_retry, &QTimer::timeout, this, &TaskNotifications::connectNow);
    m_connectDeadline.setSingleShot(true);
    m_connectDeadline.setInterval(kConnectTimeout);
    connect(&m_connectDeadline, &QTimer::timeout, this, [this] {
        lost(makeError(ErrorCode::Unavailable, "PostgreSQL at " + m_db->where() +
                                                   " did not finish connecting in " +
                                                   std::to_string(kConnectTimeout.count()) + " s"));
    });
    connectNow();
}

TaskNotifications::~TaskNotifications() {
    dropConnection();
}

void TaskNotifications::connectNow() {
    auto db = control::PgConnection::beginOpen(m_url);
    if (!db)
        return lost(db.error());
    m_db = std::move(*db);
    m_connectDeadline.start();
    watch(QSocketNotifier::Write); // libpq's first step waits for the socket to be writable
}

// A notifier for the socket as it is now: libpq may open another while it connects (a host of several).
void TaskNotifications::watch(QSocketNotifier::Type type) {
    if (m_socket) {
        m_socket->setEnabled(false);
        m_socket->deleteLater();
        m_socket = nullptr;
    }
    if (m_db->socket() < 0)
        return lost(
            makeError(ErrorCode::Unavailable, "libpq has no socket for PostgreSQL at " + m_db->where()));
    m_socket = new QSocketNotifier(m_db->socket(), type, this);
    connect(m_socket, &QSocketNotifier::activated, this, &TaskNotifications::onSocketReady);
}

void TaskNotifications::onSocketReady() {
    if (!m_db)
        return;
    if (m_connected)
        readNotifications();
    else
        continueConnecting();
}

void TaskNotifications::continueConnecting() {
    auto next = m_db->continueOpen();
    if (!next)
        return lost(next.error());
    if (*next != control::PgConnection::OpenWait::Ready)
        return watch(*next == control::PgConnection::OpenWait::Read ? QSocketNotifier::Read
                                                                    : QSocketNotifier::Write);
    m_connectDeadline.stop();
    if (auto sent = m_db->send(kWhat, kListen); !sent)
        return lost(sent.error());
    m_connected = true;
    watch(QSocketNotifier::Read);
}

void TaskNotifications::readNotifications() {
    auto received = m_db->receive(kWhat);
    if (!received)
        return lost(received.error());
    if (received->answered && !m_listening) {
        // Only now is every later change heard: what the streams read from here on misses nothing.
        m_listening = true;
        if (m_saidLost)
            emit logLine(QString::fromStdString("listening for changed tasks again on " + m_db->where()));
        m_saidLost = false;
        emit anythingMayHaveChanged();
    }
    for (const auto& notification : received->notifications) {
        if (notification.channel == control::kTaskChangesChannel)
            emit taskChanged(notification.payload);
        else if (notification.channel == accounts::kTaskRequestsChannel)
            emit requestWaiting(notification.payload);
        else if (notification.channel == accounts::kTaskAnswersChannel)
            emit requestAnswered(notification.payload);
    }
}

void TaskNotifications::lost(const Error& error) {
    dropConnection();
    if (!m_saidLost)
        emit logLine(QString::fromStdString(
            error.message +
            "; the event streams of tasks another warrend runs catch up at their keep-alive "
            "until it listens again (retrying every " +
            std::to_string(kRetryEvery.count()) + " s)"));
    m_saidLost = true;
    m_retry.start();
}

void TaskNotifications::dropConnection() {
    m_connectDeadline.stop();
    if (m_socket) {
        m_socket->setEnabled(false); // before its descriptor closes with the connection
        m_socket->deleteLater();
        m_socket = nullptr;
    }
    m_db.reset();
    m_connected = false;
    m_listening = false;
}

} // namespace warren::server
