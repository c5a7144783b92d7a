// parsePatch: the apply_patch format read into operations (every kind, moves, hunks with anchors and end of
// file, the leniencies Codex's reader has), and each malformed patch refused with its line and what was
// expected.

#include "agent_core/tools/PatchFormat.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;

namespace {

PatchHunk hunk(std::string anchor, std::vector<std::string> oldLines, std::vector<std::string> newLines,
               std::string kinds, std::size_t line, bool endOfFile = false) {
    return {std::move(anchor), std::move(oldLines), std::move(newLines), std::move(kinds), endOfFile, line};
}

PatchOp add(std::string path, std::string content, std::size_t line) {
    PatchOp op;
    op.kind = PatchOpKind::Add;
    op.path = std::move(path);
    op.content = std::move(content);
    op.line = line;
    return op;
}

PatchOp remove(std::string path, std::size_t line) {
    PatchOp op;
    op.kind = PatchOpKind::Delete;
    op.path = std::move(path);
    op.line = line;
    return op;
}

PatchOp update(std::string path, std::vector<PatchHunk> hunks, std::size_t line, std::string moveTo = {}) {
    PatchOp op;
    op.kind = PatchOpKind::Update;
    op.path = std::move(path);
    op.hunks = std::move(hunks);
    op.moveTo = std::move(moveTo);
    op.line = line;
    return op;
}

} // namespace

Q_DECLARE_METATYPE(warren::agent::Patch)

class TestPatchFormat : public QObject {
    Q_OBJECT

private slots:
    void parsesValidPatches_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Patch>("expected");

        QTest::newRow("add file") << "*** Begin Patch\n*** Add File: hello.txt\n+Hello\n+\n+world\n*** End Patch\n"
                                  << Patch{{add("hello.txt", "Hello\n\nworld\n", 2)}};
        QTest::newRow("add empty file") << "*** Begin Patch\n*** Add File: empty.txt\n*** End Patch"
                                        << Patch{{add("empty.txt", "", 2)}};
        QTest::newRow("delete file") << "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n"
                                     << Patch{{remove("old.txt", 2)}};
        QTest::newRow("update with anchor")
            << "*** Begin Patch\n*** Update File: src/app.py\n@@ def greet():\n-print(\"Hi\")\n+print(\"Hello\")\n"
               "*** End Patch\n"
            << Patch{{update("src/app.py", {hunk("def greet():", {"print(\"Hi\")"}, {"print(\"Hello\")"}, "-+", 3)}, 2)}};
        QTest::newRow("update and move")
            << "*** Begin Patch\n*** Update File: a.py\n*** Move to: b/a.py\n@@\n x\n-y\n+z\n*** End Patch\n"
            << Patch{{update("a.py", {hunk("", {"x", "y"}, {"x", "z"}, " -+", 4)}, 2, "b/a.py")}};
        QTest::newRow("two hunks, end of file")
            << "*** Begin Patch\n*** Update File: f\n@@ one\n-a\n+b\n@@\n c\n+d\n*** End of File\n*** End Patch\n"
            << Patch{{update("f", {hunk("one", {"a"}, {"b"}, "-+", 3), hunk("", {"c"}, {"c", "d"}, " +", 6, true)}, 2)}};
        QTest::newRow("first hunk without @@")
            << "*** Begin Patch\n*** Update File: f\n-a\n+b\n*** End Patch\n"
            << Patch{{update("f", {hunk("", {"a"}, {"b"}, "-+", 3)}, 2)}};
        QTest::newRow("empty line is empty context")
            << "*** Begin Patch\n*** Update File: f\n@@\n a\n\n-b\n+c\n*** End Patch\n"
            << Patch{{update("f", {hunk("", {"a", "", "b"}, {"a", "", "c"}, "  -+", 3)}, 2)}};
        QTest::newRow("every kind in one patch")
            << "*** Begin Patch\n*** Add File: n\n+new\n*** Update File: u\n@@\n-1\n+2\n*** Delete File: d\n"
               "*** End Patch\n"
            << Patch{{add("n", "new\n", 2), update("u", {hunk("", {"1"}, {"2"}, "-+", 5)}, 4), remove("d", 8)}};
        QTest::newRow("here-document wrapper")
            << "<<'EOF'\n*** Begin Patch\n*** Delete File: d\n*** End Patch\nEOF\n"
            << Patch{{remove("d", 3)}};
        QTest::newRow("CRLF and blanks around markers")
            << "\n  *** Begin Patch  \r\n*** Update File:  f \r\n@@\r\n-a\r\n+b\r\n *** End Patch\r\n\n"
            << Patch{{update("f", {hunk("", {"a"}, {"b"}, "-+", 4)}, 3)}};
        QTest::newRow("context line that looks like a hunk line")
            << "*** Begin Patch\n*** Update File: f\n@@\n -x\n +y\n-@@ z\n+w\n*** End Patch\n"
            << Patch{{update("f", {hunk("", {"-x", "+y", "@@ z"}, {"-x", "+y", "w"}, "  -+", 3)}, 2)}};
    }

    void parsesValidPatches() {
        QFETCH(QString, text);
        QFETCH(Patch, expected);
        const auto patch = parsePatch(text.toStdString());
        QVERIFY2(patch.ok(), patch.ok() ? "" : patch.error().message.c_str());
        QCOMPARE(patch->ops.size(), expected.ops.size());
        for (std::size_t i = 0; i < expected.ops.size(); ++i) {
            const PatchOp& got = patch->ops[i];
            const PatchOp& want = expected.ops[i];
            QCOMPARE(int(got.kind), int(want.kind));
            QCOMPARE(got.path, want.path);
            QCOMPARE(got.moveTo, want.moveTo);
            QCOMPARE(got.content, want.content);
            QCOMPARE(got.line, want.line);
            QCOMPARE(got.hunks.size(), want.hunks.size());
            for (std::size_t h = 0; h < want.hunks.size(); ++h) {
                QCOMPARE(got.hunks[h].anchor, want.hunks[h].anchor);
                QCOMPARE(got.hunks[h].oldLines, want.hunks[h].oldLines);
                QCOMPARE(got.hunks[h].newLines, want.hunks[h].newLines);
                QCOMPARE(got.hunks[h].kinds, want.hunks[h].kinds);
                QCOMPARE(got.hunks[h].endOfFile, want.hunks[h].endOfFile);
                QCOMPARE(got.hunks[h].line, want.hunks[h].line);
            }
        }
        QVERIFY(*patch == expected);
    }

    void refusesMalformedPatches_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");

        QTest::newRow("empty") << "  \n\n"
                               << "the patch is empty; it starts with \"*** Begin Patch\" and ends with \"*** End "
                                  "Patch\"";
        QTest::newRow("no begin") << "*** Update File: f\n-a\n+b\n*** End Patch"
                                  << "patch line 1: the patch must start with \"*** Begin Patch\", got \"*** "
                                     "Update File: f\"";
        QTest::newRow("no end") << "*** Begin Patch\n*** Update File: f\n-a\n+b\n"
                                << "patch line 4: the patch must end with \"*** End Patch\", got \"+b\"";
        QTest::newRow("nothing inside") << "*** Begin Patch\n*** End Patch"
                                        << "patch line 2: the patch changes no file; add at least one file "
                                           "operation before \"*** End Patch\"";
        QTest::newRow("unknown operation")
            << "*** Begin Patch\n*** Rename File: f\n*** End Patch"
            << "patch line 2: expected a file operation (\"*** Add File: PATH\", \"*** Delete File: PATH\" or "
               "\"*** Update File: PATH\") or \"*** End Patch\", got \"*** Rename File: f\"";
        QTest::newRow("a unified diff instead")
            << "*** Begin Patch\n--- a/f\n+++ b/f\n*** End Patch"
            << "patch line 2: expected a file operation (\"*** Add File: PATH\", \"*** Delete File: PATH\" or "
               "\"*** Update File: PATH\") or \"*** End Patch\", got \"--- a/f\"";
        QTest::newRow("no path") << "*** Begin Patch\n*** Delete File: \n*** End Patch"
                                 << "patch line 2: the file operation names no path";
        QTest::newRow("move to nowhere") << "*** Begin Patch\n*** Update File: f\n*** Move to:\n@@\n-a\n+b\n*** End Patch"
                                         << "patch line 3: \"*** Move to:\" names no path";
        QTest::newRow("added line without plus")
            << "*** Begin Patch\n*** Add File: f\n+one\ntwo\n*** End Patch"
            << "patch line 4: every line of a file added by \"*** Add File: f\" starts with \"+\" (a blank line "
               "too), got \"two\"";
        QTest::newRow("lines after delete")
            << "*** Begin Patch\n*** Delete File: f\n-gone\n*** End Patch"
            << "patch line 3: \"*** Delete File: f\" takes no lines after it; expected a file operation (\"*** "
               "Add File: PATH\", \"*** Delete File: PATH\" or \"*** Update File: PATH\") or \"*** End Patch\", "
               "got \"-gone\"";
        QTest::newRow("update without hunk")
            << "*** Begin Patch\n*** Update File: f\n*** End Patch"
            << "patch line 2: \"*** Update File: f\" has no hunk; follow it with \"@@\" and the lines to change "
               "(\" \" context, \"-\" removed, \"+\" added)";
        QTest::newRow("empty hunk") << "*** Begin Patch\n*** Update File: f\n@@ x\n@@\n-a\n+b\n*** End Patch"
                                    << "patch line 3: the hunk of \"*** Update File: f\" has no lines";
        QTest::newRow("hunk of context only")
            << "*** Begin Patch\n*** Update File: f\n@@\n a\n b\n*** End Patch"
            << "patch line 3: the hunk of \"*** Update File: f\" only has context lines; mark what to remove "
               "with \"-\" and what to add with \"+\"";
        QTest::newRow("bad hunk line")
            << "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*c\n*** End Patch"
            << "patch line 6: in \"*** Update File: f\", a hunk line starts with \" \" (context), \"-\" "
               "(removed) or \"+\" (added); got \"*c\"";
        QTest::newRow("end patch in the middle")
            << "*** Begin Patch\n*** Delete File: f\n*** End Patch\n*** Delete File: g\n*** End Patch"
            << "patch line 3: \"*** End Patch\" before the end of the patch; it must be the last line";
        QTest::newRow("same file twice")
            << "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** Delete File: f\n*** End Patch"
            << "patch line 6: f is also changed at patch line 2; put all the changes of one file under one "
               "operation";
        QTest::newRow("move onto a file the patch adds")
            << "*** Begin Patch\n*** Add File: g\n+x\n*** Update File: f\n*** Move to: g\n@@\n-a\n+b\n*** End Patch"
            << "patch line 4: g is also changed at patch line 2; put all the changes of one file under one "
               "operation";
    }

    void refusesMalformedPatches() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const auto patch = parsePatch(text.toStdString());
        QVERIFY(!patch.ok());
        QCOMPARE(int(patch.error().code), int(ErrorCode::InvalidArgument));
        QCOMPARE(QString::fromStdString(patch.error().message), message);
    }

    void quotesLongLinesShortened() {
        const std::string line(200, 'x');
        const auto patch = parsePatch("*** Begin Patch\n" + line + "\n*** End Patch");
        QVERIFY(!patch.ok());
        QVERIFY(patch.error().message.ends_with("got \"" + std::string(80, 'x') + "...\""));
    }
};

QTEST_APPLESS_MAIN(TestPatchFormat)
#include "tst_patch_format.moc"
