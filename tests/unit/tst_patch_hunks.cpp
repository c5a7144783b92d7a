// applyHunks: an update's hunks against a file's text: exact matches, the whitespace- and
// punctuation-tolerant fallbacks (and which one matched), anchors, end of file, insertions, line endings
// kept, and every hunk that does not match refused with what it looked for.

#include "agent_core/tools/PatchHunks.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;

namespace {

// The hunks of a one-file update patch, written the way a model writes them.
std::vector<PatchHunk> hunksOf(const std::string& body) {
    auto patch = parsePatch("*** Begin Patch\n*** Update File: f\n" + body + "*** End Patch\n");
    if (!patch)
        qFatal("bad test patch: %s", patch.error().message.c_str());
    return patch->ops.front().hunks;
}

} // namespace

Q_DECLARE_METATYPE(std::vector<warren::agent::HunkMatch>)

class TestPatchHunks : public QObject {
    Q_OBJECT

private slots:
    void appliesHunks_data() {
        QTest::addColumn<QString>("original");
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<std::vector<HunkMatch>>("matches");
        using M = HunkMatch;

        QTest::newRow("replace a line") << "a\nb\nc\n" << "@@\n a\n-b\n+B\n c\n" << "a\nB\nc\n"
                                        << std::vector<M>{M::Exact};
        QTest::newRow("two hunks in order") << "x\n1\nx\n2\n" << "@@\n-x\n+y\n@@\n-x\n+z\n" << "y\n1\nz\n2\n"
                                            << std::vector<M>{M::Exact, M::Exact};
        QTest::newRow("anchor picks the second occurrence")
            << "def a():\n    return 1\ndef b():\n    return 1\n" << "@@ def b():\n-    return 1\n+    return 2\n"
            << "def a():\n    return 1\ndef b():\n    return 2\n" << std::vector<M>{M::Exact};
        QTest::newRow("anchor repeated as context")
            << "def a():\n    pass\n" << "@@ def a():\n def a():\n-    pass\n+    return 0\n"
            << "def a():\n    return 0\n" << std::vector<M>{M::Exact};
        QTest::newRow("end of file picks the last occurrence")
            << "end\nmiddle\nend\n" << "@@\n-end\n+END\n*** End of File\n" << "end\nmiddle\nEND\n"
            << std::vector<M>{M::Exact};
        QTest::newRow("insert after anchor") << "a\nb\n" << "@@ a\n+inserted\n" << "a\ninserted\nb\n"
                                             << std::vector<M>{M::Exact};
        QTest::newRow("append without anchor") << "a\n" << "@@\n+b\n" << "a\nb\n" << std::vector<M>{M::Exact};
        QTest::newRow("delete every line") << "a\nb\n" << "@@\n-a\n-b\n" << "" << std::vector<M>{M::Exact};
        QTest::newRow("into an empty file") << "" << "@@\n+first\n" << "first\n" << std::vector<M>{M::Exact};
        QTest::newRow("trailing whitespace in the file")
            << "a  \nb\t\n" << "@@\n a\n-b\n+c\n" << "a  \nc\n" << std::vector<M>{M::IgnoringTrailingBlanks};
        QTest::newRow("indentation differs")
            << "    if x:\n        y()\n" << "@@\n if x:\n-    y()\n+        z()\n" << "    if x:\n        z()\n"
            << std::vector<M>{M::IgnoringBlanks};
        QTest::newRow("typographic punctuation in the file")
            << "say(\u201Chi\u201D) \u2014 ok\n" << "@@\n-say(\"hi\") - ok\n+say(\"bye\")\n" << "say(\"bye\")\n"
            << std::vector<M>{M::IgnoringPunctuation};
        QTest::newRow("exact wins over a fuzzy earlier line")
            << "a \na\n" << "@@\n-a\n+b\n" << "a \nb\n" << std::vector<M>{M::Exact};
        QTest::newRow("CRLF file keeps CRLF") << "a\r\nb\r\n" << "@@\n a\n-b\n+c\n+d\n" << "a\r\nc\r\nd\r\n"
                                              << std::vector<M>{M::Exact};
        QTest::newRow("no final newline stays so") << "a\nb" << "@@\n-b\n+c\n" << "a\nc"
                                                   << std::vector<M>{M::Exact};
        QTest::newRow("trailing empty context stands for the final newline")
            << "a\nb\n" << "@@\n a\n-b\n+c\n \n" << "a\nc\n" << std::vector<M>{M::Exact};
    }

    void appliesHunks() {
        QFETCH(QString, original);
        QFETCH(QString, body);
        QFETCH(QString, expected);
        QFETCH(std::vector<HunkMatch>, matches);
        const auto patched = applyHunks(original.toStdString(), hunksOf(body.toStdString()), "f");
        QVERIFY2(patched.ok(), patched.ok() ? "" : patched.error().message.c_str());
        QCOMPARE(QString::fromStdString(patched->text), expected);
        QVERIFY(patched->matches == matches);
    }

    void refusesHunksThatDoNotMatch_data() {
        QTest::addColumn<QString>("original");
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("message");
        const QString tail = ". Read the file again and copy its lines exactly into the hunk's \" \" and \"-\" "
                             "lines";

        QTest::newRow("lines not in the file")
            << "a\nb\n" << "@@\n a\n-x\n+y\n"
            << "the hunk at patch line 3 does not match f: its 2 context and removed lines, starting \"a\", was "
               "not found" + tail;
        QTest::newRow("anchor not in the file")
            << "a\n" << "@@ class Missing:\n-a\n+b\n"
            << "the hunk at patch line 3 does not match f: its \"@@\" line \"class Missing:\" was not found" + tail;
        QTest::newRow("second hunk before the first")
            << "a\nb\n" << "@@\n-b\n+B\n@@\n-a\n+A\n"
            << "the hunk at patch line 6 does not match f: its 1 context and removed lines, starting \"a\", was "
               "not found after line 2" + tail;
        QTest::newRow("end of file, but the lines are earlier")
            << "a\nb\n" << "@@\n-a\n+A\n*** End of File\n"
            << "the hunk at patch line 3 does not match f: at the end of the file, its 1 context and removed "
               "lines, starting \"a\", was not found" + tail;
        QTest::newRow("more lines than the file")
            << "a\n" << "@@\n a\n a\n-a\n+b\n"
            << "the hunk at patch line 3 does not match f: its 3 context and removed lines, starting \"a\", was "
               "not found" + tail;
        QTest::newRow("a changed word is not whitespace")
            << "value = 1\n" << "@@\n-value = 2\n+value = 3\n"
            << "the hunk at patch line 3 does not match f: its 1 context and removed lines, starting \"value = "
               "2\", was not found" + tail;
    }

    void refusesHunksThatDoNotMatch() {
        QFETCH(QString, original);
        QFETCH(QString, body);
        QFETCH(QString, message);
        const auto patched = applyHunks(original.toStdString(), hunksOf(body.toStdString()), "f");
        QVERIFY(!patched.ok());
        QCOMPARE(QString::fromStdString(patched.error().message), message);
    }
};

QTEST_APPLESS_MAIN(TestPatchHunks)
#include "tst_patch_hunks.moc"
