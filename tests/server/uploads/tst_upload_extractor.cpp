// UploadExtractor against a real directory: a tree extracted as declared (modes masked), hostile archives
// of every class refused with nothing left in the target and nothing changed outside it, a full disk
// (a file-size rlimit) cleaned up the same way, and archives made by the real tar in its formats.

#include "common/UniqueFd.h"
#include "common/tar/UploadExtractor.h"
#include "tests/server/uploads/TarBuilder.h"

#include <QDirIterator>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>

using namespace warren::tar;
using warren::tar::test::TarBuilder;
using warren::tar::test::TarHeader;

namespace {

namespace fs = std::filesystem;

// Every path under root (not following links) with its type, mode and content, to see that nothing changed.
QStringList snapshot(const QString& root) {
    QStringList out;
    QDirIterator it(root, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QFileInfo info = it.fileInfo();
        QString line = QDir(root).relativeFilePath(path);
        if (info.isSymLink()) {
            line += " -> " + QString::fromStdString(fs::read_symlink(path.toStdString()).string());
        } else if (info.isFile()) {
            QFile file(path);
            file.open(QIODevice::ReadOnly);
            line += " " + QString::number(info.size()) + " " +
                    QString::fromLatin1(file.readAll().toHex().left(64));
        }
        out << line;
    }
    out.sort();
    return out;
}

std::string pattern(std::size_t size) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<char>((i * 131) ^ (i >> 9));
    return bytes;
}

std::string readFile(const fs::path& path) {
    QFile file(QString::fromStdString(path.string()));
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string("(unreadable)");
}

unsigned modeOf(const fs::path& path) {
    struct stat st {};
    ::lstat(path.c_str(), &st);
    return st.st_mode & 07777;
}

} // namespace

class UploadExtractorTest : public QObject {
    Q_OBJECT
private slots:
    void init();
    void extractsTheTree();
    void refusesHostileArchives_data();
    void refusesHostileArchives();
    void refusesAnExistingTarget();
    void removesEverythingWhenTheDiskIsFull();
    void readsTheRealTarsFormats_data();
    void readsTheRealTarsFormats();

private:
    warren::Result<UploadCounts> extract(const std::string& body, UploadLimits limits = {});

    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_target, m_outside;
};

void UploadExtractorTest::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    const fs::path root = m_dir->path().toStdString();
    m_target = root / "upload";
    m_outside = root / "outside";
    fs::create_directories(m_outside / "etc");
    std::ofstream(m_outside / "etc" / "passwd") << "root:x:0:0\n";
}

// Streamed from a file, as the HTTP edge hands the body over.
warren::Result<UploadCounts> UploadExtractorTest::extract(const std::string& body, UploadLimits limits) {
    const fs::path file = fs::path(m_dir->path().toStdString()) / "body.tar";
    std::ofstream(file, std::ios::binary | std::ios::trunc) << body;
    const warren::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    FdByteSource source(fd.get());
    return UploadExtractor(limits).extract(source, m_target);
}

void UploadExtractorTest::extractsTheTree() {
    const std::string big = pattern(300 * 1024 + 17);
    const std::string tar = TarBuilder()
                                .directory("./")
                                .directory("src/", 0750)
                                .file("src/main.c", "int main(void) { return 0; }\n")
                                .file("deep/er/still/data.bin", big)
                                .file("bin/tool", "#!/bin/sh\n", 06755)
                                .file("locked", "secret", 0)
                                .directory("closed", 0)
                                .file("closed/inside", "in")
                                .symlink("src/link", "../deep/er")
                                .gnuLong('L', "long/" + std::string(180, 'n'))
                                .file("ignored", "long name")
                                .finish();
    auto counts = extract(tar);
    QVERIFY2(counts.ok(), counts.ok() ? "" : counts.error().message.c_str());
    QCOMPARE(counts->files, std::uint64_t{6});
    QCOMPARE(counts->directories, std::uint64_t{3});
    QCOMPARE(counts->symlinks, std::uint64_t{1});
    QCOMPARE(counts->bytes, std::uint64_t{29 + big.size() + 10 + 6 + 2 + 9});
    QCOMPARE(readFile(m_target / "src/main.c"), std::string("int main(void) { return 0; }\n"));
    QCOMPARE(readFile(m_target / "deep/er/still/data.bin"), big);
    QCOMPARE(readFile(m_target / "long" / std::string(180, 'n')), std::string("long name"));
    QCOMPARE(fs::read_symlink(m_target / "src/link"), fs::path("../deep/er"));
    QCOMPARE(modeOf(m_target / "src"), 0750u);
    QCOMPARE(modeOf(m_target / "bin/tool"), 0755u); // setuid and setgid dropped
    QCOMPARE(modeOf(m_target / "locked"), 0600u);   // the owner can read and write
    QCOMPARE(modeOf(m_target / "closed"), 0700u);
    QCOMPARE(readFile(m_target / "closed/inside"), std::string("in"));
}

void UploadExtractorTest::refusesHostileArchives_data() {
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<quint64>("maxEntries");
    QTest::addColumn<quint64>("maxPathBytes");
    QTest::addColumn<quint64>("maxTotalBytes");
    const UploadLimits defaults;
    // Each hostile archive starts with harmless entries, so the extractor has made something to remove.
    const auto start = [] {
        return TarBuilder().file("README", "hello\n").directory("src/").file("src/a.c", "a");
    };
    const auto row = [&](const char* name, const std::string& body, const char* reason,
                         UploadLimits limits = UploadLimits{}) {
        QTest::newRow(name) << QByteArray::fromStdString(body) << QString(reason)
                            << quint64(limits.maxEntries) << quint64(limits.maxPathBytes)
                            << quint64(limits.maxTotalBytes);
    };
    const std::string outsideAbsolute =
        (fs::temp_directory_path() / "warren-upload-test-not-there" / "pwned").string();
    row("dotdot_in_path", start().file("../outside/pwned", "x").finish(), "\"..\" component");
    row("dotdot_deep_in_path", start().file("src/../../outside/pwned", "x").finish(), "\"..\" component");
    row("dotdot_in_linkpath", start().symlink("escape", "../outside").finish(), "outside the tree");
    row("dotdot_in_linkpath_from_subdir", start().symlink("src/escape", "../../outside/etc").finish(),
        "outside the tree");
    row("absolute_linkpath", start().symlink("etc", "/etc").finish(), "absolute link target");
    row("pax_path_override_traversal",
        start().pax({{"path", "../outside/pwned"}}).file("harmless", "x").finish(), "\"..\" component");
    row("pax_path_override_absolute", start().pax({{"path", outsideAbsolute}}).file("harmless", "x").finish(),
        "absolute name");
    row("pax_linkpath_override_traversal",
        start().pax({{"linkpath", "../../../../etc"}}).symlink("harmless", "ok").finish(),
        "outside the tree");
    row("gnu_long_name_traversal",
        start().gnuLong('L', "../outside/" + std::string(150, 'g')).file("short", "x").finish(),
        "\"..\" component");
    row("gnu_long_link_traversal",
        start().gnuLong('K', "../" + std::string(120, 'k') + "/../../etc/passwd").symlink("l", "ok").finish(),
        "outside the tree");
    row("symlink_then_file_through_it", start().symlink("l", "src").file("l/pwned", "x").finish(),
        "a symbolic link of the same archive");
    row("symlink_to_dot_then_dotdot_through_it", start().symlink("l", ".").file("l/x", "x").finish(),
        "a symbolic link of the same archive");
    row("symlink_chain_out", start().symlink("src/up", "..").symlink("src/out", "up/..").finish(),
        "leads outside the tree");
    row("hardlink_to_etc_passwd",
        start().entry(TarHeader::named("passwd").typed('1').linkingTo("/etc/passwd")).finish(), "hard link");
    row("hardlink_to_file_inside",
        start().entry(TarHeader::named("copy").typed('1').linkingTo("README")).finish(), "hard link");
    row("char_device", start().entry(TarHeader::named("src/null").typed('3')).finish(), "character device");
    row("block_device", start().entry(TarHeader::named("sda").typed('4')).finish(), "block device");
    row("fifo", start().entry(TarHeader::named("pipe").typed('6')).finish(), "FIFO");
    row("absolute_path", start().file(outsideAbsolute, "x").finish(), "absolute name");
    row("directory_replaced_by_file", start().file("src", "x").finish(), "would replace a directory");
    row("file_replaced", start().file("README", "evil").finish(), "appears twice");
    row("huge_declared_size_short_data",
        start().entry(TarHeader::named("huge").declaring(1ull << 40), "short").unfinished(), "truncated",
        UploadLimits{defaults.maxEntries, defaults.maxPathBytes,
                     1ull << 41}); // the limit would refuse it first
    row("declared_size_past_the_limit", start().entry(TarHeader::named("big").declaring(5000), "x").finish(),
        "past the 4096 bytes", UploadLimits{defaults.maxEntries, defaults.maxPathBytes, 4096});
    row("bad_checksum_after_files", start().entry(TarHeader::named("bad").corruptChecksum(), "x").finish(),
        "checksum");
    row("no_end_of_archive_block", start().unfinished(), "end-of-archive");
    row("zip_body", std::string("PK\x03\x04", 4) + std::string(1000, '\x01'), "a tar archive is expected");
    row("json_body", "{\"prompt\": \"hi\"}", "a tar archive is expected");
    row("random_body", pattern(5000), "a tar archive is expected");
    row("empty_body", "", "a tar archive is expected");
    row("too_many_entries", start().file("b", "b").finish(), "one entry more than the 3",
        UploadLimits{3, defaults.maxPathBytes, defaults.maxTotalBytes});
    row("path_too_long", start().file("src/" + std::string(40, 'p'), "x").finish(), "longer than the 32",
        UploadLimits{defaults.maxEntries, 32, defaults.maxTotalBytes});
    // A name longer than NAME_MAX (a pax path lifts ustar's 100 bytes) is the client's fault, said as such.
    row("pax_name_longer_than_a_file_system_holds",
        start().pax({{"path", "src/" + std::string(300, 'n')}}).file("harmless", "x").finish(),
        "may have at most 255 bytes");
    row("total_size_too_large", start().file("b", std::string(100, 'b')).finish(), "past the 100 bytes",
        UploadLimits{defaults.maxEntries, defaults.maxPathBytes, 100});
}

void UploadExtractorTest::refusesHostileArchives() {
    QFETCH(QByteArray, body);
    QFETCH(QString, reason);
    QFETCH(quint64, maxEntries);
    QFETCH(quint64, maxPathBytes);
    QFETCH(quint64, maxTotalBytes);
    const QString outside = QString::fromStdString(m_outside.string());
    const QStringList before = snapshot(outside);
    const QStringList parentBefore = QDir(m_dir->path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);

    auto counts = extract(body.toStdString(), UploadLimits{maxEntries, maxPathBytes, maxTotalBytes});
    QVERIFY(!counts.ok());
    const QString message = QString::fromStdString(counts.error().message);
    QVERIFY2(message.contains(reason), qPrintable(message));
    QVERIFY2(!fs::exists(fs::symlink_status(m_target)), "the refused upload's directory remains");
    QCOMPARE(snapshot(outside), before);
    QStringList parentAfter = QDir(m_dir->path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
    parentAfter.removeAll("body.tar");
    QCOMPARE(parentAfter, parentBefore);
    QVERIFY(!fs::exists(fs::temp_directory_path() / "warren-upload-test-not-there"));
}

void UploadExtractorTest::refusesAnExistingTarget() {
    fs::create_directory(m_target);
    std::ofstream(m_target / "theirs") << "keep";
    auto counts = extract(TarBuilder().file("theirs", "overwritten").finish());
    QVERIFY(!counts.ok());
    QVERIFY2(counts.error().message.find("cannot create the upload's directory") != std::string::npos,
             counts.error().message.c_str());
    QCOMPARE(readFile(m_target / "theirs"), std::string("keep"));
}

// A file-size rlimit makes write() fail with EFBIG (SIGXFSZ ignored) as a full disk makes it fail with
// ENOSPC: the same path through the extractor, without needing a small file system mounted.
void UploadExtractorTest::removesEverythingWhenTheDiskIsFull() {
    const std::string body =
        TarBuilder().file("small", "fits").directory("d/").file("d/large", pattern(512 * 1024)).finish();
    const fs::path file = fs::path(m_dir->path().toStdString()) / "body.tar";
    std::ofstream(file, std::ios::binary) << body;
    const warren::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    FdByteSource source(fd.get());

    rlimit saved{};
    QVERIFY(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = saved;
    small.rlim_cur = 64 * 1024;
    QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    auto counts = UploadExtractor(UploadLimits{}).extract(source, m_target);
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previousHandler);

    QVERIFY(!counts.ok());
    const std::string& message = counts.error().message;
    QVERIFY2(message.find("cannot write the file \"d/large\"") != std::string::npos &&
                 message.find(std::strerror(EFBIG)) != std::string::npos,
             message.c_str());
    QVERIFY(!fs::exists(m_target));
}

void UploadExtractorTest::readsTheRealTarsFormats_data() {
    QTest::addColumn<QString>("format");
    QTest::newRow("gnu") << "gnu";
    QTest::newRow("pax") << "pax";
    QTest::newRow("ustar") << "ustar";
}

void UploadExtractorTest::readsTheRealTarsFormats() {
    QFETCH(QString, format);
    const QString tar = QStandardPaths::findExecutable("tar");
    if (tar.isEmpty())
        QSKIP("tar is not installed");
    const fs::path source = fs::path(m_dir->path().toStdString()) / "source";
    fs::create_directories(source / "src" / "with space");
    std::ofstream(source / "src" / "main.c") << "int main;\n";
    std::ofstream(source / "src" / "with space" / "notes.txt") << "n\n";
    std::ofstream(source / "data.bin", std::ios::binary) << pattern(70000);
    fs::create_symlink("src/main.c", source / "main-link");
    if (format != "ustar") { // ustar has no room for a 120-byte single component
        fs::create_directories(source / std::string(120, 'd'));
        std::ofstream(source / std::string(120, 'd') / "deep.txt") << "deep\n";
    }
    const QString archive = m_dir->filePath("real.tar");
    QProcess process;
    process.start(tar,
                  {"--format=" + format, "-C", QString::fromStdString(source.string()), "-cf", archive, "."});
    QVERIFY(process.waitForFinished());
    QCOMPARE(process.exitCode(), 0);
    QFile file(archive);
    QVERIFY(file.open(QIODevice::ReadOnly));
    auto counts = extract(file.readAll().toStdString());
    QVERIFY2(counts.ok(), counts.ok() ? "" : counts.error().message.c_str());
    QCOMPARE(snapshot(QString::fromStdString(m_target.string())),
             snapshot(QString::fromStdString(source.string())));
}

QTEST_GUILESS_MAIN(UploadExtractorTest)
#include "tst_upload_extractor.moc"
