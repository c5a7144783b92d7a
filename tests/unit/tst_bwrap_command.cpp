// BwrapCommand: the exact bubblewrap argv and descriptor data for a profile, inspected without launching
// anything. The host is a fake HostLookup, so each row states which host paths exist and what they are.

#include "sandbox/bwrap/BwrapCommand.h"
#include "tests/support/StringLists.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <unistd.h>

using warren::test::toQt;
using warren::test::toStd;
using namespace warren;
using namespace warren::sandbox;
using nlohmann::json;

namespace {

const std::string kBwrap = "/usr/bin/bwrap";
const std::string kWorkspace = "/home/user/project";
// Not a real filter: the translator only carries the bytes, so a NUL in the middle checks they arrive intact.
const std::vector<std::uint8_t> kFilter = {0x20, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x15, 0x01};

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

// A small profile without the default's mounts, env or protected paths, so each row shows only its own.
Result<SandboxProfile> profileWith(const QString& patch) {
    const json base = {{"hostname", "box"}, {"workspace", {{"source", kWorkspace}}}};
    return resolveProfile({base, json::parse(patch.toStdString())});
}

// "dir /usr", "file /etc/ld.so.cache", "link /bin usr/bin"; every other path is missing.
HostLookup fakeHost(const QStringList& entries) {
    std::map<std::string, HostEntry> host;
    for (const QString& entry : entries) {
        const QStringList words = entry.split(' ');
        HostEntry value;
        if (words[0] == "dir")
            value.kind = HostEntry::Kind::Directory;
        else if (words[0] == "file")
            value.kind = HostEntry::Kind::File;
        else if (words[0] == "link")
            value = {HostEntry::Kind::Symlink, words.value(2).toStdString()};
        else
            qFatal("bad host entry %s", qPrintable(entry));
        host[words[1].toStdString()] = value;
    }
    return [host](const std::string& path) {
        auto it = host.find(path);
        return it == host.end() ? HostEntry{} : it->second;
    };
}

// "pin .git", "read-only .git/config", "placeholder-file .envrc", "placeholder-dir .git/hooks".
ProtectionPlan protection(const QStringList& entries) {
    const std::map<QString, ProtectionEntry::Kind> kinds = {
        {"pin", ProtectionEntry::Kind::Pin},
        {"read-only", ProtectionEntry::Kind::ReadOnly},
        {"placeholder-file", ProtectionEntry::Kind::PlaceholderFile},
        {"placeholder-dir", ProtectionEntry::Kind::PlaceholderDir}};
    ProtectionPlan plan;
    for (const QString& entry : entries) {
        const QStringList words = entry.split(' ');
        plan.entries.push_back({words[1].toStdString(), kinds.at(words[0])});
    }
    return plan;
}

std::map<std::string, std::string> environment(const QStringList& entries) {
    std::map<std::string, std::string> env;
    for (const QString& entry : entries) {
        const auto eq = entry.indexOf('=');
        env[entry.left(eq).toStdString()] = entry.mid(eq + 1).toStdString();
    }
    return env;
}

BwrapRequest request(std::vector<std::string> command = {"true"}) {
    BwrapRequest r;
    r.bwrapPath = kBwrap;
    r.command = std::move(command);
    r.seccompFilter = kFilter;
    return r;
}

// bwrap's own options: after argv[0], up to the "--" that follows --json-status-fd and ends them.
QStringList bwrapOptions(const BwrapCommand& command) {
    const QStringList argv = toQt(command.argv);
    const auto status = argv.indexOf("--json-status-fd");
    if (status < 0 || status + 2 >= argv.size() || argv[status + 2] != "--")
        return {};
    return argv.mid(1, status + 2);
}

qsizetype findSequence(const QStringList& words, const QStringList& sequence, qsizetype from = 0) {
    for (qsizetype i = from; i + sequence.size() <= words.size(); ++i)
        if (words.mid(i, sequence.size()) == sequence)
            return i;
    return -1;
}

const DataFd* dataFor(const BwrapCommand& command, const std::string& purpose) {
    for (const auto& data : command.dataFds)
        if (data.purpose == purpose)
            return &data;
    return nullptr;
}

} // namespace

class TestBwrapCommand : public QObject {
    Q_OBJECT

private slots:
    void isolationAlwaysOn_data();
    void isolationAlwaysOn();
    void argv_data();
    void argv();
    void defaultProfileOnAMergedUsrHost();
    void missingRequiredMount_data();
    void missingRequiredMount();
    void dataFds_data();
    void dataFds();
    void synthesizedFiles_data();
    void synthesizedFiles();
    void commandAfterDoubleDash_data();
    void commandAfterDoubleDash();
    void execArgvNamesNoHostPath_data();
    void execArgvNamesNoHostPath();
    void asPid1OnlyForACommandThatIsItsInit_data();
    void asPid1OnlyForACommandThatIsItsInit();
    void refusesANulThatWouldSplitAnOption_data();
    void refusesANulThatWouldSplitAnOption();
    void refusesToBuild_data();
    void refusesToBuild();
    void shellQuote_data();
    void shellQuote();
    void commandLineQuotesEachWord();
    void lookupHostPathReadsTheFilesystem();
};

// The profile decides what is visible, never whether isolation is on.
// clang-format off
void TestBwrapCommand::isolationAlwaysOn_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("uid");
    QTest::addColumn<QString>("gid");
    QTest::addColumn<QString>("hostname");

    QTest::newRow("minimal profile") << "{}" << "1000" << "1000" << "box";
    QTest::newRow("loopback network") << R"({"network": "loopback"})" << "1000" << "1000" << "box";
    QTest::newRow("read-only workspace")
        << R"({"workspace": {"writable": false}})" << "1000" << "1000" << "box";
    QTest::newRow("custom user and hostname")
        << R"({"user": {"uid": 1500, "gid": 1600}, "hostname": "ci"})" << "1500" << "1600" << "ci";
    QTest::newRow("every seccomp row skipped")
        << R"({"seccomp": {"skip": ["ptrace", "mount"]}})" << "1000" << "1000" << "box";
}
// clang-format on

void TestBwrapCommand::isolationAlwaysOn() {
    QFETCH(QString, patch);
    QFETCH(QString, uid);
    QFETCH(QString, gid);
    QFETCH(QString, hostname);

    auto profile = profileWith(patch);
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    auto command = buildBwrapCommand(*profile, request(), fakeHost({}));
    QVERIFY2(command.ok(), command.ok() ? "" : command.error().message.c_str());
    QCOMPARE(qs(command->argv.at(0)), qs(kBwrap));

    const QStringList options = bwrapOptions(*command);
    QVERIFY2(!options.isEmpty(), qPrintable(toQt(command->argv).join(' ')));
    const QList<QStringList> required = {
        {"--unshare-user"},    {"--uid", uid},           {"--gid", gid},           {"--disable-userns"},
        {"--unshare-pid"},     {"--unshare-ipc"},        {"--unshare-uts"},        {"--unshare-net"},
        {"--unshare-cgroup"},  {"--hostname", hostname}, {"--die-with-parent"},    {"--new-session"},
        {"--cap-drop", "ALL"}, {"--clearenv"},           {"--json-status-fd", "3"}};
    for (const QStringList& sequence : required)
        QVERIFY2(findSequence(options, sequence) >= 0, qPrintable(sequence.join(' ') + " missing"));
    for (const char* never : {"--share-net", "--cap-add", "--unshare-user-try", "--unshare-cgroup-try"})
        QVERIFY2(!options.contains(never), never);
    QVERIFY(findSequence(options, {"--uid", "0"}) < 0);
}

// clang-format off
void TestBwrapCommand::argv_data() {
    QTest::addColumn<QString>("patch");        // over a profile with no mounts, env or protection
    QTest::addColumn<QStringList>("host");     // fakeHost entries
    QTest::addColumn<QStringList>("protect");  // protection plan entries
    QTest::addColumn<QStringList>("hostEnv");  // NAME=VALUE
    QTest::addColumn<QStringList>("inOrder");  // option sequences that must appear, in this order
    QTest::addColumn<QStringList>("absent");   // option sequences that must not appear anywhere

    const QStringList none;

    // Mounts.
    QTest::newRow("ro-bind")
        << R"({"mounts": {"/usr": {"type": "ro-bind", "source": "/usr"}}})" << QStringList{"dir /usr"} << none
        << none << QStringList{"--ro-bind /usr /usr"} << QStringList{"--bind /usr /usr"};
    QTest::newRow("bind to another destination")
        << R"({"mounts": {"/data": {"type": "bind", "source": "/srv/data"}}})" << QStringList{"dir /srv/data"}
        << none << none << QStringList{"--bind /srv/data /data"} << QStringList{"--ro-bind /srv/data /data"};
    QTest::newRow("ro-bind of a file")
        << R"({"mounts": {"/etc/ld.so.cache": {"type": "ro-bind", "source": "/etc/ld.so.cache"}}})"
        << QStringList{"file /etc/ld.so.cache"} << none << none
        << QStringList{"--ro-bind /etc/ld.so.cache /etc/ld.so.cache"} << none;
    QTest::newRow("ro-bind of a symlink binds what it points to")
        << R"({"mounts": {"/etc/localtime": {"type": "ro-bind", "source": "/etc/localtime"}}})"
        << QStringList{"link /etc/localtime /usr/share/zoneinfo/UTC"} << none << none
        << QStringList{"--ro-bind /etc/localtime /etc/localtime"} << QStringList{"--symlink"};
    QTest::newRow("mirror of a directory")
        << R"({"mounts": {"/lib": {"type": "mirror", "source": "/lib"}}})" << QStringList{"dir /lib"} << none
        << none << QStringList{"--ro-bind /lib /lib"} << QStringList{"--symlink"};
    QTest::newRow("mirror of a symlinked /bin")
        << R"({"mounts": {"/bin": {"type": "mirror", "source": "/bin"}}})" << QStringList{"link /bin usr/bin"}
        << none << none << QStringList{"--symlink usr/bin /bin"} << QStringList{"--ro-bind /bin /bin"};
    QTest::newRow("mirror of an absolute symlink")
        << R"({"mounts": {"/lib64": {"type": "mirror", "source": "/lib64"}}})"
        << QStringList{"link /lib64 /usr/lib64"} << none << none << QStringList{"--symlink /usr/lib64 /lib64"}
        << QStringList{"--ro-bind /lib64 /lib64"};
    QTest::newRow("symlink")
        << R"({"mounts": {"/etc/os-release": {"type": "symlink", "target": "../usr/lib/os-release"}}})"
        << none << none << none << QStringList{"--symlink ../usr/lib/os-release /etc/os-release"} << none;
    QTest::newRow("missing optional mount skipped")
        << R"({"mounts": {"/lib32": {"type": "mirror", "source": "/lib32", "optional": true}}})" << none
        << none << none << none << QStringList{"/lib32"};
    QTest::newRow("missing optional mount skipped, the others kept")
        << R"({"mounts": {"/usr": {"type": "ro-bind", "source": "/usr"},
                          "/opt/sdk": {"type": "ro-bind", "source": "/opt/sdk", "optional": true}}})"
        << QStringList{"dir /usr"} << none << none << QStringList{"--ro-bind /usr /usr"}
        << QStringList{"/opt/sdk"};
    QTest::newRow("present optional mount kept")
        << R"({"mounts": {"/lib32": {"type": "mirror", "source": "/lib32", "optional": true}}})"
        << QStringList{"dir /lib32"} << none << none << QStringList{"--ro-bind /lib32 /lib32"} << none;
    QTest::newRow("tmpfs gets perms and size first")
        << R"({"mounts": {"/tmp": {"type": "tmpfs", "size_mb": 64}}})" << none << none << none
        << QStringList{"--perms 1777 --size 67108864 --tmpfs /tmp"} << none;
    QTest::newRow("proc and dev")
        << R"({"mounts": {"/proc": {"type": "proc"}, "/dev": {"type": "dev"}}})" << none << none << none
        << QStringList{"--dev /dev", "--proc /proc"} << none;
    QTest::newRow("parents before children")
        << R"({"mounts": {"/home/agent/.cache": {"type": "bind", "source": "/srv/cache"},
                          "/home/agent": {"type": "tmpfs", "size_mb": 2},
                          "/home": {"type": "tmpfs", "size_mb": 1}}})"
        << QStringList{"dir /srv/cache"} << none << none
        << QStringList{"--tmpfs /home", "--tmpfs /home/agent", "--bind /srv/cache /home/agent/.cache"}
        << none;
    QTest::newRow("host /etc before the synthesized files")
        << R"({"mounts": {"/etc": {"type": "ro-bind", "source": "/etc"}}})" << QStringList{"dir /etc"} << none
        << none
        << QStringList{"--ro-bind /etc /etc", "--ro-bind-data 5 /etc/group", "--ro-bind-data 4 /etc/passwd"}
        << none;
    // In the root tmpfs they are plain files; under a profile mount, writing them would write to the host.
    QTest::newRow("synthesized files")
        << "{}" << none << none << none
        << QStringList{"--perms 0444 --file 5 /etc/group", "--perms 0444 --file 7 /etc/hostname",
                       "--perms 0444 --file 6 /etc/hosts", "--perms 0444 --file 4 /etc/passwd",
                       "--remount-ro /"}
        << QStringList{"--ro-bind-data 4 /etc/passwd"};
    QTest::newRow("synthesized files inside a workspace mounted at /etc")
        << R"({"workspace": {"dest": "/etc"}})" << none << none << none
        << QStringList{"--bind /home/user/project /etc", "--ro-bind-data 4 /etc/passwd"}
        << QStringList{"--file 4 /etc/passwd"};
    QTest::newRow("synthesized passwd mounted over a profile's")
        << R"({"mounts": {"/etc/passwd": {"type": "ro-bind", "source": "/etc/passwd"}}})"
        << QStringList{"file /etc/passwd"} << none << none
        << QStringList{"--ro-bind /etc/passwd /etc/passwd", "--ro-bind-data 4 /etc/passwd"} << none;

    // Workspace and protected paths.
    QTest::newRow("writable workspace")
        << "{}" << none << none << none
        << QStringList{"--bind /home/user/project /workspace", "--chdir /workspace"}
        << QStringList{"--ro-bind /home/user/project /workspace"};
    QTest::newRow("read-only workspace")
        << R"({"workspace": {"writable": false}})" << none << none << none
        << QStringList{"--ro-bind /home/user/project /workspace", "--chdir /workspace"}
        << QStringList{"--bind /home/user/project /workspace"};
    QTest::newRow("workspace at another destination")
        << R"({"workspace": {"dest": "/src"}})" << none << none << none
        << QStringList{"--bind /home/user/project /src", "--chdir /src"} << QStringList{"/workspace"};
    QTest::newRow("workspace below a tmpfs")
        << R"({"workspace": {"dest": "/home/agent/work"},
               "mounts": {"/home/agent": {"type": "tmpfs", "size_mb": 1}}})"
        << none << none << none
        << QStringList{"--tmpfs /home/agent", "--bind /home/user/project /home/agent/work"} << none;
    QTest::newRow("protection after the workspace bind")
        << "{}" << none
        << QStringList{"pin .git", "read-only .git/config", "placeholder-dir .git/hooks",
                       "placeholder-file .envrc"}
        << none
        << QStringList{"--bind /home/user/project /workspace", "--ro-bind-data 8 /workspace/.envrc",
                       "--bind /home/user/project/.git /workspace/.git",
                       "--ro-bind /home/user/project/.git/config /workspace/.git/config",
                       "--perms 0555 --size 4096 --tmpfs /workspace/.git/hooks "
                       "--remount-ro /workspace/.git/hooks"}
        << none;
    QTest::newRow("protection plan out of order is still parents first")
        << "{}" << none << QStringList{"read-only .git/config", "pin .git"} << none
        << QStringList{"--bind /home/user/project /workspace",
                       "--bind /home/user/project/.git /workspace/.git",
                       "--ro-bind /home/user/project/.git/config /workspace/.git/config"}
        << none;
    QTest::newRow("read-only entry")
        << "{}" << none << QStringList{"read-only .vscode"} << none
        << QStringList{"--ro-bind /home/user/project/.vscode /workspace/.vscode"}
        << QStringList{"--bind /home/user/project/.vscode /workspace/.vscode"};
    QTest::newRow("pin in a read-only workspace")
        << R"({"workspace": {"writable": false}})" << none << QStringList{"pin .git", "read-only .git/config"}
        << none
        << QStringList{"--ro-bind /home/user/project /workspace",
                       "--ro-bind /home/user/project/.git /workspace/.git",
                       "--ro-bind /home/user/project/.git/config /workspace/.git/config"}
        << QStringList{"--bind /home/user/project/.git /workspace/.git"};
    QTest::newRow("protection in a moved workspace")
        << R"({"workspace": {"dest": "/src"}})" << none
        << QStringList{"pin .git", "placeholder-dir .git/hooks"} << none
        << QStringList{"--bind /home/user/project /src", "--bind /home/user/project/.git /src/.git",
                       "--tmpfs /src/.git/hooks --remount-ro /src/.git/hooks"}
        << QStringList{"/workspace/.git"};

    // Environment.
    QTest::newRow("profile env after clearenv")
        << R"({"env": {"LANG": "C.UTF-8"}})" << none << none << none
        << QStringList{"--clearenv", "--setenv LANG C.UTF-8"} << none;
    QTest::newRow("passthrough of a variable the host has")
        << R"({"env_passthrough": ["TERM"]})" << none << none << QStringList{"TERM=xterm-256color"}
        << QStringList{"--clearenv", "--setenv TERM xterm-256color"} << none;
    QTest::newRow("passthrough of a variable the host lacks")
        << R"({"env_passthrough": ["TERM", "NO_COLOR"]})" << none << none << QStringList{"TERM=xterm"}
        << QStringList{"--setenv TERM xterm"} << QStringList{"NO_COLOR"};
    QTest::newRow("passthrough of an empty variable")
        << R"({"env_passthrough": ["NO_COLOR"]})" << none << none << QStringList{"NO_COLOR="}
        << QStringList{"--setenv NO_COLOR "} << none;
    QTest::newRow("host variables not listed stay out")
        << R"({"env_passthrough": ["TERM"]})" << none << none
        << QStringList{"OPENAI_API_KEY=sk-secret", "HOME=/root", "TERM=xterm"}
        << QStringList{"--setenv TERM xterm"} << QStringList{"OPENAI_API_KEY", "sk-secret", "/root", "HOME"};
    QTest::newRow("profile env wins over the host's")
        << R"({"env": {"TERM": "dumb"}, "env_passthrough": ["TERM"]})" << none << none
        << QStringList{"TERM=xterm"} << QStringList{"--setenv TERM dumb"} << QStringList{"xterm"};
    QTest::newRow("env sorted by name")
        << R"({"env": {"B": "2", "A": "1"}})" << none << none << none
        << QStringList{"--setenv A 1", "--setenv B 2"} << none;

    // The end of the options.
    QTest::newRow("chdir, seccomp and status fd close the options")
        << "{}" << none << none << none << QStringList{"--chdir /workspace --seccomp 8 --json-status-fd 3"}
        << none;
    QTest::newRow("seccomp fd after the placeholder data")
        << "{}" << none << QStringList{"placeholder-file .envrc", "placeholder-file .profile"} << none
        << QStringList{"--ro-bind-data 8 /workspace/.envrc", "--ro-bind-data 9 /workspace/.profile",
                       "--seccomp 10 --json-status-fd 3"}
        << none;
}
// clang-format on

void TestBwrapCommand::argv() {
    QFETCH(QString, patch);
    QFETCH(QStringList, host);
    QFETCH(QStringList, protect);
    QFETCH(QStringList, hostEnv);
    QFETCH(QStringList, inOrder);
    QFETCH(QStringList, absent);

    auto profile = profileWith(patch);
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    BwrapRequest r = request();
    r.protection = protection(protect);
    r.hostEnv = environment(hostEnv);
    auto command = buildBwrapCommand(*profile, r, fakeHost(host));
    QVERIFY2(command.ok(), command.ok() ? "" : command.error().message.c_str());

    const QStringList options = bwrapOptions(*command);
    const QString shown = "\nin: " + options.join(' ');
    QVERIFY2(!options.isEmpty(), qPrintable(shown));
    qsizetype from = 0;
    for (const QString& sequence : inOrder) {
        const qsizetype at = findSequence(options, sequence.split(' '), from);
        QVERIFY2(at >= 0, qPrintable("\"" + sequence + "\" missing or out of order" + shown));
        from = at + sequence.split(' ').size();
    }
    for (const QString& sequence : absent)
        QVERIFY2(findSequence(options, sequence.split(' ')) < 0,
                 qPrintable("\"" + sequence + "\" present" + shown));
}

// The built-in profile on a Debian-like host with merged /usr: the top-level links stay links.
void TestBwrapCommand::defaultProfileOnAMergedUsrHost() {
    auto profile = resolveProfile({defaultProfileJson(), {{"workspace", {{"source", kWorkspace}}}}});
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    const HostLookup host =
        fakeHost({"dir /usr", "link /bin usr/bin", "link /sbin usr/sbin", "link /lib usr/lib",
                  "link /lib64 usr/lib64", "file /etc/ld.so.cache", "dir /etc/ssl/certs"});
    auto command = buildBwrapCommand(*profile, request(), host);
    QVERIFY2(command.ok(), command.ok() ? "" : command.error().message.c_str());
    const QStringList options = bwrapOptions(*command);

    const QStringList expected = {"--symlink usr/bin /bin",
                                  "--symlink usr/sbin /sbin",
                                  "--symlink usr/lib /lib",
                                  "--symlink usr/lib64 /lib64",
                                  "--ro-bind /usr /usr",
                                  "--ro-bind /etc/ld.so.cache /etc/ld.so.cache",
                                  "--ro-bind /etc/ssl/certs /etc/ssl/certs",
                                  "--proc /proc",
                                  "--dev /dev",
                                  "--perms 1777 --size 536870912 --tmpfs /tmp",
                                  "--perms 1777 --size 268435456 --tmpfs /home/agent",
                                  "--bind /home/user/project /workspace",
                                  "--setenv HOME /home/agent"};
    for (const QString& sequence : expected)
        QVERIFY2(findSequence(options, sequence.split(' ')) >= 0, qPrintable(sequence + " missing"));
    for (const char* missing : {"/lib32", "/etc/alternatives", "/etc/python3"})
        QVERIFY2(!options.contains(missing), missing);
}

// clang-format off
void TestBwrapCommand::missingRequiredMount_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("dest");

    QTest::newRow("ro-bind")
        << R"({"mounts": {"/opt/sdk": {"type": "ro-bind", "source": "/opt/sdk"}}})" << "/opt/sdk"
        << "/opt/sdk";
    QTest::newRow("bind")
        << R"({"mounts": {"/data": {"type": "bind", "source": "/srv/data"}}})" << "/srv/data" << "/data";
    QTest::newRow("mirror")
        << R"({"mounts": {"/lib": {"type": "mirror", "source": "/lib"}}})" << "/lib" << "/lib";
    QTest::newRow("one missing among present ones")
        << R"({"mounts": {"/usr": {"type": "ro-bind", "source": "/usr"},
                          "/lib32": {"type": "mirror", "source": "/lib32", "optional": true},
                          "/opt/sdk": {"type": "ro-bind", "source": "/opt/sdk"}}})"
        << "/opt/sdk" << "/opt/sdk";
}
// clang-format on

void TestBwrapCommand::missingRequiredMount() {
    QFETCH(QString, patch);
    QFETCH(QString, source);
    QFETCH(QString, dest);

    auto profile = profileWith(patch);
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    auto command = buildBwrapCommand(*profile, request(), fakeHost({"dir /usr"}));
    QVERIFY(!command.ok());
    QCOMPARE(command.error().code, ErrorCode::NotFound);
    const QString message = qs(command.error().message);
    QVERIFY2(message.contains("mount source " + source + " (for " + dest + ") does not exist"),
             qPrintable(message));
    QVERIFY2(message.contains("\"optional\": true"), qPrintable(message)); // says what to do
}

// clang-format off
void TestBwrapCommand::dataFds_data() {
    QTest::addColumn<QStringList>("protect");
    QTest::addColumn<QStringList>("placeholderFiles"); // their destinations

    QTest::newRow("no placeholders") << QStringList{} << QStringList{};
    QTest::newRow("one placeholder file")
        << QStringList{"placeholder-file .envrc"} << QStringList{"/workspace/.envrc"};
    QTest::newRow("three placeholder files")
        << QStringList{"placeholder-file .bashrc", "placeholder-file .envrc", "placeholder-file .profile"}
        << QStringList{"/workspace/.bashrc", "/workspace/.envrc", "/workspace/.profile"};
    QTest::newRow("placeholder directories need no data")
        << QStringList{"placeholder-dir .vscode", "pin .git", "placeholder-dir .git/hooks"} << QStringList{};
}
// clang-format on

void TestBwrapCommand::dataFds() {
    QFETCH(QStringList, protect);
    QFETCH(QStringList, placeholderFiles);

    auto profile = profileWith("{}");
    QVERIFY(profile.ok());
    BwrapRequest r = request();
    r.protection = protection(protect);
    auto command = buildBwrapCommand(*profile, r, fakeHost({}));
    QVERIFY2(command.ok(), command.ok() ? "" : command.error().message.c_str());
    const auto& data = command->dataFds;

    // passwd, group, hosts, hostname, the placeholders, the seccomp filter, then bwrap's options.
    QCOMPARE(qsizetype(data.size()), 4 + placeholderFiles.size() + 2);
    for (std::size_t i = 0; i < data.size(); ++i)
        QCOMPARE(data[i].fd, BwrapCommand::kStatusFd + 1 + int(i));

    const DataFd& seccomp = data[data.size() - 2];
    QCOMPARE(qs(seccomp.purpose), QString("seccomp filter"));
    QVERIFY(seccomp.bytes == std::string(kFilter.begin(), kFilter.end()));

    const QStringList options = bwrapOptions(*command);
    const qsizetype seccompAt = options.indexOf("--seccomp");
    QVERIFY(seccompAt >= 0);
    QCOMPARE(options.count("--seccomp"), qsizetype(1));
    QCOMPARE(options.value(seccompAt + 1), QString::number(seccomp.fd));

    // Every other descriptor feeds exactly one --file or --ro-bind-data whose destination is its purpose.
    QCOMPARE(options.count("--ro-bind-data") + options.count("--file"), qsizetype(data.size()) - 2);
    for (std::size_t i = 0; i + 2 < data.size(); ++i) {
        const QString fd = QString::number(data[i].fd), dest = qs(data[i].purpose);
        const bool found = findSequence(options, {"--ro-bind-data", fd, dest}) >= 0 ||
                           findSequence(options, {"--file", fd, dest}) >= 0;
        QVERIFY2(found, qPrintable(fd + " " + dest + " missing"));
    }
    for (const QString& dest : placeholderFiles) {
        const DataFd* placeholder = dataFor(*command, dest.toStdString());
        QVERIFY2(placeholder, qPrintable(dest));
        QVERIFY(placeholder->bytes.empty());
    }
}

// clang-format off
void TestBwrapCommand::synthesizedFiles_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("passwd");
    QTest::addColumn<QString>("group");
    QTest::addColumn<QString>("hosts");
    QTest::addColumn<QString>("hostname");

    QTest::newRow("default user")
        << "{}"
        << "root:x:0:0:root:/root:/usr/sbin/nologin\n"
           "agent:x:1000:1000:Warren sandbox:/home/agent:/bin/sh\n"
           "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
        << "root:x:0:\nagent:x:1000:\nnogroup:x:65534:\n"
        << "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tbox\n"
        << "box\n";
    QTest::newRow("custom user and hostname")
        << R"({"hostname": "ci", "user": {"name": "dev", "uid": 1500, "gid": 1600, "home": "/home/dev",
                                          "shell": "/bin/bash"}})"
        << "root:x:0:0:root:/root:/usr/sbin/nologin\n"
           "dev:x:1500:1600:Warren sandbox:/home/dev:/bin/bash\n"
           "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
        << "root:x:0:\ndev:x:1600:\nnogroup:x:65534:\n"
        << "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tci\n"
        << "ci\n";
}
// clang-format on

void TestBwrapCommand::synthesizedFiles() {
    QFETCH(QString, patch);
    QFETCH(QString, passwd);
    QFETCH(QString, group);
    QFETCH(QString, hosts);
    QFETCH(QString, hostname);

    auto profile = profileWith(patch);
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    auto command = buildBwrapCommand(*profile, request(), fakeHost({}));
    QVERIFY2(command.ok(), command.ok() ? "" : command.error().message.c_str());

    const std::vector<std::pair<std::string, QString>> files = {
        {"/etc/passwd", passwd}, {"/etc/group", group}, {"/etc/hosts", hosts}, {"/etc/hostname", hostname}};
    for (const auto& [path, expected] : files) {
        const DataFd* data = dataFor(*command, path);
        QVERIFY2(data, path.c_str());
        QCOMPARE(qs(data->bytes), expected);
    }
}

// clang-format off
void TestBwrapCommand::commandAfterDoubleDash_data() {
    QTest::addColumn<QStringList>("command");

    QTest::newRow("one word") << QStringList{"true"};
    QTest::newRow("shell snippet") << QStringList{"sh", "-c", "echo \"$HOME\"; exit 3"};
    QTest::newRow("looks like a bwrap option") << QStringList{"--ro-bind", "/", "/"};
    QTest::newRow("double dash inside") << QStringList{"git", "log", "--", "README"};
    QTest::newRow("empty argument") << QStringList{"printf", "%s", ""};
}
// clang-format on

void TestBwrapCommand::commandAfterDoubleDash() {
    QFETCH(QStringList, command);

    std::vector<std::string> words;
    for (const QString& word : command)
        words.push_back(word.toStdString());
    auto profile = profileWith("{}");
    QVERIFY(profile.ok());
    auto built = buildBwrapCommand(*profile, request(words), fakeHost({}));
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());

    const QStringList argv = toQt(built->argv);
    const QStringList options = bwrapOptions(*built);
    QVERIFY(!options.isEmpty());
    QCOMPARE(options.mid(options.size() - 3), (QStringList{"--json-status-fd", "3", "--"}));
    QCOMPARE(argv.mid(1 + options.size()), command);
}

// What is exec'd shows in /proc/N/cmdline to every process that can see bwrap: only the command's words;
// bwrap's options, every host path among them, arrive on the --args descriptor, exactly as argv has them.
// clang-format off
void TestBwrapCommand::execArgvNamesNoHostPath_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<bool>("commandIsInit");

    QTest::newRow("the agent")
        << R"({"mounts": {"/opt/warren/bin/warren-agent": {"type": "ro-bind", "source": "/var/lib/warren/bin/warren-agent"},
                          "/state": {"type": "bind", "source": "/var/lib/warren/tasks/t1/state"}}})"
        << QStringList{"/opt/warren/bin/warren-agent", "serve", "--workspace", "/workspace"} << true;
    QTest::newRow("a command with a double dash")
        << R"({"mounts": {"/data": {"type": "ro-bind", "source": "/srv/host-data"}}})"
        << QStringList{"git", "log", "--", "README"} << false;
    QTest::newRow("a command that looks like options") << "{}" << QStringList{"--ro-bind", "/", "/"} << false;
}
// clang-format on

void TestBwrapCommand::execArgvNamesNoHostPath() {
    QFETCH(QString, patch);
    QFETCH(QStringList, command);
    QFETCH(bool, commandIsInit);

    auto profile = profileWith(patch);
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    BwrapRequest r = request(toStd(command));
    r.commandIsInit = commandIsInit;
    const QStringList hosts{"dir /var/lib/warren/tasks/t1/state", "file /var/lib/warren/bin/warren-agent",
                            "dir /srv/host-data"};
    auto built = buildBwrapCommand(*profile, r, fakeHost(hosts));
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());

    const DataFd& args = built->dataFds.back();
    QCOMPARE(qs(args.purpose), QString("bwrap's options (--args)"));
    const QStringList exec = toQt(built->execArgv());
    QCOMPARE(exec, QStringList({qs(kBwrap), "--args", QString::number(args.fd), "--"}) + command);

    // The descriptor holds every option of argv, each ended by a NUL, and nothing else.
    const QStringList argv = toQt(built->argv);
    const QStringList options = argv.mid(1, argv.size() - command.size() - 2); // between argv[0] and "--"
    QVERIFY(args.bytes.size() > 0 && args.bytes.back() == '\0');
    const QStringList fromFd = QString::fromStdString(args.bytes.substr(0, args.bytes.size() - 1)).split(QChar(0));
    QCOMPARE(fromFd, options);
    QCOMPARE(argv.mid(1), options + QStringList{"--"} + command);

    for (const QString& host : {qs(kWorkspace), QString("/var/lib/warren"), QString("/srv/host-data")})
        for (const QString& word : exec)
            QVERIFY2(!word.contains(host), qPrintable(word));
}

// clang-format off
void TestBwrapCommand::asPid1OnlyForACommandThatIsItsInit_data() {
    QTest::addColumn<bool>("commandIsInit");
    QTest::newRow("a command: bwrap's reaper is pid 1") << false;
    QTest::newRow("the agent: pid 1 itself, no reaper holding its stdio") << true;
}
// clang-format on

void TestBwrapCommand::asPid1OnlyForACommandThatIsItsInit() {
    QFETCH(bool, commandIsInit);
    auto profile = profileWith("{}");
    QVERIFY(profile.ok());
    BwrapRequest r = request();
    r.commandIsInit = commandIsInit;
    auto built = buildBwrapCommand(*profile, r, fakeHost({}));
    QVERIFY(built.ok());
    QCOMPARE(built->commandIsInit, commandIsInit);
    const QStringList argv = toQt(built->argv);
    const qsizetype end = argv.indexOf("--");
    QCOMPARE(argv.mid(0, end).contains("--as-pid-1"), commandIsInit);
    QVERIFY(argv.mid(0, end).contains("--unshare-pid"));
}

// bwrap's options cross on a descriptor as NUL-separated words: a NUL inside one would make options of its own.
// clang-format off
void TestBwrapCommand::refusesANulThatWouldSplitAnOption_data() {
    QTest::addColumn<bool>("inEnvironment");
    QTest::newRow("an environment value") << true;
    QTest::newRow("a command word") << false;
}
// clang-format on

void TestBwrapCommand::refusesANulThatWouldSplitAnOption() {
    QFETCH(bool, inEnvironment);
    const std::string smuggled = std::string("x") + '\0' + "--bind" + '\0' + "/" + '\0' + "/";
    auto profile = profileWith("{}");
    QVERIFY(profile.ok());
    BwrapRequest r = request({"sh", "-c", inEnvironment ? "true" : smuggled});
    if (inEnvironment) {
        json env = {{"env", {{"INNOCENT", smuggled}}}};
        profile = profileWith(QString::fromStdString(env.dump()));
        QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    }
    auto built = buildBwrapCommand(*profile, r, fakeHost({}));
    QVERIFY(!built.ok());
    QCOMPARE(built.error().code, ErrorCode::InvalidArgument);
    QVERIFY2(qs(built.error().message).contains("NUL"), built.error().message.c_str());
}

// clang-format off
void TestBwrapCommand::refusesToBuild_data() {
    QTest::addColumn<bool>("emptyCommand");
    QTest::addColumn<bool>("emptyFilter");
    QTest::addColumn<QString>("message");

    QTest::newRow("empty command") << true << false << "no command to run in the sandbox";
    QTest::newRow("empty seccomp filter")
        << false << true << "no seccomp filter: the sandbox never runs without one";
}
// clang-format on

void TestBwrapCommand::refusesToBuild() {
    QFETCH(bool, emptyCommand);
    QFETCH(bool, emptyFilter);
    QFETCH(QString, message);

    auto profile = profileWith("{}");
    QVERIFY(profile.ok());
    BwrapRequest r = request();
    if (emptyCommand)
        r.command.clear();
    if (emptyFilter)
        r.seccompFilter.clear();
    auto command = buildBwrapCommand(*profile, r, fakeHost({}));
    QVERIFY(!command.ok());
    QCOMPARE(command.error().code, ErrorCode::InvalidArgument);
    QCOMPARE(qs(command.error().message), message);
}

// clang-format off
void TestBwrapCommand::shellQuote_data() {
    QTest::addColumn<QString>("word");
    QTest::addColumn<QString>("quoted");

    QTest::newRow("plain word") << "bwrap" << "bwrap";
    QTest::newRow("option") << "--ro-bind" << "--ro-bind";
    QTest::newRow("path") << "/usr/lib/x86_64-linux-gnu" << "/usr/lib/x86_64-linux-gnu";
    QTest::newRow("assignment and punctuation") << "A=b,c:d@e%f+g" << "A=b,c:d@e%f+g";
    QTest::newRow("empty") << "" << "''";
    QTest::newRow("space") << "hello world" << "'hello world'";
    QTest::newRow("single quote") << "it's" << R"('it'\''s')";
    QTest::newRow("only a single quote") << "'" << R"(''\''')";
    QTest::newRow("variable") << "$HOME" << "'$HOME'";
    QTest::newRow("command substitution") << "`id`$(id)" << "'`id`$(id)'";
    QTest::newRow("glob") << "*.txt" << "'*.txt'";
    QTest::newRow("tilde") << "~" << "'~'";
    QTest::newRow("semicolon") << "a;b" << "'a;b'";
    QTest::newRow("backslash") << R"(a\b)" << R"('a\b')";
    QTest::newRow("double quote") << R"(say "hi")" << R"('say "hi"')";
    QTest::newRow("newline") << "a\nb" << "'a\nb'";
    QTest::newRow("non-ASCII") << "caf\u00e9" << "'caf\u00e9'";
}
// clang-format on

// Each quoted word must also read back as the original in a real shell, which is what the user pastes into.
void TestBwrapCommand::shellQuote() {
    QFETCH(QString, word);
    QFETCH(QString, quoted);

    const std::string result = warren::sandbox::shellQuote(word.toStdString());
    QCOMPARE(qs(result), quoted);

    QProcess shell;
    shell.start("/bin/sh", {"-c", "printf '%s' " + qs(result)});
    QVERIFY(shell.waitForFinished());
    QCOMPARE(shell.exitCode(), 0);
    QCOMPARE(QString::fromUtf8(shell.readAllStandardOutput()), word);
}

void TestBwrapCommand::commandLineQuotesEachWord() {
    BwrapCommand command;
    command.argv = {"/usr/bin/bwrap", "--setenv", "MSG", "it's here", "--setenv",
                    "EMPTY",          "",         "--",  "sh",        "-c",
                    "echo $MSG"};
    QCOMPARE(qs(command.commandLine()),
             QString(R"(/usr/bin/bwrap --setenv MSG 'it'\''s here' --setenv EMPTY '' -- sh -c 'echo $MSG')"));
}

void TestBwrapCommand::lookupHostPathReadsTheFilesystem() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string root = dir.path().toStdString();
    QVERIFY(QDir(dir.path()).mkdir("sub"));
    QFile file(dir.filePath("file"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    QCOMPARE(symlink("usr/bin", (root + "/link").c_str()), 0);
    QCOMPARE(symlink((root + "/nowhere").c_str(), (root + "/dangling").c_str()), 0);

    QCOMPARE(lookupHostPath(root + "/sub").kind, HostEntry::Kind::Directory);
    QCOMPARE(lookupHostPath(root + "/file").kind, HostEntry::Kind::File);
    QCOMPARE(lookupHostPath(root + "/missing").kind, HostEntry::Kind::Missing);
    const HostEntry link = lookupHostPath(root + "/link");
    QCOMPARE(link.kind, HostEntry::Kind::Symlink);
    QCOMPARE(qs(link.linkTarget), QString("usr/bin"));
    const HostEntry dangling = lookupHostPath(root + "/dangling");
    QCOMPARE(dangling.kind, HostEntry::Kind::Symlink);
    QCOMPARE(qs(dangling.linkTarget), qs(root + "/nowhere"));
}

QTEST_GUILESS_MAIN(TestBwrapCommand)
#include "tst_bwrap_command.moc"
