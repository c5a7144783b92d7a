// WorkspacePack: the pure parts as rows (links in and out of the tree, chains, what is skipped, the ignore
// list, the tar headers read back by the server's TarReader, the cap and its message, the manifest's JSON),
// and the edges with the real git and real files: nested .gitignore files and negations, a workspace that
// is a repository (or lies in one, or holds one), ".git" never packed, links in and out, a FIFO, the cap,
// and the tar extracted by the server's own UploadExtractor into the same tree.

#include "app/remote/WorkspacePack.h"
#include "common/LinkChain.h"
#include "common/UniqueFd.h"
#include "common/tar/TarReader.h"
#include "common/tar/UploadExtractor.h"
#include "tests/unit/WorkspaceTree.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace warren;
using namespace warren::remote;
using namespace warren::tar;
using namespace warren::test;

Q_DECLARE_METATYPE(FoundEntry::Type)

namespace {

QStringList packedPaths(const PackSelection& selection) {
    QStringList out;
    for (const auto& entry : selection.entries)
        out << QString::fromStdString(entry.path) + (entry.type == FoundEntry::Type::Directory ? "/" : "");
    return out;
}

QStringList skippedPaths(const std::vector<SkippedEntry>& skipped) {
    QStringList out;
    for (const auto& entry : skipped)
        out << QString::fromStdString(entry.path);
    return out;
}

FoundEntry file(const std::string& path, std::uint64_t size) {
    FoundEntry entry;
    entry.path = path;
    entry.size = size;
    entry.mode = 0644;
    return entry;
}

} // namespace

class WorkspacePackTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();

    void linkStaysInside_data();
    void linkStaysInside();
    void linksLeavingTree_data();
    void linksLeavingTree();
    void skipReason_data();
    void skipReason();
    void ignoreList_data();
    void ignoreList();
    void tarHeadersReadBackByTheServer_data();
    void tarHeadersReadBackByTheServer();
    void describeBytes_data();
    void describeBytes();
    void capMessageNamesTheLargestParts();
    void capCountsTheWholeArchive();
    void manifestJsonRoundTrips();
    void manifestJsonRefusesDamage_data();
    void manifestJsonRefusesDamage();

    void honoursNestedGitignoresAndNegations();
    void repositoryWorkspaceLeavesBuildAndGitOut();
    void workspaceInsideARepositoryHonoursItsRules();
    void nestedRepositoryFollowsItsOwnRules();
    void linksOutOfTheTreeAndSpecialFilesAreSkipped();
    void tarIsExtractedByTheServerIntoTheSameTree();
    void overTheCapWritesNothing();
    void unreadableFileIsNamed();
    void missingWorkspaceIsAnError();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_root;
};

void WorkspacePackTest::initTestCase() {
    if (QStandardPaths::findExecutable("git").isEmpty())
        QSKIP("git is not installed");
}

void WorkspacePackTest::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_root = fs::path(m_dir->path().toStdString());
}

// ---- pure ----

void WorkspacePackTest::linkStaysInside_data() {
    QTest::addColumn<QString>("link");
    QTest::addColumn<QString>("target");
    QTest::addColumn<bool>("inside");
    QTest::newRow("sibling") << "l"
                             << "file" << true;
    QTest::newRow("dot") << "l"
                         << "." << true;
    QTest::newRow("up from a subdirectory") << "a/l"
                                            << "../b" << true;
    QTest::newRow("up twice from two deep") << "a/b/l"
                                            << "../../c" << true;
    QTest::newRow("up from the root") << "l"
                                      << "../x" << false;
    QTest::newRow("up past the root") << "a/l"
                                      << "../../x" << false;
    QTest::newRow("down then up past the root") << "l"
                                                << "x/../../y" << false;
    QTest::newRow("absolute") << "l"
                              << "/etc/passwd" << false;
    QTest::newRow("empty") << "l"
                           << "" << false;
    QTest::newRow("empty components") << "a/l"
                                      << "..//b/./c" << true;
}

void WorkspacePackTest::linkStaysInside() {
    QFETCH(QString, link);
    QFETCH(QString, target);
    QFETCH(bool, inside);
    QCOMPARE(warren::linkStaysInside(link.toStdString(), target.toStdString()), inside);
}

void WorkspacePackTest::linksLeavingTree_data() {
    QTest::addColumn<QStringList>("links"); // "path=target"
    QTest::addColumn<QStringList>("leaving");
    QTest::newRow("harmless chain") << QStringList{"a=b", "b=c/d", "c/up=.."} << QStringList{};
    QTest::newRow("out through another link")
        << QStringList{"sub/up=..", "esc=sub/up/..", "fine=sub/up"} << QStringList{"esc"};
    QTest::newRow("loop") << QStringList{"a=b", "b=a", "c=d"} << QStringList{"a", "b"};
    QTest::newRow("chain through two links")
        << QStringList{"x/y/top=../..", "x/mid=y/top", "esc=x/mid/.."} << QStringList{"esc"};
}

void WorkspacePackTest::linksLeavingTree() {
    QFETCH(QStringList, links);
    QFETCH(QStringList, leaving);
    std::map<std::string, std::string> map;
    for (const QString& link : links)
        map.emplace(link.section('=', 0, 0).toStdString(), link.section('=', 1).toStdString());
    QStringList found;
    for (const auto& [path, chain] : warren::linksLeavingTree(map)) {
        found << QString::fromStdString(path);
        QVERIFY(chain != LinkChain::StaysInside);
    }
    QCOMPARE(found, leaving);
}

void WorkspacePackTest::skipReason_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<FoundEntry::Type>("type");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("reason"); // a word of it; empty: packed
    QTest::newRow("file") << "a.c" << FoundEntry::Type::File << ""
                          << "";
    QTest::newRow("directory") << "src" << FoundEntry::Type::Directory << ""
                               << "";
    QTest::newRow("link inside") << "l" << FoundEntry::Type::Symlink << "src/a.c"
                                 << "";
    QTest::newRow("link absolute") << "l" << FoundEntry::Type::Symlink << "/etc/passwd"
                                   << "absolute";
    QTest::newRow("link up and out") << "a/l" << FoundEntry::Type::Symlink << "../../x"
                                     << "out of the workspace";
    QTest::newRow("fifo") << "f" << FoundEntry::Type::Fifo << ""
                          << "FIFO";
    QTest::newRow("socket") << "s" << FoundEntry::Type::Socket << ""
                            << "socket";
    QTest::newRow("character device") << "c" << FoundEntry::Type::CharDevice << ""
                                      << "character device";
    QTest::newRow("block device") << "b" << FoundEntry::Type::BlockDevice << ""
                                  << "block device";
    QTest::newRow("name not UTF-8") << QString::fromLatin1("caf\xe9") << FoundEntry::Type::File << ""
                                    << "not UTF-8";
}

void WorkspacePackTest::skipReason() {
    QFETCH(QString, path);
    QFETCH(FoundEntry::Type, type);
    QFETCH(QString, target);
    QFETCH(QString, reason);
    FoundEntry entry;
    entry.path = QTest::currentDataTag() == QByteArray("name not UTF-8") ? path.toLatin1().toStdString()
                                                                         : path.toStdString();
    entry.type = type;
    entry.linkTarget = target.toStdString();
    const auto why = remote::skipReason(entry);
    if (reason.isEmpty()) {
        QVERIFY2(!why, why ? why->c_str() : "");
    } else {
        QVERIFY(why);
        QVERIFY2(QString::fromStdString(*why).contains(reason), why->c_str());
    }
}

void WorkspacePackTest::ignoreList_data() {
    QTest::addColumn<QString>("root");
    QTest::addColumn<QByteArray>("listing");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("directory");
    QTest::addColumn<bool>("ignored");
    const QByteArray listing("build/\0x.log\0src/gen/x.tmp\0", 26);
    QTest::newRow("ignored directory") << "" << listing << "build" << true << true;
    QTest::newRow("a file of that name is not") << "" << listing << "build" << false << false;
    QTest::newRow("ignored file") << "" << listing << "x.log" << false << true;
    QTest::newRow("deep ignored file") << "" << listing << "src/gen/x.tmp" << false << true;
    QTest::newRow("its sibling") << "" << listing << "src/gen/keep.tmp" << false << false;
    QTest::newRow("nested repository's") << "vendor/lib" << listing << "vendor/lib/build" << true << true;
    QTest::newRow("nested listing is not the root's") << "vendor/lib" << listing << "build" << true << false;
}

void WorkspacePackTest::ignoreList() {
    QFETCH(QString, root);
    QFETCH(QByteArray, listing);
    QFETCH(QString, path);
    QFETCH(bool, directory);
    QFETCH(bool, ignored);
    IgnoreList list;
    list.addListing(root.toStdString(), listing.toStdString());
    QCOMPARE(list.ignored(path.toStdString(), directory), ignored);
}

void WorkspacePackTest::tarHeadersReadBackByTheServer_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("type"); // TarMember::Type
    QTest::addColumn<QString>("target");
    QTest::addColumn<quint64>("size");
    QTest::addColumn<int>("blocks"); // header blocks: 1 for ustar alone, more with a pax header
    const QString hundred = QString(96, 'p') + ".txt"; // exactly ustar's 100 bytes
    QTest::newRow("file") << "src/a.c" << 0 << "" << quint64(5) << 1;
    QTest::newRow("empty file") << "empty" << 0 << "" << quint64(0) << 1;
    QTest::newRow("directory") << "src" << 1 << "" << quint64(0) << 1;
    QTest::newRow("symlink") << "l" << 2 << "src/a.c" << quint64(0) << 1;
    QTest::newRow("path of exactly 100 bytes") << hundred << 0 << "" << quint64(3) << 1;
    QTest::newRow("path of 101 bytes") << hundred + "x" << 0 << "" << quint64(3) << 3;
    QTest::newRow("directory of 100 bytes (its / makes 101)") << hundred << 1 << "" << quint64(0) << 3;
    QTest::newRow("long path") << QString(300, 'd') + "/" + QString(200, 'f') << 0 << "" << quint64(7) << 3;
    QTest::newRow("long link target") << "l" << 2 << QString(150, 't') << quint64(0) << 3;
    QTest::newRow("not ASCII") << QString::fromUtf8("r\xc3\xa9sum\xc3\xa9.txt") << 0 << "" << quint64(2) << 1;
}

void WorkspacePackTest::tarHeadersReadBackByTheServer() {
    QFETCH(QString, path);
    QFETCH(int, type);
    QFETCH(QString, target);
    QFETCH(quint64, size);
    QFETCH(int, blocks);
    TarMember member;
    member.path = path.toStdString();
    member.type = static_cast<TarMember::Type>(type);
    member.linkTarget = target.toStdString();
    member.size = size;
    member.mode = 0755;
    member.mtime = 1700000000;
    const std::string headers = tarHeaders(member);
    QCOMPARE(headers.size() % 512, std::size_t{0});
    QCOMPARE(int(headers.size() / 512), blocks);

    std::string archive = headers;
    if (member.type == TarMember::Type::File)
        archive += std::string(size, 'x') + std::string(tarPadding(size), '\0');
    archive += std::string(kTarEndBytes, '\0');
    tar::StringByteSource source(archive);
    tar::TarReader reader(source);
    auto entry = reader.next();
    QVERIFY2(entry, entry ? "" : entry.error().message.c_str());
    QVERIFY(entry->has_value());
    const tar::TarEntry& read = **entry;
    const std::string expectedPath =
        member.type == TarMember::Type::Directory ? member.path + "/" : member.path;
    QCOMPARE(read.path, expectedPath);
    const tar::TarEntryType expectedType =
        member.type == TarMember::Type::File        ? tar::TarEntryType::Regular
        : member.type == TarMember::Type::Directory ? tar::TarEntryType::Directory
                                                    : tar::TarEntryType::Symlink;
    QCOMPARE(read.type, expectedType);
    QCOMPARE(read.linkTarget, member.linkTarget);
    QCOMPARE(read.size, member.type == TarMember::Type::File ? size : 0);
    QCOMPARE(read.mode, 0755u);
    std::string data(size, '\0');
    std::size_t have = 0;
    while (have < data.size()) {
        auto n = reader.readData(data.data() + have, data.size() - have);
        QVERIFY(n && *n > 0);
        have += *n;
    }
    auto end = reader.next();
    QVERIFY(end && !end->has_value());
}

void WorkspacePackTest::describeBytes_data() {
    QTest::addColumn<quint64>("bytes");
    QTest::addColumn<QString>("text");
    QTest::newRow("bytes") << quint64(700) << "700 bytes";
    QTest::newRow("one byte") << quint64(1) << "1 byte";
    QTest::newRow("KiB") << quint64(1536) << "1.5 KiB";
    QTest::newRow("exact MiB") << quint64(512ull << 20) << "512 MiB";
    QTest::newRow("just over the cap reads as over") << quint64((512ull << 20) + 200'000) << "512.1 MiB";
    QTest::newRow("just over, rounded down") << quint64((512ull << 20) + 1) << "512 MiB";
    QTest::newRow("GiB") << quint64(3ull << 30) << "3 GiB";
}

void WorkspacePackTest::describeBytes() {
    QFETCH(quint64, bytes);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(remote::describeBytes(bytes)), text);
}

void WorkspacePackTest::capMessageNamesTheLargestParts() {
    FoundEntry nodeModules = file("node_modules", 0);
    nodeModules.type = FoundEntry::Type::Directory;
    const std::vector<FoundEntry> entries = {nodeModules,
                                             file("node_modules/a/big.js", 400ull << 20),
                                             file("node_modules/b.js", 200ull << 20),
                                             file("data.bin", 50ull << 20),
                                             file("src/main.c", 1ull << 20),
                                             file("README", 10)};
    QVERIFY(checkPackSize(entries, 1ull << 30));
    const auto over = checkPackSize(entries, kDefaultMaxUploadBytes);
    QVERIFY(!over);
    const QString message = QString::fromStdString(over.error().message);
    QVERIFY2(message.contains("651 MiB"), qPrintable(message));                       // the total
    QVERIFY2(message.contains("more than the 512 MiB allowed"), qPrintable(message)); // the cap
    QVERIFY2(message.contains("node_modules/ (600 MiB), data.bin (50 MiB), src/ (1 MiB), README (10 bytes)"),
             qPrintable(message)); // largest first, directories with their '/'
    QVERIFY2(message.contains(".gitignore"), qPrintable(message));
}

// The server counts the body, so the cap is on the tar: headers and padding count, not only the files.
void WorkspacePackTest::capCountsTheWholeArchive() {
    const std::vector<FoundEntry> entries = {file("a", 1), file("b", 1)};
    const std::uint64_t size = archiveSize(entries);
    QCOMPARE(size, std::uint64_t(2 * (512 + 512) + 1024));
    QVERIFY(checkPackSize(entries, size));
    QVERIFY(!checkPackSize(entries, size - 1));
}

void WorkspacePackTest::manifestJsonRoundTrips() {
    const WorkspaceManifest manifest(
        {{"src/b.c", ManifestEntry::Type::File, 3, std::string(64, 'a'), true, ""},
         {"link", ManifestEntry::Type::Symlink, 0, "", false, "src/b.c"},
         {"a.txt", ManifestEntry::Type::File, 0, std::string(64, 'f'), false, ""}});
    QCOMPARE(manifest.entries().front().path, std::string("a.txt")); // sorted
    const std::string text = manifest.toJson().dump();
    auto read = WorkspaceManifest::fromJson(nlohmann::json::parse(text));
    QVERIFY2(read, read ? "" : read.error().message.c_str());
    QVERIFY(*read == manifest);
    QVERIFY(read->find("link") && read->find("link")->target == "src/b.c");
    QVERIFY(!read->find("src"));
}

void WorkspacePackTest::manifestJsonRefusesDamage_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("error");
    const QString hash = QString(64, 'a');
    QTest::newRow("not an object") << "[]"
                                   << "object";
    QTest::newRow("other version") << R"({"version": 2, "entries": []})"
                                   << "version 2";
    QTest::newRow("unknown key") << R"({"version": 1, "entries": [], "x": 1})"
                                 << "unknown key";
    QTest::newRow("no entries") << R"({"version": 1})"
                                << "entries";
    QTest::newRow("bad hash") << R"({"version": 1, "entries": [{"path": "a", "type": "file", "size": 1, )"
                                 R"("sha256": "xyz", "executable": false}]})"
                              << "sha256";
    QTest::newRow("unknown type") << R"({"version": 1, "entries": [{"path": "a", "type": "fifo"}]})"
                                  << "type";
    QTest::newRow("twice")
        << QString(R"({"version": 1, "entries": [{"path": "a", "type": "symlink", "target": "b"},)"
                   R"({"path": "a", "type": "file", "size": 1, "sha256": "%1", "executable": true}]})")
               .arg(hash)
        << "twice";
}

void WorkspacePackTest::manifestJsonRefusesDamage() {
    QFETCH(QString, json);
    QFETCH(QString, error);
    const auto read = WorkspaceManifest::fromJson(nlohmann::json::parse(json.toStdString()));
    QVERIFY(!read);
    QVERIFY2(QString::fromStdString(read.error().message).contains(error), read.error().message.c_str());
}

// ---- with git and files ----

void WorkspacePackTest::honoursNestedGitignoresAndNegations() {
    const fs::path ws = m_root / "ws";
    writeFile(ws / ".gitignore", "build/\n*.log\n!keep.log\nlogs/*\n!logs/important.txt\n/obj/*.o\n");
    writeFile(ws / "src/a.c", "a");
    writeFile(ws / "src/.gitignore", "*.tmp\n");
    writeFile(ws / "src/x.tmp", "x");
    writeFile(ws / "src/gen/.gitignore", "!keep.tmp\n");
    writeFile(ws / "src/gen/keep.tmp", "k");
    writeFile(ws / "src/gen/drop.tmp", "d");
    writeFile(ws / "build/out", "o");
    writeFile(ws / "x.log", "l");
    writeFile(ws / "keep.log", "k");
    writeFile(ws / "logs/a", "a");
    writeFile(ws / "logs/important.txt", "i");
    writeFile(ws / "obj/a.o", "o");
    writeFile(ws / "obj/notes.txt", "n");
    fs::create_directories(ws / "empty");
    auto selection = selectWorkspace(ws);
    QVERIFY2(selection, selection ? "" : selection.error().message.c_str());
    QCOMPARE(packedPaths(*selection),
             (QStringList{".gitignore", "empty/", "keep.log", "logs/", "logs/important.txt", "obj/",
                          "obj/notes.txt", "src/", "src/.gitignore", "src/a.c", "src/gen/",
                          "src/gen/.gitignore", "src/gen/keep.tmp"}));
    QVERIFY(selection->skipped.empty());
}

void WorkspacePackTest::repositoryWorkspaceLeavesBuildAndGitOut() {
    const fs::path ws = m_root / "repo";
    writeFile(ws / ".gitignore", "build/\ncmake-build-*/\n");
    writeFile(ws / "main.cpp", "int main() {}\n");
    writeFile(ws / "build/main.o", "obj");
    writeFile(ws / "cmake-build-debug/CMakeCache.txt", "cache");
    writeFile(ws / "local.env", "SECRET=1");
    git(ws, {"init", "-q"});
    git(ws, {"add", ".gitignore", "main.cpp"});
    git(ws, {"commit", "-qm", "first"});
    writeFile(ws / ".git/info/exclude", "local.env\n");
    writeFile(ws / "untracked.txt", "u"); // not committed, not ignored: packed
    const QByteArray gitBefore = treeHash(ws / ".git");
    auto selection = selectWorkspace(ws);
    QVERIFY2(selection, selection ? "" : selection.error().message.c_str());
    QCOMPARE(packedPaths(*selection), (QStringList{".gitignore", "main.cpp", "untracked.txt"}));
    QCOMPARE(treeHash(ws / ".git"), gitBefore);
}

void WorkspacePackTest::workspaceInsideARepositoryHonoursItsRules() {
    const fs::path top = m_root / "repo";
    writeFile(top / ".gitignore", "*.o\nsub/generated/\n");
    writeFile(top / "sub/a.c", "a");
    writeFile(top / "sub/a.o", "o");
    writeFile(top / "sub/generated/x", "x");
    writeFile(top / "sub/secret.txt", "s");
    git(top, {"init", "-q"});
    writeFile(top / ".git/info/exclude", "secret.txt\n");
    auto selection = selectWorkspace(top / "sub");
    QVERIFY2(selection, selection ? "" : selection.error().message.c_str());
    QCOMPARE(packedPaths(*selection), (QStringList{"a.c"}));
}

void WorkspacePackTest::nestedRepositoryFollowsItsOwnRules() {
    const fs::path ws = m_root / "ws";
    writeFile(ws / ".gitignore", "*.tmp\nignored-clone/\n");
    writeFile(ws / "vendor/lib/.gitignore", "dist/\n");
    writeFile(ws / "vendor/lib/lib.c", "l");
    writeFile(ws / "vendor/lib/dist/lib.min.js", "d");
    writeFile(ws / "ignored-clone/x.c", "x");
    git(ws / "vendor/lib", {"init", "-q"});
    git(ws / "ignored-clone", {"init", "-q"});
    auto selection = selectWorkspace(ws);
    QVERIFY2(selection, selection ? "" : selection.error().message.c_str());
    QCOMPARE(packedPaths(*selection), (QStringList{".gitignore", "vendor/", "vendor/lib/",
                                                   "vendor/lib/.gitignore", "vendor/lib/lib.c"}));
}

void WorkspacePackTest::linksOutOfTheTreeAndSpecialFilesAreSkipped() {
    const fs::path ws = m_root / "ws";
    writeFile(ws / "src/a.c", "a");
    fs::create_symlink("src/a.c", ws / "inside");
    fs::create_symlink("../a.c", ws / "src/up-inside");
    fs::create_symlink("/etc/passwd", ws / "absolute");
    fs::create_symlink("../../outside", ws / "src/escape");
    fs::create_symlink("missing-but-inside", ws / "dangling");
    QCOMPARE(::mkfifo((ws / "fifo").c_str(), 0600), 0);
    auto selection = selectWorkspace(ws);
    QVERIFY2(selection, selection ? "" : selection.error().message.c_str());
    QCOMPARE(packedPaths(*selection),
             (QStringList{"dangling", "inside", "src/", "src/a.c", "src/up-inside"}));
    QCOMPARE(skippedPaths(selection->skipped), (QStringList{"absolute", "fifo", "src/escape"}));
    for (const auto& skipped : selection->skipped)
        QVERIFY(!skipped.reason.empty());
}

void WorkspacePackTest::tarIsExtractedByTheServerIntoTheSameTree() {
    const fs::path ws = m_root / "ws";
    writeFile(ws / ".gitignore", "build/\n");
    writeFile(ws / "build/out.bin", binaryBytes(1000, 3));
    writeFile(ws / "src/main.c", "int main() { return 0; }\n");
    writeFile(ws / "tools/run.sh", "#!/bin/sh\necho hi\n");
    setExecutable(ws / "tools/run.sh", true);
    writeFile(ws / "data/blob.bin", binaryBytes(200'000, 7));
    writeFile(ws / "empty.txt", "");
    const std::string longDir(120, 'd');
    writeFile(ws / longDir / std::string(110, 'f'), "long path");
    writeFile(ws / "sp ace/\xc3\xa9t\xc3\xa9.txt", "utf-8 name");
    fs::create_directories(ws / "empty-dir");
    fs::create_symlink("src/main.c", ws / "main-link");
    fs::create_symlink(std::string(130, 'x'), ws / "long-link");
    git(ws, {"init", "-q"});
    git(ws, {"add", "-A"});
    git(ws, {"commit", "-qm", "first"});

    const fs::path tar = m_root / "upload.tar";
    auto packed = packWorkspace(ws, tar);
    QVERIFY2(packed, packed ? "" : packed.error().message.c_str());
    QCOMPARE(packed->bytes, std::uint64_t(fs::file_size(tar)));
    QVERIFY(packed->skipped.empty());

    const fs::path extracted = m_root / "extracted";
    const UniqueFd fd(::open(tar.c_str(), O_RDONLY | O_CLOEXEC));
    tar::FdByteSource source(fd.get());
    auto counts = tar::UploadExtractor(tar::UploadLimits{}).extract(source, extracted);
    QVERIFY2(counts, counts ? "" : counts.error().message.c_str());
    QCOMPARE(counts->files, packed->files);
    QCOMPARE(counts->symlinks, packed->symlinks);

    fs::remove_all(ws / "build"); // ignored: not sent
    QCOMPARE(snapshot(extracted), snapshot(ws));

    // The manifest says what was sent: each file's hash and executable bit, each link's target.
    QCOMPARE(packed->manifest.entries().size(), std::size_t(9));
    for (const auto& entry : packed->manifest.entries()) {
        if (entry.type == ManifestEntry::Type::Symlink) {
            QCOMPARE(entry.target, fs::read_symlink(ws / entry.path).string());
            continue;
        }
        QCOMPARE(QString::fromStdString(entry.sha256), sha256Of(readFile(ws / entry.path)));
        QCOMPARE(entry.size, std::uint64_t(fs::file_size(ws / entry.path)));
        QCOMPARE(entry.executable, entry.path == "tools/run.sh");
    }
}

void WorkspacePackTest::overTheCapWritesNothing() {
    const fs::path ws = m_root / "ws";
    writeFile(ws / "assets/big.bin", binaryBytes(300'000, 5));
    writeFile(ws / "assets/small.bin", binaryBytes(1000, 5));
    writeFile(ws / "huge.dat", binaryBytes(200'000, 9));
    writeFile(ws / "src/a.c", "a");
    const fs::path tar = m_root / "upload.tar";
    PackOptions options;
    options.maxBytes = 256 * 1024;
    auto packed = packWorkspace(ws, tar, options);
    QVERIFY(!packed);
    const QString message = QString::fromStdString(packed.error().message);
    QVERIFY2(message.contains("more than the 256 KiB allowed"), qPrintable(message));
    QVERIFY2(message.contains("assets/ (293.9 KiB), huge.dat (195.3 KiB), src/ (1 byte)"),
             qPrintable(message));
    QVERIFY2(message.contains(QString::number(archiveSize(selectWorkspace(ws)->entries)) + " bytes"),
             qPrintable(message));
    QVERIFY(!fs::exists(tar));
}

void WorkspacePackTest::unreadableFileIsNamed() {
    if (::geteuid() == 0)
        QSKIP("root reads a file whatever its mode");
    const fs::path ws = m_root / "ws";
    writeFile(ws / "a.c", "a");
    writeFile(ws / "private.key", "k");
    fs::permissions(ws / "private.key", fs::perms::none);
    const fs::path tar = m_root / "upload.tar";
    auto packed = packWorkspace(ws, tar);
    QVERIFY(!packed);
    QVERIFY2(QString::fromStdString(packed.error().message).contains("\"private.key\""),
             packed.error().message.c_str());
    QVERIFY(!fs::exists(tar));
}

void WorkspacePackTest::missingWorkspaceIsAnError() {
    auto packed = packWorkspace(m_root / "nowhere", m_root / "upload.tar");
    QVERIFY(!packed);
    QCOMPARE(packed.error().code, ErrorCode::NotFound);
    QVERIFY(!fs::exists(m_root / "upload.tar"));
}

QTEST_GUILESS_MAIN(WorkspacePackTest)
#include "tst_workspace_pack.moc"
