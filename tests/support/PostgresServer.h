#pragma once
// A real PostgreSQL server for one test or benchmark: initdb into a temporary directory, then pg_ctl -w
// start listening on a Unix socket in that directory only (and on a loopback TCP port when asked). As root
// it runs as the postgres user (PostgreSQL refuses root); otherwise as the current user. The destructor
// stops it and removes the directory. The binaries come from `pg_config --bindir`, else
// /usr/lib/postgresql/*/bin.
//
// A test that dies without its destructors (QtTest's watchdog aborts a hung test) must not leave the server
// running: a janitor, a shell in its own session waiting on a pipe only this process holds, stops it and
// removes the directory when the pipe closes.

#include <QString>
#include <QTemporaryDir>
#include <memory>
#include <sys/types.h>

namespace warren::test {

class PostgresServer {
public:
    struct Options {
        bool tcp = false;     // also listen on 127.0.0.1 on a free port (tcpUrl())
        bool durable = false; // fsync on (benchmarks); tests run without it, as crash safety is not theirs
    };

    // Starts it; on failure, error says what failed, with the server's log.
    static std::unique_ptr<PostgresServer> start(const Options& options, QString* error);
    static std::unique_ptr<PostgresServer> start(QString* error) { return start(Options(), error); }
    ~PostgresServer(); // stops it (immediate) and removes its directory

    PostgresServer(const PostgresServer&) = delete;
    PostgresServer& operator=(const PostgresServer&) = delete;

    QString url() const;    // postgresql:///postgres?host=DIR&port=N&user=U (the Unix socket)
    QString tcpUrl() const; // postgresql://U@127.0.0.1:PORT/postgres, empty without Options::tcp
    // pg_ctl restart -m fast: every open connection is cut; returns once it accepts connections again.
    // After stop(), starts it again.
    bool restart(QString* error);
    bool stop(QString* error); // pg_ctl stop -m fast
    QString log() const;       // the server's log so far

private:
    PostgresServer() = default;
    bool pgCtl(const QStringList& args, QString* error) const;
    void startJanitor();
    QStringList serverOptions() const;

    QTemporaryDir m_dir;
    QString m_bin;
    QString m_user;
    bool m_asPostgres = false; // root: commands run through runuser -u postgres
    bool m_durable = false;
    int m_port = 5432; // the socket's name (.s.PGSQL.N) in the private directory, or the TCP port
    bool m_tcp = false;
    bool m_running = false;
    int m_janitorPipe = -1; // its write end: closing it (or this process's end) sets the janitor off
    pid_t m_janitor = -1;
};

} // namespace warren::test
