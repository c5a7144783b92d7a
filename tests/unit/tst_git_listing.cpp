// GitListing: git's -z listings read as records, and damaged output refused, as rows.

#include "app/snapshots/GitListing.h"

#include <QTest>

using namespace warren::snapshots;

namespace {
const std::string kA(40, 'a'), kB(40, 'b'), kZero(40, '0');

std::string nul(std::initializer_list<std::string> records) {
    std::string out;
    for (const auto& record : records)
        out += record + '\0';
    return out;
}
} // namespace

class GitListingTest : public QObject {
    Q_OBJECT
private slots:
    void splitNul_data() {
        QTest::addColumn<QByteArray>("out");
        QTest::addColumn<QStringList>("records");
        QTest::newRow("empty") << QByteArray() << QStringList{};
        QTest::newRow("two") << QByteArray("a\0b\0", 4) << QStringList{"a", "b"};
        QTest::newRow("last without its nul") << QByteArray("a\0b", 3) << QStringList{"a", "b"};
        QTest::newRow("names with spaces and newlines")
            << QByteArray("a b\0c\nd\0", 8) << QStringList{"a b", "c\nd"};
    }
    void splitNul() {
        QFETCH(QByteArray, out);
        QFETCH(QStringList, records);
        QStringList got;
        for (const auto& record : warren::snapshots::splitNul(out.toStdString()))
            got << QString::fromStdString(record);
        QCOMPARE(got, records);
    }

    void indexEntries() {
        auto entries = parseIndexEntries(
            nul({"100644 " + kA + " 0\tsrc/a b.c", "120000 " + kB + " 0\tlink", "160000 " + kA + " 0\tsub"}));
        QVERIFY(entries.ok());
        QCOMPARE(entries->size(), 3u);
        QCOMPARE((*entries)[0], (IndexEntry{kModeFile, kA, 0, "src/a b.c"}));
        QCOMPARE((*entries)[1].mode, kModeSymlink);
        QCOMPARE((*entries)[2].mode, kModeGitlink);
    }

    void refusedIndexEntries_data() {
        QTest::addColumn<QByteArray>("out");
        QTest::newRow("no tab") << QByteArray::fromStdString("100644 " + kA + " 0 a");
        QTest::newRow("no path") << QByteArray::fromStdString("100644 " + kA + " 0\t");
        QTest::newRow("mode not octal") << QByteArray::fromStdString("100648 " + kA + " 0\ta");
        QTest::newRow("short object") << QByteArray::fromStdString("100644 abc 0\ta");
        QTest::newRow("stage 4") << QByteArray::fromStdString("100644 " + kA + " 4\ta");
    }
    void refusedIndexEntries() {
        QFETCH(QByteArray, out);
        QVERIFY(!parseIndexEntries(out.toStdString()).ok());
    }

    void rawDiff_data() {
        QTest::addColumn<QByteArray>("out");
        QTest::addColumn<QString>("status");
        QTest::addColumn<uint>("oldMode");
        QTest::addColumn<uint>("newMode");
        QTest::addColumn<QString>("path");
        const auto row = [](std::string head, std::string path) {
            return QByteArray::fromStdString(nul({head, path}));
        };
        QTest::newRow("added") << row(":000000 100644 " + kZero + " " + kA + " A", "new file") << "A" << 0u
                               << kModeFile << "new file";
        QTest::newRow("deleted") << row(":100755 000000 " + kA + " " + kZero + " D", "run.sh") << "D"
                                 << kModeExecutable << 0u << "run.sh";
        QTest::newRow("mode only") << row(":100644 100755 " + kA + " " + kA + " M", "x") << "M" << kModeFile
                                   << kModeExecutable << "x";
        QTest::newRow("file became a link")
            << row(":100644 120000 " + kA + " " + kB + " T", "l") << "T" << kModeFile << kModeSymlink << "l";
        QTest::newRow("tab and newline in the name")
            << row(":100644 100644 " + kA + " " + kB + " M", "a\tb\nc") << "M" << kModeFile << kModeFile
            << "a\tb\nc";
    }
    void rawDiff() {
        QFETCH(QByteArray, out);
        QFETCH(QString, status);
        QFETCH(uint, oldMode);
        QFETCH(uint, newMode);
        QFETCH(QString, path);
        auto changes = parseRawDiff(out.toStdString());
        QVERIFY2(changes.ok(), changes.ok() ? "" : changes.error().message.c_str());
        QCOMPARE(changes->size(), 1u);
        const auto& change = changes->front();
        QCOMPARE(QString(QChar(change.status)), status);
        QCOMPARE(change.oldMode, oldMode);
        QCOMPARE(change.newMode, newMode);
        QCOMPARE(QString::fromStdString(change.path), path);
    }

    void refusedRawDiff_data() {
        QTest::addColumn<QByteArray>("out");
        QTest::newRow("no path") << QByteArray::fromStdString(
            nul({":100644 100644 " + kA + " " + kB + " M"}));
        QTest::newRow("no colon") << QByteArray::fromStdString(
            nul({"100644 100644 " + kA + " " + kB + " M", "a"}));
        QTest::newRow("rename status")
            << QByteArray::fromStdString(nul({":100644 100644 " + kA + " " + kB + " R100", "a"}));
        QTest::newRow("abbreviated") << QByteArray::fromStdString(
            nul({":100644 100644 aaaaaaa bbbbbbb M", "a"}));
    }
    void refusedRawDiff() {
        QFETCH(QByteArray, out);
        QVERIFY(!parseRawDiff(out.toStdString()).ok());
    }
};

QTEST_APPLESS_MAIN(GitListingTest)
#include "tst_git_listing.moc"
