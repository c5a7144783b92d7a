// copyWorkspace and removeTree against real directories: the copy holds what the source held (modes masked
// as the upload policy masks them), shares no inode with it, refuses what the policy refuses when the
// source holds it (a FIFO, a device, a socket, a link out), and leaves nothing behind when it does; a
// tree 2,000 directories deep (a path past PATH_MAX from the root) is copied, removed and measured.

#include "common/RemoveTree.h"
#include "common/TreeSize.h"
#include "common/UniqueFd.h"
#include "server/uploads/WorkspaceCopy.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

using namespace warren;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& path, const std::string& text,
               fs::perms perms = fs::perms::owner_read | fs::perms::owner_write) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    fs::permissions(path, perms);
}

std::string readFile(const fs::path& path) {
    QFile file(QString::fromStdString(path.string()));
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

// A chain of `depth` directories named "d" under root, each but the deepest holding a file "f"; made with
// *at calls, since the deepest is further from root than PATH_MAX allows a path to be.
void makeDeepTree(const fs::path& root, int depth) {
    UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY));
    for (int i = 0; i < depth; ++i) {
        const UniqueFd file(::openat(dir.get(), "f", O_WRONLY | O_CREAT | O_EXCL, 0644));
        QVERIFY(file.valid());
        QVERIFY(::mkdirat(dir.get(), "d", 0755) == 0);
        dir = UniqueFd(::openat(dir.get(), "d", O_RDONLY | O_DIRECTORY));
        QVERIFY(dir.valid());
    }
}

int deepestLevel(const fs::path& root) {
    UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY));
    int depth = 0;
    while (dir.valid()) {
        UniqueFd child(::openat(dir.get(), "d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
        if (!child.valid())
            break;
        struct stat status {};
        if (::fstatat(dir.get(), "f", &status, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(status.st_mode))
            break;
        dir = std::move(child);
        ++depth;
    }
    return depth;
}

} // namespace

class WorkspaceCopyTest : public QObject {
    Q_OBJECT
private slots:
    void init();
    void copiesTheTree();
    void refusesWhatThePolicyRefuses_data();
    void refusesWhatThePolicyRefuses();
    void refusesPastTheLimits();
    void copiesAndRemovesADeepTree();
    void removesWithoutFollowingLinks();
    void measuresWithoutFollowingLinks();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_source, m_target;
};

void WorkspaceCopyTest::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    m_source = fs::path(m_dir->path().toStdString()) / "tree";
    m_target = fs::path(m_dir->path().toStdString()) / "workspace";
    fs::create_directory(m_source);
    writeFile(m_source / "README.md", "# project\n");
    writeFile(m_source / "src/main.c", "int main() {}\n");
    writeFile(m_source / "bin/run", "#!/bin/sh\n", fs::perms::owner_all | fs::perms::group_read);
    fs::create_directory_symlink("src", m_source / "code");
    fs::create_symlink("../README.md", m_source / "src/readme");
}

void WorkspaceCopyTest::copiesTheTree() {
    ::chmod((m_source / "bin/run").c_str(), 04755); // setuid: masked in the copy, as extraction masks it
    auto counts = uploads::copyWorkspace(m_source, m_target, tar::UploadLimits{});
    QVERIFY2(counts.ok(), counts.ok() ? "" : counts.error().message.c_str());
    QCOMPARE(counts->files, std::uint64_t{3});
    QCOMPARE(counts->directories, std::uint64_t{2});
    QCOMPARE(counts->symlinks, std::uint64_t{2});
    QCOMPARE(readFile(m_target / "src/main.c"), std::string("int main() {}\n"));
    QCOMPARE(fs::read_symlink(m_target / "code"), fs::path("src"));
    QCOMPARE(fs::read_symlink(m_target / "src/readme"), fs::path("../README.md"));
    struct stat from {}, to {};
    QVERIFY(::stat((m_source / "bin/run").c_str(), &from) == 0 && ::stat((m_target / "bin/run").c_str(), &to) == 0);
    QCOMPARE(to.st_mode & 07777, 0755u);
    QVERIFY(from.st_ino != to.st_ino); // never a hard link: what the agent writes stays in its workspace
    QCOMPARE(to.st_nlink, nlink_t{1});
    writeFile(m_target / "README.md", "changed by the agent\n");
    QCOMPARE(readFile(m_source / "README.md"), std::string("# project\n"));
}

void WorkspaceCopyTest::refusesWhatThePolicyRefuses_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("reason");
    QTest::newRow("fifo") << "fifo" << "FIFO";
    QTest::newRow("char_device") << "device" << "character device";
    QTest::newRow("socket") << "socket" << "unsupported tar type";
    QTest::newRow("absolute_link") << "absolute_link" << "absolute link target";
    QTest::newRow("link_out_of_the_tree") << "link_out" << "outside the tree";
    QTest::newRow("chain_of_links_out") << "chain_out" << "leads outside the tree";
    QTest::newRow("name_longer_than_the_limit") << "long_name" << "may have at most 8 bytes";
}

void WorkspaceCopyTest::refusesWhatThePolicyRefuses() {
    QFETCH(QString, kind);
    QFETCH(QString, reason);
    const fs::path at = m_source / "src" / "x";
    UniqueFd socket;
    tar::UploadLimits limits;
    if (kind == "fifo") {
        QVERIFY(::mkfifo(at.c_str(), 0644) == 0);
    } else if (kind == "device") {
        if (::mknod(at.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
            QSKIP("cannot make a device node here (no CAP_MKNOD)");
    } else if (kind == "socket") {
        socket = UniqueFd(::socket(AF_UNIX, SOCK_STREAM, 0));
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, at.c_str(), sizeof address.sun_path - 1);
        QVERIFY(::bind(socket.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    } else if (kind == "absolute_link") {
        fs::create_symlink("/etc/passwd", at);
    } else if (kind == "link_out") {
        fs::create_symlink("../../outside", at);
    } else if (kind == "chain_out") {
        fs::create_symlink("..", m_source / "src" / "up");
        fs::create_symlink("up/..", at);
    } else if (kind == "long_name") {
        limits.maxNameBytes = 8;
        writeFile(m_source / "src" / "a-long-name", "x");
    }
    auto counts = uploads::copyWorkspace(m_source, m_target, limits);
    QVERIFY(!counts.ok());
    const QString message = QString::fromStdString(counts.error().message);
    QVERIFY2(message.contains(reason), qPrintable(message));
    QVERIFY2(!fs::exists(fs::symlink_status(m_target)), "the refused copy remains");
}

void WorkspaceCopyTest::refusesPastTheLimits() {
    tar::UploadLimits limits;
    limits.maxEntries = 4;
    auto counts = uploads::copyWorkspace(m_source, m_target, limits);
    QVERIFY(!counts.ok());
    QVERIFY2(counts.error().message.find("more than the 4 allowed") != std::string::npos, counts.error().message.c_str());
    QVERIFY(!fs::exists(m_target));
    limits = {};
    limits.maxTotalBytes = 10;
    counts = uploads::copyWorkspace(m_source, m_target, limits);
    QVERIFY(!counts.ok());
    QVERIFY2(counts.error().message.find("past the 10 bytes") != std::string::npos, counts.error().message.c_str());
    QVERIFY(!fs::exists(m_target));
}

void WorkspaceCopyTest::copiesAndRemovesADeepTree() {
    const int depth = 2000; // "d/" 2,000 times: 4,000 bytes of path below the root
    const fs::path deep = m_source / "deep";
    fs::create_directory(deep);
    makeDeepTree(deep, depth);
    auto counts = uploads::copyWorkspace(m_source, m_target, tar::UploadLimits{});
    QVERIFY2(counts.ok(), counts.ok() ? "" : counts.error().message.c_str());
    QCOMPARE(deepestLevel(m_target / "deep"), depth);
    auto removed = files::removeTree(m_target);
    QVERIFY2(removed.ok(), removed.ok() ? "" : removed.error().message.c_str());
    QVERIFY(!fs::exists(m_target));
    QVERIFY(files::removeTree(m_source).ok());
    QVERIFY(!fs::exists(m_source));
}

void WorkspaceCopyTest::removesWithoutFollowingLinks() {
    const fs::path outside = fs::path(m_dir->path().toStdString()) / "outside";
    writeFile(outside / "keep", "keep");
    fs::create_directory_symlink(outside, m_source / "out");
    QVERIFY(files::removeTree(m_source).ok());
    QVERIFY(!fs::exists(fs::symlink_status(m_source)));
    QCOMPARE(readFile(outside / "keep"), std::string("keep"));
    QVERIFY(files::removeTree(m_source).ok()); // gone already: removed
}

// treeBytes (disk_mb's measure): what the files hold, at any depth; a link counts as itself, never as what
// it names; a tree that is not there takes nothing.
void WorkspaceCopyTest::measuresWithoutFollowingLinks() {
    const fs::path outside = fs::path(m_dir->path().toStdString()) / "outside";
    writeFile(outside / "big", std::string(4u << 20, 'x'));
    writeFile(m_source / "small", std::string(256 * 1024, 'y'));
    fs::create_directory_symlink(outside, m_source / "out");
    fs::create_symlink(outside / "big", m_source / "big-link");
    fs::create_directory(m_source / "deep");
    makeDeepTree(m_source / "deep", 2000);
    auto bytes = files::treeBytes(m_source);
    QVERIFY2(bytes.ok(), bytes.ok() ? "" : bytes.error().message.c_str());
    auto deep = files::treeBytes(m_source / "deep");
    QVERIFY(deep.ok() && *deep >= 2000u * 512); // every level's directory counts
    QVERIFY2(*bytes - *deep >= 256 * 1024, std::to_string(*bytes).c_str());
    QVERIFY2(*bytes - *deep < (4u << 20), std::to_string(*bytes).c_str()); // not the 4 MiB behind the links
    auto big = files::treeBytes(outside);
    QVERIFY(big.ok() && *big >= (4u << 20));
    auto none = files::treeBytes(m_source / "not-there");
    QVERIFY(none.ok() && *none == 0);
}

QTEST_APPLESS_MAIN(WorkspaceCopyTest)
#include "tst_workspace_copy.moc"
