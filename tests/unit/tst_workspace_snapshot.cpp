// WorkspaceSnapshot: the walk's order and what it never follows, snapshots of a real tree, and the diff
// that reports what a shell command created, modified and deleted — exact on hand-built snapshots, and
// free of phantom deletions when a snapshot was cut at maxFiles.

#include "agent_core/tools/WorkspaceSnapshot.h"

#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace warren;
using namespace warren::agent;
namespace fs = std::filesystem;

namespace {

void writeRaw(const fs::path& path, std::string_view content) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

// "path:created" per change, to compare a whole diff at once.
QStringList describe(const std::vector<std::pair<std::string, FileChange>>& changes) {
    QStringList out;
    for (const auto& [path, change] : changes)
        out << QString::fromStdString(path + ":" + std::string(toString(change)));
    return out;
}

QStringList keys(const WorkspaceSnapshot& snapshot) {
    QStringList out;
    for (const auto& [path, identity] : snapshot.files)
        out << QString::fromStdString(path);
    return out;
}

FileIdentity identity(std::uint64_t inode, std::uint64_t size = 1) {
    FileIdentity id;
    id.inode = inode;
    id.size = size;
    id.mode = S_IFREG | 0644;
    return id;
}

// "path=inode" entries, comma-separated; "..." at the end marks a truncated snapshot cut after the last.
WorkspaceSnapshot snapshotOf(const QString& text) {
    WorkspaceSnapshot snapshot;
    for (const QString& item : text.split(',', Qt::SkipEmptyParts)) {
        if (item == "...") {
            snapshot.truncated = true;
            continue;
        }
        const QStringList parts = item.split('=');
        snapshot.files[parts[0].toStdString()] = identity(parts[1].toULongLong());
        snapshot.walkedUpTo = parts[0].toStdString();
    }
    if (!snapshot.truncated)
        snapshot.walkedUpTo.clear();
    return snapshot;
}

} // namespace

class TestWorkspaceSnapshot : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_root;

private slots:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_root = fs::path(m_dir->path().toStdString()) / "ws";
        fs::create_directories(m_root);
    }

    void walkVisitsInSortedPathOrderWithoutFollowingSymlinks() {
        writeRaw(m_root / "a-b", "");
        writeRaw(m_root / "a" / "x", "");
        writeRaw(m_root / "a0", "");
        writeRaw(m_root / ".git" / "HEAD", "");
        writeRaw(m_root / "deep" / "1" / "2" / "f", "");
        fs::create_directory_symlink("..", m_root / "a" / "up");
        fs::create_directory_symlink("/", m_root / "root");
        QStringList visited;
        walkTree(m_root, "", 3, [&](const WalkEntry& entry) {
            visited << QString::fromStdString(entry.path) + (S_ISDIR(entry.status.st_mode) ? "/" : "") +
                           QString(" %1").arg(entry.depth);
            return true;
        });
        const QStringList expected{".git/ 1", "a-b 1",   "a/ 1",      "a/up 2",      "a/x 2",
                                   "a0 1",    "deep/ 1", "deep/1/ 2", "deep/1/2/ 3", "root 1"};
        QCOMPARE(visited, expected);

        QStringList first;
        walkTree(m_root, "p/", 1, [&](const WalkEntry& entry) {
            first << QString::fromStdString(entry.path);
            return first.size() < 2;
        });
        QCOMPARE(first, (QStringList{"p/.git", "p/a-b"})); // the prefix, and stopping when told
    }

    void snapshotRecordsFilesNotDirectoriesNorGit() {
        writeRaw(m_root / "a.txt", "a");
        writeRaw(m_root / "sub" / "b.txt", "b");
        writeRaw(m_root / ".git" / "HEAD", "ref");
        writeRaw(m_root / "sub" / ".git", "gitdir: ../.git/modules/sub"); // a submodule's .git file
        fs::create_directories(m_root / "empty");
        fs::create_symlink("a.txt", m_root / "link");
        const WorkspaceSnapshot snapshot = takeSnapshot(m_root);
        QCOMPARE(keys(snapshot), (QStringList{"a.txt", "link", "sub/b.txt"}));
        QVERIFY(!snapshot.truncated);
        QVERIFY(S_ISLNK(snapshot.files.at("link").mode)); // the link itself, not its target
        QCOMPARE(snapshot.files.at("a.txt").size, 1u);
    }

    void diffOfRealChanges() {
        writeRaw(m_root / "keep.txt", "keep");
        writeRaw(m_root / "edit.txt", "edit");
        writeRaw(m_root / "gone.txt", "gone");
        writeRaw(m_root / "swap.txt", "swap");
        writeRaw(m_root / "retype", "file");
        writeRaw(m_root / ".git" / "index", "1");
        const WorkspaceSnapshot before = takeSnapshot(m_root);

        std::ofstream(m_root / "edit.txt", std::ios::app) << "ed";
        fs::remove(m_root / "gone.txt");
        writeRaw(m_root / "new" / "made.txt", "new");
        writeRaw(m_root / "swap.tmp", "SWAP");
        fs::rename(m_root / "swap.tmp", m_root / "swap.txt"); // same size, new inode
        fs::remove(m_root / "retype");
        fs::create_symlink("keep.txt", m_root / "retype"); // a file became a symlink
        writeRaw(m_root / ".git" / "index", "2");

        QCOMPARE(describe(diffSnapshots(before, takeSnapshot(m_root))),
                 (QStringList{"edit.txt:modified", "gone.txt:deleted", "new/made.txt:created",
                              "retype:modified", "swap.txt:modified"}));
        QVERIFY(diffSnapshots(before, before).empty());
    }

    void diff_data() {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        QTest::addColumn<QStringList>("changes");

        QTest::newRow("nothing") << "a=1,b=2"
                                 << "a=1,b=2" << QStringList{};
        QTest::newRow("both empty") << ""
                                    << "" << QStringList{};
        QTest::newRow("created") << "b=2"
                                 << "a=1,b=2,c=3" << QStringList{"a:created", "c:created"};
        QTest::newRow("deleted") << "a=1,b=2,c=3"
                                 << "b=2" << QStringList{"a:deleted", "c:deleted"};
        QTest::newRow("modified") << "a=1,b=2"
                                  << "a=1,b=9" << QStringList{"b:modified"};
        QTest::newRow("sorted by path across kinds")
            << "a=1,c=3,d=4"
            << "b=2,c=5,d=4" << QStringList{"a:deleted", "b:created", "c:modified"};
        // Truncated walks saw only the paths up to their last: past it, nothing is known.
        QTest::newRow("cut after: a file past the cut is not deleted") << "a=1,b=2,c=3"
                                                                       << "a=1,b=2,..." << QStringList{};
        QTest::newRow("cut before: a file past the cut is not created") << "a=1,b=2,..."
                                                                        << "a=1,b=2,c=3" << QStringList{};
        QTest::newRow("cut both: changes before the cut still count")
            << "a=1,c=3,d=4,..."
            << "b=2,c=5,..." << QStringList{"a:deleted", "b:created", "c:modified"};
        QTest::newRow("cut, a file added before the cut pushes one out")
            << "b=2,c=3,..."
            << "a=1,b=2,..." << QStringList{"a:created"};
    }
    void diff() {
        QFETCH(QString, before);
        QFETCH(QString, after);
        QFETCH(QStringList, changes);
        QCOMPARE(describe(diffSnapshots(snapshotOf(before), snapshotOf(after))), changes);
    }

    void truncatedSnapshotsCauseNoPhantomChanges() {
        for (int i = 10; i < 30; ++i)
            writeRaw(m_root / ("f" + QString::number(i)).toStdString(), "x");
        const WorkspaceSnapshot before = takeSnapshot(m_root, 10);
        QVERIFY(before.truncated);
        QCOMPARE(before.files.size(), 10u);
        QCOMPARE(QString::fromStdString(before.walkedUpTo), "f19");

        writeRaw(m_root / "a-first", "x"); // sorts before everything: pushes f19 out of the next walk
        writeRaw(m_root / "zz-last", "x"); // past the cut: unseen
        const WorkspaceSnapshot after = takeSnapshot(m_root, 10);
        QVERIFY(after.truncated);
        QCOMPARE(describe(diffSnapshots(before, after)), QStringList{"a-first:created"});

        // Directories count towards maxFiles too, so a tree of empty directories cannot make a walk endless.
        for (int i = 0; i < 20; ++i)
            fs::create_directories(m_root / "d" / std::to_string(i));
        const WorkspaceSnapshot dirs = takeSnapshot(m_root / "d", 5);
        QVERIFY(dirs.truncated);
        QVERIFY(dirs.files.empty());
        QCOMPARE(QString::fromStdString(dirs.walkedUpTo), "12/"); // 0/ 1/ 10/ 11/ 12/, in path order
    }

    void identityAndDigest() {
        struct stat status {};
        status.st_dev = 1;
        status.st_ino = 2;
        status.st_size = 3;
        status.st_mtim = {4, 5};
        status.st_ctim = {6, 7};
        status.st_mode = S_IFREG | 0600;
        const FileIdentity id = identityOf(status);
        QCOMPARE(id.device, 1u);
        QCOMPARE(id.inode, 2u);
        QCOMPARE(id.size, 3u);
        QCOMPARE(id.mtimeNs, 4'000'000'005);
        QCOMPARE(id.ctimeNs, 6'000'000'007);
        QVERIFY(!changedWithinCurrentTick(status)); // 1970
        status.st_ctim = {4'000'000'000, 0};        // in the year 2096: a clock tick that has not passed
        QVERIFY(changedWithinCurrentTick(status));

        auto digestOf = [](std::initializer_list<std::string_view> parts) {
            IdentityDigest digest;
            for (const auto part : parts)
                digest.add(part);
            return digest.hex();
        };
        QCOMPARE(digestOf({"ab", "c"}), digestOf({"ab", "c"}));
        QVERIFY(digestOf({"ab", "c"}) != digestOf({"a", "bc"})); // length-prefixed
        QVERIFY(digestOf({""}) != digestOf({}));
        QCOMPARE(digestOf({}).size(), 32u);
        IdentityDigest a;
        IdentityDigest b;
        a.add(id);
        FileIdentity later = id;
        later.ctimeNs += 1;
        b.add(later);
        QVERIFY(a.hex() != b.hex());
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceSnapshot)
#include "tst_workspace_snapshot.moc"
