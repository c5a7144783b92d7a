#include "tests/support/PostgresServer.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace warren::test {

namespace {

constexpr int kCommandTimeoutMs = 120000;

QString findBinDir() {
    QProcess config;
    config.start("pg_config", {"--bindir"});
    if (config.waitForFinished(kCommandTimeoutMs) && config.exitCode() == 0) {
        const QString dir = QString::fromLocal8Bit(config.readAllStandardOutput()).trimmed();
        if (QFile::exists(dir + "/initdb"))
            return dir;
    }
    QDir versions("/usr/lib/postgresql");
    const QStringList found =
        versions.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
    for (const QString& version : found)
        if (QFile::exists(versions.filePath(version + "/bin/initdb")))
            return versions.filePath(version + "/bin");
    return {};
}

// A loopback port nothing listens on now (the kernel's choice for port 0).
int freeTcpPort() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    close(fd);
    return port;
}

// Runs program (as postgres when asPostgres) to its end; false with its output in error otherwise.
bool runTool(bool asPostgres, const QString& program, const QStringList& args, QString* error) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    if (asPostgres)
        process.start("runuser", QStringList{"-u", "postgres", "--", program} + args);
    else
        process.start(program, args);
    if (!process.waitForFinished(kCommandTimeoutMs) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        if (error)
            *error = program + " " + args.join(' ') + " failed: " + process.errorString() + "\n" +
                     QString::fromLocal8Bit(process.readAll());
        return false;
    }
    return true;
}

} // namespace

std::unique_ptr<PostgresServer> PostgresServer::start(const Options& options, QString* error) {
    std::unique_ptr<PostgresServer> server(new PostgresServer());
    server->m_bin = findBinDir();
    if (server->m_bin.isEmpty()) {
        *error = "no PostgreSQL server binaries (initdb): install postgresql (packaging/debian-packages.txt)";
        return nullptr;
    }
    if (!server->m_dir.isValid()) {
        *error = "cannot create a temporary directory for PostgreSQL: " + server->m_dir.errorString();
        return nullptr;
    }
    server->m_asPostgres = geteuid() == 0;
    if (server->m_asPostgres) {
        const passwd* postgres = getpwnam("postgres");
        if (!postgres ||
            chown(server->m_dir.path().toLocal8Bit().constData(), postgres->pw_uid, postgres->pw_gid) != 0) {
            *error = "running as root, and there is no postgres user to own the test's PostgreSQL "
                     "directory: install postgresql, which creates it";
            return nullptr;
        }
        server->m_user = "postgres";
    } else {
        const passwd* me = getpwuid(geteuid());
        server->m_user = me ? QString::fromLocal8Bit(me->pw_name) : QString("postgres");
    }
    server->m_durable = options.durable;
    server->m_tcp = options.tcp;
    if (options.tcp && (server->m_port = freeTcpPort()) == 0) {
        *error = "no free loopback TCP port for PostgreSQL";
        return nullptr;
    }
    const QString data = server->m_dir.filePath("data");
    if (!runTool(server->m_asPostgres, server->m_bin + "/initdb",
                 {"-D", data, "-U", server->m_user, "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8",
                  "--no-sync"},
                 error))
        return nullptr;
    if (!server->pgCtl({"start", "-o", server->serverOptions().join(' ')}, error))
        return nullptr;
    server->m_running = true;
    server->startJanitor();
    return server;
}

PostgresServer::~PostgresServer() {
    if (m_running)
        pgCtl({"stop", "-m", "immediate"}, nullptr);
    if (m_janitorPipe >= 0) {
        ::close(m_janitorPipe); // the janitor finds the server stopped, and the directory goes below
        ::waitpid(m_janitor, nullptr, 0);
    }
}

void PostgresServer::startJanitor() {
    int pipe[2];
    if (::pipe2(pipe, O_CLOEXEC) != 0)
        return; // no janitor: the destructor still stops the server
    const QByteArray pgCtl = (m_bin + "/pg_ctl").toLocal8Bit();
    const QByteArray data = m_dir.filePath("data").toLocal8Bit();
    const QByteArray dir = m_dir.path().toLocal8Bit();
    const QByteArray runAs = m_asPostgres ? QByteArray("runuser -u postgres -- ") : QByteArray();
    const QByteArray script =
        "read _; " + runAs + "\"$1\" -D \"$2\" stop -m immediate >/dev/null 2>&1; rm -rf \"$3\"";
    const char* argv[] = {
        "sh",   "-c", script.constData(), "janitor", pgCtl.constData(), data.constData(), dir.constData(),
        nullptr};
    const pid_t child = ::fork();
    if (child == 0) {
        ::dup2(pipe[0], STDIN_FILENO); // dup2 clears O_CLOEXEC on the copy
        ::setsid();                    // a signal to the test's process group does not reach it
        ::execv("/bin/sh", const_cast<char* const*>(argv));
        ::_exit(127);
    }
    ::close(pipe[0]);
    if (child < 0) {
        ::close(pipe[1]);
        return;
    }
    m_janitor = child;
    m_janitorPipe = pipe[1];
}

QStringList PostgresServer::serverOptions() const {
    QStringList options{"-c", "listen_addresses=" + QString(m_tcp ? "127.0.0.1" : "''"),
                        "-c", "unix_socket_directories=" + m_dir.path(),
                        "-p", QString::number(m_port)};
    if (!m_durable)
        options << "-c"
                << "fsync=off";
    return options;
}

bool PostgresServer::pgCtl(const QStringList& args, QString* error) const {
    QStringList all{"-D", m_dir.filePath("data"), "-l", m_dir.filePath("server.log"), "-w", "-t", "120"};
    all += args;
    QString failure;
    if (runTool(m_asPostgres, m_bin + "/pg_ctl", all, &failure))
        return true;
    if (error)
        *error = failure + "\nserver log:\n" + log();
    return false;
}

QString PostgresServer::url() const {
    return QString("postgresql:///postgres?host=%1&port=%2&user=%3")
        .arg(m_dir.path())
        .arg(m_port)
        .arg(m_user);
}

QString PostgresServer::tcpUrl() const {
    if (!m_tcp)
        return {};
    return QString("postgresql://%1@127.0.0.1:%2/postgres").arg(m_user).arg(m_port);
}

bool PostgresServer::restart(QString* error) {
    m_running = pgCtl({"restart", "-m", "fast", "-o", serverOptions().join(' ')}, error);
    return m_running;
}

bool PostgresServer::stop(QString* error) {
    if (!m_running)
        return true;
    m_running = !pgCtl({"stop", "-m", "fast"}, error);
    return !m_running;
}

QString PostgresServer::log() const {
    QFile file(m_dir.filePath("server.log"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLocal8Bit(file.readAll());
}

} // namespace warren::test
