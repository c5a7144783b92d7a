#pragma once
// One desktop window per user and data directory: a second `warren` (a second click on the launcher) asks
// the first to come to the front and exits, instead of opening a second control plane on the same database.
// The primary listens on a local socket private to the user; the second instance finds it there.

#include <QObject>
#include <QString>

class QLocalServer;
class QLocalSocket;

namespace warren::ui {

class SingleInstance : public QObject {
    Q_OBJECT

public:
    // The socket's name for a user and a data directory, e.g. "warren-1000-3fa2c91b07de": per user, so two
    // users of one machine never meet, and per data directory, so a test's temporary data directory never
    // answers (or steals) the user's real instance. Inside $XDG_RUNTIME_DIR (private to the user) when the
    // session has one, else a bare name that Qt places in the temporary directory.
    static QString serverName(const QString& dataDir);

    explicit SingleInstance(QString serverName, QObject* parent = nullptr);
    ~SingleInstance() override;

    // True: this process is now the primary and emits activated() when another asks. A socket left behind by
    // a killed primary (nobody answers on it) is removed and taken over. Also true when the socket cannot be
    // created at all (errorString() says why): better a second window than none.
    // False: a live instance answered and has been sent "activate"; this process should exit.
    bool claim();

    // The socket's path while this instance listens as the primary; empty otherwise.
    QString fullServerName() const;
    QString errorString() const { return m_error; }

signals:
    // Another `warren` asked this (primary) instance to show its window.
    void activated();

private:
    bool sendActivate();
    void onNewConnection();
    void onMessage(QLocalSocket* socket);

    QString m_serverName;
    QLocalServer* m_server = nullptr;
    QString m_error;
};

} // namespace warren::ui
