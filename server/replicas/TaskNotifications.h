#pragma once
// What another warrend over the same PostgreSQL did to a task, heard at once: the store notifies
// kTaskChangesChannel with a task's id whenever its row or events change (app/store/postgres/PgStore.h),
// and this LISTENs on a connection of its own and says so as taskChanged, for the event streams of tasks
// another replica runs (EventStreams::wake); and the requests replicas pass to each other and their
// answers (AccountStore's task_requests), as requestWaiting and requestAnswered.
//
// It never waits on the event loop: it connects with libpq's asynchronous steps, each taken when its
// socket is ready (only a host name's lookup may wait), and gives a connection kConnectTimeout before it
// tries again; it reads only what has arrived. A lost connection (the database restarted) is opened again
// every kRetryEvery. Each time it listens, anew or again, it says anythingMayHaveChanged: what changed
// while it did not listen was not heard.

#include "app/store/postgres/PgConnection.h"

#include <QObject>
#include <QSocketNotifier>
#include <QString>
#include <QTimer>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace warren::server {

class TaskNotifications : public QObject {
    Q_OBJECT
public:
    static constexpr std::chrono::seconds kRetryEvery{1};
    static constexpr std::chrono::seconds kConnectTimeout{10};

    // Starts connecting to databaseUrl (a PostgreSQL URL) and returns at once.
    explicit TaskNotifications(std::string databaseUrl, QObject* parent = nullptr);
    ~TaskNotifications() override;

    bool isListening() const { return m_listening; }

signals:
    void taskChanged(const std::string& taskId);
    // A replica passed a request on for the task (server/replicas/ReplicaRequests), and one was answered.
    void requestWaiting(const std::string& taskId);
    void requestAnswered(const std::string& requestId);
    void anythingMayHaveChanged();
    // For the operator's log: the connection was lost or could not be made (said once, until it listens
    // again), and that it listens again.
    void logLine(const QString& message);

private:
    void connectNow();
    void watch(QSocketNotifier::Type type);
    void onSocketReady();
    void continueConnecting();
    void readNotifications();
    void lost(const Error& error);
    void dropConnection();

    std::string m_url;
    std::optional<control::PgConnection> m_db;
    QSocketNotifier* m_socket = nullptr; // on m_db's socket; deleted later, as it may be the signal's sender
    bool m_connected = false;            // past connecting: LISTEN is sent
    bool m_listening = false;            // LISTEN is answered
    bool m_saidLost = false;             // logLine() told of the loss, and is to tell of the recovery
    QTimer m_retry;
    QTimer m_connectDeadline;
};

} // namespace warren::server
