// UnifiedDiff: exact diffs of small changes (insertions, deletions, replacements, missing final newlines,
// created and deleted files, CRLF, hunks split and merged by their context), minimal line counts checked
// against a plain LCS on random inputs, the fallback past the work bound, the cap, binary content, and
// that git apply takes what it writes and turns the old file into the new one.

#include "agent_core/tools/UnifiedDiff.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QtTest>
#include <fstream>
#include <vector>

using namespace warren;
using namespace warren::agent;

namespace {

// A null QByteArray in a row stands for a file that does not exist on that side.
std::optional<std::string_view> side(const QByteArray& content) {
    if (content.isNull())
        return std::nullopt;
    return std::string_view(content.constData(), static_cast<std::size_t>(content.size()));
}

QByteArray bytes(const std::string& text) {
    return QByteArray(text.data(), static_cast<qsizetype>(text.size()));
}

// "1\n2\n...count\n", with the lines in `replaced` given instead.
QByteArray numbered(int count, const std::map<int, std::string>& replaced = {}) {
    std::string text;
    for (int line = 1; line <= count; ++line) {
        const auto found = replaced.find(line);
        text += (found == replaced.end() ? std::to_string(line) : found->second) + "\n";
    }
    return bytes(text);
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t newline = text.find('\n', start);
        const std::size_t next = newline == std::string::npos ? text.size() : newline + 1;
        lines.push_back(text.substr(start, next - start));
        start = next;
    }
    return lines;
}

// The longest common subsequence of lines, by the textbook table: what a minimal diff keeps.
std::size_t lcsLength(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::vector<std::size_t>> table(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j)
            table[i][j] =
                a[i - 1] == b[j - 1] ? table[i - 1][j - 1] + 1 : std::max(table[i - 1][j], table[i][j - 1]);
    return table[a.size()][b.size()];
}

void writeFile(const QString& path, const QByteArray& content) {
    std::ofstream(path.toStdString(), std::ios::binary | std::ios::trunc)
        .write(content.constData(), content.size());
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

// What a row's file is: its content, or kNoFile for a file that does not exist (an empty QByteArray and a
// null one compare equal, so null alone cannot say it).
const QByteArray kNoFile("<no file>");
QByteArray shown(const QByteArray& content) {
    return content.isNull() ? kNoFile : content;
}

// Applies `diff` with git apply to `before` (null: no file) in a fresh directory, and returns what f.txt is
// afterwards (kNoFile: none), or an error message starting with "git apply: ".
QByteArray applyWithGit(const QByteArray& before, const std::string& diff) {
    QTemporaryDir dir;
    if (!dir.isValid())
        return "git apply: no temporary directory";
    if (!before.isNull())
        writeFile(dir.filePath("f.txt"), before);
    writeFile(dir.filePath("change.patch"), bytes(diff));
    QProcess git;
    git.setWorkingDirectory(dir.path());
    git.start("git", {"apply", "--whitespace=nowarn", "change.patch"});
    if (!git.waitForFinished(30000) || git.exitStatus() != QProcess::NormalExit || git.exitCode() != 0)
        return "git apply: " + git.readAllStandardError();
    if (!QFileInfo::exists(dir.filePath("f.txt")))
        return kNoFile;
    return readFile(dir.filePath("f.txt"));
}

bool haveGit() {
    return !QStandardPaths::findExecutable("git").isEmpty();
}

} // namespace

class TestUnifiedDiff : public QObject {
    Q_OBJECT

private slots:
    void diff_data() {
        QTest::addColumn<QByteArray>("before");
        QTest::addColumn<QByteArray>("after");
        QTest::addColumn<int>("context");
        QTest::addColumn<QByteArray>("expected"); // without the two header lines, unless it is empty
        QTest::addColumn<int>("added");
        QTest::addColumn<int>("removed");

        QTest::newRow("identical") << QByteArray("a\nb\n") << QByteArray("a\nb\n") << 3 << QByteArray() << 0
                                   << 0;
        QTest::newRow("both empty") << QByteArray("") << QByteArray("") << 3 << QByteArray() << 0 << 0;
        QTest::newRow("insert at start") << QByteArray("b\nc\n") << QByteArray("a\nb\nc\n") << 3
                                         << QByteArray("@@ -1,2 +1,3 @@\n+a\n b\n c\n") << 1 << 0;
        QTest::newRow("insert in the middle")
            << numbered(8) << numbered(4) + "x\n" + numbered(8).mid(8) << 3
            << QByteArray("@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+x\n 5\n 6\n 7\n") << 1 << 0;
        QTest::newRow("insert at end") << QByteArray("a\nb\n") << QByteArray("a\nb\nc\n") << 3
                                       << QByteArray("@@ -1,2 +1,3 @@\n a\n b\n+c\n") << 1 << 0;
        QTest::newRow("delete") << QByteArray("a\nb\nc\n") << QByteArray("a\nc\n") << 3
                                << QByteArray("@@ -1,3 +1,2 @@\n a\n-b\n c\n") << 0 << 1;
        QTest::newRow("replace") << QByteArray("a\nb\nc\n") << QByteArray("a\nB\nc\n") << 3
                                 << QByteArray("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n") << 1 << 1;
        QTest::newRow("a deletion and an insertion apart")
            << QByteArray("a\nb\nc\nd\ne\n") << QByteArray("a\nc\nd\nX\ne\n") << 3
            << QByteArray("@@ -1,5 +1,5 @@\n a\n-b\n c\n d\n+X\n e\n") << 1 << 1;
        QTest::newRow("moved line") << QByteArray("a\nb\nc\n") << QByteArray("b\nc\na\n") << 3
                                    << QByteArray("@@ -1,3 +1,3 @@\n-a\n b\n c\n+a\n") << 1 << 1;
        QTest::newRow("no newline at end before")
            << QByteArray("a\nb") << QByteArray("a\nb\n") << 3
            << QByteArray("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n") << 1 << 1;
        QTest::newRow("no newline at end after")
            << QByteArray("a\nb\n") << QByteArray("a\nb") << 3
            << QByteArray("@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n") << 1 << 1;
        QTest::newRow("no newline at end on both sides, kept as context")
            << QByteArray("a\nb\nc") << QByteArray("A\nb\nc") << 3
            << QByteArray("@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n\\ No newline at end of file\n") << 1 << 1;
        QTest::newRow("created") << QByteArray() << QByteArray("a\nb\n") << 3
                                 << QByteArray("@@ -0,0 +1,2 @@\n+a\n+b\n") << 2 << 0;
        QTest::newRow("created without final newline")
            << QByteArray() << QByteArray("a") << 3
            << QByteArray("@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n") << 1 << 0;
        QTest::newRow("deleted") << QByteArray("a\n") << QByteArray() << 3
                                 << QByteArray("@@ -1 +0,0 @@\n-a\n") << 0 << 1;
        QTest::newRow("created empty") << QByteArray() << QByteArray("") << 3 << QByteArray() << 0 << 0;
        QTest::newRow("deleted empty") << QByteArray("") << QByteArray() << 3 << QByteArray() << 0 << 0;
        QTest::newRow("empty file filled")
            << QByteArray("") << QByteArray("a\n") << 3 << QByteArray("@@ -0,0 +1 @@\n+a\n") << 1 << 0;
        QTest::newRow("file emptied") << QByteArray("a\nb\n") << QByteArray("") << 3
                                      << QByteArray("@@ -1,2 +0,0 @@\n-a\n-b\n") << 0 << 2;
        QTest::newRow("CRLF kept") << QByteArray("a\r\nb\r\n") << QByteArray("a\r\nB\r\n") << 3
                                   << QByteArray("@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n") << 1 << 1;
        QTest::newRow("CRLF to LF is a change") << QByteArray("a\r\n") << QByteArray("a\n") << 3
                                                << QByteArray("@@ -1 +1 @@\n-a\r\n+a\n") << 1 << 1;
        QTest::newRow("far apart changes give two hunks")
            << numbered(20) << numbered(20, {{2, "two"}, {18, "eighteen"}}) << 3
            << QByteArray("@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
                          "@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n")
            << 2 << 2;
        QTest::newRow("close changes share a hunk")
            << numbered(10) << numbered(10, {{2, "two"}, {8, "eight"}}) << 3
            << QByteArray("@@ -1,10 +1,10 @@\n 1\n-2\n+two\n 3\n 4\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n") << 2
            << 2;
        QTest::newRow("contexts that just touch share a hunk")
            << numbered(12) << numbered(12, {{2, "two"}, {9, "nine"}}) << 3
            << QByteArray(
                   "@@ -1,12 +1,12 @@\n 1\n-2\n+two\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+nine\n 10\n 11\n 12\n")
            << 2 << 2;
        QTest::newRow("one line more apart splits")
            << numbered(14) << numbered(14, {{2, "two"}, {10, "ten"}}) << 3
            << QByteArray("@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -7,7 +7,7 @@\n 7\n 8\n "
                          "9\n-10\n+ten\n 11\n 12\n 13\n")
            << 2 << 2;
        QTest::newRow("context 1") << numbered(8) << numbered(8, {{4, "four"}}) << 1
                                   << QByteArray("@@ -3,3 +3,3 @@\n 3\n-4\n+four\n 5\n") << 1 << 1;
        QTest::newRow("context 0") << numbered(8) << numbered(8, {{4, "four"}}) << 0
                                   << QByteArray("@@ -4 +4 @@\n-4\n+four\n") << 1 << 1;
        QTest::newRow("context 0 insertion") << QByteArray("a\nb\n") << QByteArray("a\nx\nb\n") << 0
                                             << QByteArray("@@ -1,0 +2 @@\n+x\n") << 1 << 0;
    }
    void diff() {
        QFETCH(QByteArray, before);
        QFETCH(QByteArray, after);
        QFETCH(int, context);
        QFETCH(QByteArray, expected);
        QFETCH(int, added);
        QFETCH(int, removed);

        const LineDiff diff =
            diffLines(side(before), side(after), "f.txt", static_cast<std::size_t>(context));
        QByteArray headers;
        if (!expected.isEmpty())
            headers = QByteArray(before.isNull() ? "--- /dev/null\n" : "--- a/f.txt\n") +
                      (after.isNull() ? "+++ /dev/null\n" : "+++ b/f.txt\n");
        QCOMPARE(bytes(diff.text), headers + expected);
        QCOMPARE(diff.added, static_cast<std::size_t>(added));
        QCOMPARE(diff.removed, static_cast<std::size_t>(removed));
        QCOMPARE(unifiedDiff(side(before), side(after), "f.txt", static_cast<std::size_t>(context)),
                 diff.text);

        if (diff.text.empty() || context == 0) // git apply wants context, or --unidiff-zero
            return;
        if (!haveGit())
            QSKIP("git is not installed: the diff is not applied");
        QCOMPARE(applyWithGit(before, diff.text), shown(after));
    }

    // Random small files over a small alphabet, so lines repeat and many edit scripts tie: the counts are
    // those of a minimal diff, and the diff turns one file into the other.
    void minimalOnRandomInput() {
        QRandomGenerator random(20240611);
        auto randomText = [&random] {
            std::string text;
            const int lines = random.bounded(0, 25);
            for (int line = 0; line < lines; ++line)
                text += std::string(1, static_cast<char>('a' + random.bounded(0, 4))) + "\n";
            return text;
        };
        for (int round = 0; round < 300; ++round) {
            const std::string before = randomText();
            const std::string after = randomText();
            const LineDiff diff = diffLines(before, after, "f.txt");
            const std::size_t common = lcsLength(splitLines(before), splitLines(after));
            const QByteArray what = bytes("before:\n" + before + "after:\n" + after);
            QVERIFY2(diff.removed == splitLines(before).size() - common, what.constData());
            QVERIFY2(diff.added == splitLines(after).size() - common, what.constData());
            if (round < 20 && !diff.text.empty() && haveGit())
                QCOMPARE(applyWithGit(bytes(before), diff.text), bytes(after));
        }
    }

    // Changes well under the bound are found exactly even in a long file.
    void manySpreadChangesAreExact() {
        std::map<int, std::string> replaced;
        for (int line = 5; line <= 3000; line += 10)
            replaced[line] = "changed " + std::to_string(line);
        const LineDiff diff =
            diffLines(numbered(3000).toStdString(), numbered(3000, replaced).toStdString(), "f.txt");
        QCOMPARE(diff.removed, replaced.size());
        QCOMPARE(diff.added, replaced.size());
        QCOMPARE(bytes(diff.text).count("@@ -"), qsizetype(replaced.size())); // 10 apart: a hunk each
    }

    // Past kMaxDiffEditCost the changed middle is replaced whole: not minimal, but a diff that applies.
    void pastTheBoundOneBlockReplacesTheMiddle() {
        std::map<int, std::string> replaced;
        for (int line = 2; line <= 3000; line += 2)
            replaced[line] = "changed " + std::to_string(line);
        static_assert(1500 * 2 > kMaxDiffEditCost);
        const QByteArray before = numbered(3000);
        const QByteArray after = numbered(3000, replaced);
        const LineDiff diff = diffLines(before.toStdString(), after.toStdString(), "f.txt");
        // Line 1 is common; from line 2 to the end everything goes and comes back.
        QCOMPARE(diff.removed, 2999u);
        QCOMPARE(diff.added, 2999u);
        QVERIFY(diff.text.starts_with("--- a/f.txt\n+++ b/f.txt\n@@ -1,3000 +1,3000 @@\n 1\n-2\n-3\n"));
        QCOMPARE(bytes(diff.text).count("@@ -"), qsizetype(1));
        if (!haveGit())
            QSKIP("git is not installed: the diff is not applied");
        QCOMPARE(applyWithGit(before, diff.text), after);
    }

    // Either bound reached gives the same fallback: from the first change to the last, all removed and all
    // added, in one hunk that still applies. Lowered limits reach it with a small file.
    void limitsGiveTheFallback_data() {
        QTest::addColumn<int>("maxEditCost");
        QTest::addColumn<int>("maxWork");
        QTest::addColumn<int>("added");
        QTest::addColumn<int>("removed");
        QTest::addColumn<int>("hunks");
        // Lines 2, 10 and 18 of 20 replaced: a cost of 6.
        QTest::newRow("within both") << 6 << 1000 << 3 << 3 << 3;
        QTest::newRow("past the edit cost") << 5 << 1000 << 17 << 17 << 1;
        QTest::newRow("past the work") << 1000 << 5 << 17 << 17 << 1;
    }
    void limitsGiveTheFallback() {
        QFETCH(int, maxEditCost);
        QFETCH(int, maxWork);
        QFETCH(int, added);
        QFETCH(int, removed);
        QFETCH(int, hunks);
        const QByteArray before = numbered(20);
        const QByteArray after = numbered(20, {{2, "two"}, {10, "ten"}, {18, "eighteen"}});
        const DiffLimits limits{static_cast<std::size_t>(maxEditCost), static_cast<std::size_t>(maxWork)};
        const LineDiff diff = diffLines(before.toStdString(), after.toStdString(), "f.txt", 3, limits);
        QCOMPARE(diff.added, static_cast<std::size_t>(added));
        QCOMPARE(diff.removed, static_cast<std::size_t>(removed));
        QCOMPARE(bytes(diff.text).count("@@ -"), qsizetype(hunks));
        if (hunks == 1)
            QVERIFY(diff.text.starts_with("--- a/f.txt\n+++ b/f.txt\n@@ -1,20 +1,20 @@\n 1\n-2\n-3\n"));
        if (!haveGit())
            QSKIP("git is not installed: the diff is not applied");
        QCOMPARE(applyWithGit(before, diff.text), after);
    }

    void cap_data() {
        QTest::addColumn<QByteArray>("diff");
        QTest::addColumn<int>("maxBytes");
        QTest::addColumn<int>("maxLines");
        QTest::addColumn<QByteArray>("kept");
        QTest::addColumn<bool>("truncated");

        QTest::newRow("under both") << QByteArray("a\nb\n") << 100 << 10 << QByteArray("a\nb\n") << false;
        QTest::newRow("empty") << QByteArray("") << 100 << 10 << QByteArray("") << false;
        QTest::newRow("exactly the lines")
            << QByteArray("a\nb\n") << 100 << 2 << QByteArray("a\nb\n") << false;
        QTest::newRow("exactly the bytes")
            << QByteArray("aaa\nbbb\n") << 8 << 10 << QByteArray("aaa\nbbb\n") << false;
        QTest::newRow("too many lines")
            << QByteArray("1\n2\n3\n") << 100 << 2 << QByteArray("1\n2\n") << true;
        QTest::newRow("too many bytes, cut after a line")
            << QByteArray("aaa\nbbb\n") << 6 << 10 << QByteArray("aaa\n") << true;
        QTest::newRow("first line too long")
            << QByteArray("aaaaaaaa\nb\n") << 4 << 10 << QByteArray("") << true;
        QTest::newRow("last line without newline fits")
            << QByteArray("a\nb") << 100 << 10 << QByteArray("a\nb") << false;
    }
    void cap() {
        QFETCH(QByteArray, diff);
        QFETCH(int, maxBytes);
        QFETCH(int, maxLines);
        QFETCH(QByteArray, kept);
        QFETCH(bool, truncated);
        const CappedDiff capped = capDiff(diff.toStdString(), static_cast<std::size_t>(maxBytes),
                                          static_cast<std::size_t>(maxLines));
        QCOMPARE(bytes(capped.text), kept);
        QCOMPARE(capped.truncated, truncated);
    }

    // A file change's diff stays within the event's caps; its counts are still the whole change's.
    void fileDiffIsCapped_data() {
        QTest::addColumn<int>("lines");
        QTest::addColumn<int>("lineBytes");
        QTest::newRow("by lines") << 5000 << 4;
        QTest::newRow("by bytes") << 1000 << 200;
    }
    void fileDiffIsCapped() {
        QFETCH(int, lines);
        QFETCH(int, lineBytes);
        std::string content;
        for (int line = 0; line < lines; ++line)
            content += std::string(static_cast<std::size_t>(lineBytes - 1), 'x') + "\n";
        const FileDiff diff = diffFileChange(std::nullopt, content, "big.txt");
        QVERIFY(diff.truncated);
        QVERIFY(!diff.binary);
        QCOMPARE(diff.added, static_cast<std::size_t>(lines));
        QCOMPARE(diff.removed, 0u);
        QVERIFY(diff.text.size() <= kMaxDiffBytes);
        QVERIFY(static_cast<std::size_t>(std::count(diff.text.begin(), diff.text.end(), '\n')) <=
                kMaxDiffLines);
        QVERIFY(diff.text.ends_with('\n'));
        QVERIFY(unifiedDiff(std::nullopt, content, "big.txt").starts_with(diff.text));
    }

    void fileDiffOfASmallChange() {
        const FileDiff diff = diffFileChange("a\nb\n", "a\nc\n", "src/x.txt");
        QCOMPARE(bytes(diff.text),
                 QByteArray("--- a/src/x.txt\n+++ b/src/x.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"));
        QCOMPARE(diff.added, 1u);
        QCOMPARE(diff.removed, 1u);
        QVERIFY(!diff.truncated);
        QVERIFY(!diff.binary);
    }

    void binary_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<bool>("binary");
        QTest::newRow("text") << QByteArray("hello\n") << false;
        QTest::newRow("empty") << QByteArray("") << false;
        QTest::newRow("UTF-8") << QByteArray("gr\xC3\xBC\xC3\x9F dich\n") << false;
        QTest::newRow("NUL byte") << QByteArray("a\0b\n", 4) << true;
        QTest::newRow("Latin-1") << QByteArray("gr\xFC\xDF\n") << true;
        QTest::newRow("overlong slash") << QByteArray("\xC0\xAF") << true;
        QTest::newRow("cut sequence at the end") << QByteArray("ok\xE2\x82") << true;
    }
    void binary() {
        QFETCH(QByteArray, content);
        QFETCH(bool, binary);
        const std::string_view text(content.constData(), static_cast<std::size_t>(content.size()));
        QCOMPARE(isBinaryContent(text), binary);

        for (const FileDiff& diff : {diffFileChange(text, "text\n", "f"), diffFileChange("text\n", text, "f"),
                                     diffFileChange(std::nullopt, text, "f")}) {
            QCOMPARE(diff.binary, binary);
            if (binary) {
                QVERIFY(diff.text.empty());
                QCOMPARE(diff.added, 0u);
                QCOMPARE(diff.removed, 0u);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestUnifiedDiff)
#include "tst_unified_diff.moc"
