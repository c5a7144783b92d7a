// TarReader: the formats it reads (ustar, GNU long names, pax), reading in pieces of any size, and the
// errors for what is not a tar or is a broken one.

#include "common/tar/TarReader.h"
#include "tests/server/uploads/TarBuilder.h"

#include <QTest>
#include <algorithm>

using namespace warren::tar;
using warren::tar::test::TarBuilder;
using warren::tar::test::TarHeader;

namespace {

// Hands out at most `piece` bytes per read, so every field and block boundary gets split somewhere.
class PieceSource final : public ByteSource {
public:
    PieceSource(std::string bytes, std::size_t piece) : m_bytes(std::move(bytes)), m_piece(piece) {}
    warren::Result<std::size_t> read(char* buffer, std::size_t capacity) override {
        const std::size_t n = std::min({capacity, m_piece, m_bytes.size() - m_at});
        std::memcpy(buffer, m_bytes.data() + m_at, n);
        m_at += n;
        return n;
    }

private:
    std::string m_bytes;
    std::size_t m_piece;
    std::size_t m_at = 0;
};

struct Read {
    TarEntry entry;
    std::string data;
};

warren::Result<std::vector<Read>> readAll(const std::string& bytes, std::size_t piece = 1 << 20,
                                          std::size_t dataBuffer = 4096) {
    PieceSource source(bytes, piece);
    TarReader reader(source);
    std::vector<Read> out;
    for (;;) {
        auto entry = reader.next();
        if (!entry)
            return entry.error();
        if (!*entry)
            return out;
        Read read{**entry, {}};
        std::string buffer(dataBuffer, '\0');
        for (;;) {
            auto n = reader.readData(buffer.data(), buffer.size());
            if (!n)
                return n.error();
            if (*n == 0)
                break;
            read.data.append(buffer.data(), *n);
        }
        out.push_back(std::move(read));
    }
}

} // namespace

class TarReaderTest : public QObject {
    Q_OBJECT
private slots:
    void readsEntries_data();
    void readsEntries();
    void readsInPiecesOfAnySize();
    void skipsUnreadData();
    void readsAnEmptyArchive();
    void refuses_data();
    void refuses();
};

void TarReaderTest::readsEntries_data() {
    QTest::addColumn<QByteArray>("tar");
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("type");
    QTest::addColumn<QString>("link");
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<int>("mode");
    const auto row = [](const char* name, const std::string& tar, const std::string& path, TarEntryType type,
                        const std::string& link, const std::string& data, int mode) {
        QTest::newRow(name) << QByteArray::fromStdString(tar) << QString::fromStdString(path)
                            << static_cast<int>(type) << QString::fromStdString(link)
                            << QByteArray::fromStdString(data) << mode;
    };
    row("ustar_file", TarBuilder().file("src/main.c", "int main;\n", 0755).finish(), "src/main.c",
        TarEntryType::Regular, "", "int main;\n", 0755);
    row("ustar_prefix_joined",
        TarBuilder().entry(TarHeader::named("leaf.txt").withPrefix("deep/dir"), "x").finish(),
        "deep/dir/leaf.txt", TarEntryType::Regular, "", "x", 0644);
    row("gnu_magic_file", TarBuilder().entry(TarHeader::named("g.txt").gnu(), "gnu").finish(), "g.txt",
        TarEntryType::Regular, "", "gnu", 0644);
    row("empty_file", TarBuilder().file("empty", "").finish(), "empty", TarEntryType::Regular, "", "", 0644);
    row("data_of_whole_blocks", TarBuilder().file("k", std::string(1024, 'k')).finish(), "k",
        TarEntryType::Regular, "", std::string(1024, 'k'), 0644);
    row("directory", TarBuilder().directory("d/").finish(), "d/", TarEntryType::Directory, "", "", 0755);
    row("old_style_directory", TarBuilder().file("old/", "").finish(), "old/", TarEntryType::Directory, "",
        "", 0644);
    row("symlink", TarBuilder().symlink("l", "target").finish(), "l", TarEntryType::Symlink, "target", "",
        0777);
    row("hardlink", TarBuilder().entry(TarHeader::named("h").typed('1').linkingTo("f")).finish(), "h",
        TarEntryType::Hardlink, "f", "", 0644);
    row("fifo", TarBuilder().entry(TarHeader::named("p").typed('6')).finish(), "p", TarEntryType::Fifo, "",
        "", 0644);
    row("setuid_mode_kept_for_the_policy", TarBuilder().file("s", "", 04755).finish(), "s",
        TarEntryType::Regular, "", "", 04755);
    const std::string longName = std::string(150, 'n') + "/" + std::string(120, 'm');
    row("gnu_long_name", TarBuilder().gnuLong('L', longName).file("truncated", "long").finish(), longName,
        TarEntryType::Regular, "", "long", 0644);
    row("gnu_long_link", TarBuilder().gnuLong('K', longName).symlink("l", "short").finish(), "l",
        TarEntryType::Symlink, longName, "", 0777);
    row("pax_path_and_linkpath",
        TarBuilder()
            .pax({{"path", "p\xc3\xa4x/l"}, {"linkpath", "t\xc3\xa4rget"}, {"mtime", "1.5"}})
            .symlink("ignored", "ignored")
            .finish(),
        "p\xc3\xa4x/l", TarEntryType::Symlink, "t\xc3\xa4rget", "", 0777);
    row("pax_size_overrides_header",
        TarBuilder().pax({{"size", "5"}}).entry(TarHeader::named("big").declaring(0), "hello").finish(),
        "big", TarEntryType::Regular, "", "hello", 0644);
    row("pax_global_header_ignored",
        TarBuilder()
            .entry(TarHeader::named("g").typed('g'), TarBuilder::paxRecord("path", "evil"))
            .file("f", "1")
            .finish(),
        "f", TarEntryType::Regular, "", "1", 0644);
}

void TarReaderTest::readsEntries() {
    QFETCH(QByteArray, tar);
    QFETCH(QString, path);
    QFETCH(int, type);
    QFETCH(QString, link);
    QFETCH(QByteArray, data);
    QFETCH(int, mode);
    auto entries = readAll(tar.toStdString());
    QVERIFY2(entries.ok(), entries.ok() ? "" : entries.error().message.c_str());
    QCOMPARE(entries->size(), std::size_t{1});
    const Read& read = entries->front();
    QCOMPARE(QString::fromStdString(read.entry.path), path);
    QCOMPARE(static_cast<int>(read.entry.type), type);
    QCOMPARE(QString::fromStdString(read.entry.linkTarget), link);
    QCOMPARE(QByteArray::fromStdString(read.data), data);
    QCOMPARE(static_cast<int>(read.entry.mode), mode);
    QCOMPARE(read.entry.size, static_cast<std::uint64_t>(data.size()));
}

void TarReaderTest::readsInPiecesOfAnySize() {
    std::string big;
    for (int i = 0; i < 70000; ++i)
        big += static_cast<char>(i * 7);
    const std::string tar = TarBuilder()
                                .directory("d")
                                .pax({{"path", "d/" + std::string(200, 'p')}})
                                .file("x", big)
                                .gnuLong('L', "d/" + std::string(300, 'g'))
                                .file("y", "tail")
                                .finish();
    for (const std::size_t piece : {1ul, 7ul, 511ul, 512ul, 513ul, 65536ul}) {
        auto entries = readAll(tar, piece, piece % 2 ? 100 : 8192);
        QVERIFY2(entries.ok(), entries.ok() ? "" : entries.error().message.c_str());
        QCOMPARE(entries->size(), std::size_t{3});
        QCOMPARE((*entries)[1].entry.path, "d/" + std::string(200, 'p'));
        QCOMPARE((*entries)[1].data, big);
        QCOMPARE((*entries)[2].entry.path, "d/" + std::string(300, 'g'));
        QCOMPARE((*entries)[2].data, std::string("tail"));
    }
}

void TarReaderTest::skipsUnreadData() {
    const std::string tar = TarBuilder().file("a", std::string(3000, 'a')).file("b", "b").finish();
    StringByteSource source(tar);
    TarReader reader(source);
    auto first = reader.next();
    QVERIFY(first.ok() && first->has_value());
    auto second = reader.next();
    QVERIFY(second.ok() && second->has_value());
    QCOMPARE((*second)->path, std::string("b"));
    QCOMPARE((*second)->offset, std::uint64_t{512 + 3072});
    auto end = reader.next();
    QVERIFY(end.ok() && !end->has_value());
}

void TarReaderTest::readsAnEmptyArchive() {
    auto entries = readAll(std::string(10240, '\0'), 700);
    QVERIFY2(entries.ok(), entries.ok() ? "" : entries.error().message.c_str());
    QVERIFY(entries->empty());
}

void TarReaderTest::refuses_data() {
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QStringList>("expected"); // substrings of the error
    const auto row = [](const char* name, const std::string& body, const QStringList& expected) {
        QTest::newRow(name) << QByteArray::fromStdString(body) << expected;
    };
    const QStringList notTar = {"a tar archive is expected"};
    row("empty_body", "", notTar + QStringList{"empty body"});
    row("zip", std::string("PK\x03\x04\x14\0\0\0", 8) + std::string(600, 'z'), notTar + QStringList{"zip"});
    row("gzip", std::string("\x1f\x8b\x08\0", 4) + std::string(600, 'g'), notTar + QStringList{"gzip"});
    row("json", "  {\"workspace\": \"not a tar\"}", notTar + QStringList{"JSON"});
    std::string random;
    for (unsigned i = 0; i < 2048; ++i)
        random += static_cast<char>((i * 2654435761u) >> 13);
    row("random_bytes", random, notTar);
    row("shorter_than_a_block", "ustar", notTar);
    row("v7_tar_without_magic", TarBuilder().entry(TarHeader::named("old").withoutMagic()).finish(), notTar);

    const std::string good = TarBuilder().file("first", "1").unfinished(); // 1024 bytes
    row("bad_checksum_first", TarBuilder().entry(TarHeader::named("f").corruptChecksum()).finish(),
        {"checksum", "offset 0", "\"f\""});
    row("bad_checksum_later",
        TarBuilder().raw(good).entry(TarHeader::named("second").corruptChecksum()).finish(),
        {"checksum", "offset 1024", "\"second\""});
    row("no_magic_later", TarBuilder().raw(good).entry(TarHeader::named("second").withoutMagic()).finish(),
        {"no ustar magic", "offset 1024"});
    row("huge_declared_size_short_data",
        TarBuilder().entry(TarHeader::named("huge").declaring(1ull << 40), "only this").unfinished(),
        // 2^40 does not fit the octal field: the builder writes it in base-256, which the reader decodes;
        // the 512 bytes sent (data and padding) are read as data, the rest is missing
        {"truncated", "\"huge\"", "1099511627264 more bytes of data were declared"});
    row("truncated_inside_header", good + std::string(100, 'x'),
        {"truncated inside a header", "offset 1024"});
    row("no_end_of_archive_block", good, {"without its end-of-archive block", "\"first\""});
    row("cut_in_padding", good.substr(0, 600), {"truncated", "\"first\""});
    row("oversized_gnu_long_name", TarBuilder().gnuLong('L', std::string(100000, 'a')).finish(),
        {"GNU long name", "more than the"});
    row("oversized_pax_header", TarBuilder().pax({{"comment", std::string(70000, 'c')}}).finish(),
        {"pax extended header", "more than the"});
    row("pax_record_bad_length",
        TarBuilder().entry(TarHeader::named("x").typed('x'), "99 path=a\n").file("f", "").finish(),
        {"pax extended header record is malformed"});
    row("pax_record_without_equals",
        TarBuilder().entry(TarHeader::named("x").typed('x'), "9 pathab\n").finish(), {"no '='"});
    row("pax_size_not_a_number", TarBuilder().pax({{"size", "12x"}}).file("f", "").finish(),
        {"not a number"});
    row("pax_sparse_file", TarBuilder().pax({{"GNU.sparse.map", "0,1"}}).file("f", "").finish(), {"sparse"});
    row("extended_header_then_end", TarBuilder().pax({{"path", "p"}}).finish(), {"after an extended header"});
}

void TarReaderTest::refuses() {
    QFETCH(QByteArray, body);
    QFETCH(QStringList, expected);
    auto entries = readAll(body.toStdString(), 300);
    QVERIFY(!entries.ok());
    const QString message = QString::fromStdString(entries.error().message);
    for (const QString& part : expected)
        QVERIFY2(message.contains(part), qPrintable(message + " lacks " + part));
}

QTEST_APPLESS_MAIN(TarReaderTest)
#include "tst_tar_reader.moc"
