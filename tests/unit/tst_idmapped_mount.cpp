// IdmappedMount against the real kernel: a view of a root-owned directory shows root's files as uid 1000's,
// what uid 1000 writes through it is root's on disk, unmounting leaves nothing mounted, and a file system
// that refuses idmapped mounts (procfs) is an error that mounts nothing. Making a view needs root; as a
// user only the refusal is checked.

#include "sandbox/container/IdmappedMount.h"

#include <QtTest>
#include <fcntl.h>
#include <fstream>
#include <grp.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace warren;
using namespace warren::sandbox;

namespace {

// True when a mount's mount point (field 5 of /proc/self/mountinfo) is path.
bool mounted(const std::string& path) {
    std::ifstream mountinfo("/proc/self/mountinfo");
    std::string line;
    while (std::getline(mountinfo, line)) {
        std::istringstream fields(line);
        std::string field;
        for (int i = 0; i < 5 && fields >> field; ++i) {
        }
        if (field == path)
            return true;
    }
    return false;
}

uid_t ownerOf(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

// Creates path as uid and gid 1000, in a child; true when it could.
bool createAsUid1000(const std::string& path) {
    const pid_t child = ::fork();
    if (child == 0) {
        if (::setgroups(0, nullptr) != 0 || ::setgid(1000) != 0 || ::setuid(1000) != 0)
            ::_exit(2);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
        ::_exit(fd >= 0 ? 0 : 1);
    }
    int status = 0;
    return child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

} // namespace

class TestIdmappedMount : public QObject {
    Q_OBJECT

private slots:
    void viewShowsAndWritesAsTheOwner();
    void refusingFileSystemMountsNothing();
    void unmountingNothingIsHarmless();
};

void TestIdmappedMount::viewShowsAndWritesAsTheOwner() {
    if (::geteuid() != 0)
        QSKIP("only root can make an idmapped mount");
    QTemporaryDir source, scratch;
    const std::string from = source.path().toStdString();
    const std::string view = scratch.path().toStdString() + "/view";
    QVERIFY(::chmod(from.c_str(), 0700) == 0);
    QVERIFY(::chmod(scratch.path().toLocal8Bit().constData(), 0755) == 0); // uid 1000 walks to the view
    QVERIFY(::close(::open((from + "/old").c_str(), O_WRONLY | O_CREAT, 0644)) == 0);
    QVERIFY(!createAsUid1000(from + "/refused")); // 0700 and root's: uid 1000 cannot write it directly

    auto made = mountIdmappedView({from, view, 0, 0, 1000, 1000});
    QVERIFY2(made, made ? "" : made.error().message.c_str());
    const auto unmount = qScopeGuard([&] { unmountIdmappedView(view); }); // also when a check fails
    QVERIFY(mounted(view));
    QCOMPARE(ownerOf(view), 1000u);
    QCOMPARE(ownerOf(view + "/old"), 1000u);
    QVERIFY(createAsUid1000(view + "/new"));
    QCOMPARE(ownerOf(from + "/new"), 0u); // root's on disk

    unmountIdmappedView(view);
    QVERIFY(!mounted(view));
    QVERIFY(!QFileInfo::exists(QString::fromStdString(view)));
    QVERIFY(QFileInfo::exists(QString::fromStdString(from + "/new"))); // nothing removed through the view
}

void TestIdmappedMount::refusingFileSystemMountsNothing() {
    QTemporaryDir scratch;
    const std::string view = scratch.path().toStdString() + "/view";
    auto made = mountIdmappedView({"/proc", view, 0, 0, 1000, 1000});
    QVERIFY(!made);
    QVERIFY2(made.error().message.find("idmapped") != std::string::npos, made.error().message.c_str());
    QVERIFY(!mounted(view));
    QVERIFY(!QFileInfo::exists(QString::fromStdString(view)));
}

void TestIdmappedMount::unmountingNothingIsHarmless() {
    QTemporaryDir scratch;
    const std::string plain = scratch.path().toStdString() + "/plain";
    QVERIFY(::mkdir(plain.c_str(), 0700) == 0);
    QVERIFY(::close(::open((plain + "/kept").c_str(), O_WRONLY | O_CREAT, 0644)) == 0);
    unmountIdmappedView(plain); // not a mount point, and not empty: left as it is
    QVERIFY(QFileInfo::exists(QString::fromStdString(plain + "/kept")));
    unmountIdmappedView(scratch.path().toStdString() + "/missing");
}

QTEST_GUILESS_MAIN(TestIdmappedMount)
#include "tst_idmapped_mount.moc"
