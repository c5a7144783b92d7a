// ApprovalPreview: what an approval card shows of its call before it runs. A shell command whole with its
// working directory; an edit as a diff against the file as it is now (from the face's reader), or against
// the text it replaces where the face cannot read the workspace, saying so where the call would fail; a
// whole-file write as the file's diff; a patch as it is; nothing more for a network question. And the fold:
// a waiting card shown against the file, one answered in the same batch left with the call's own text.

#include "app/timeline/ApprovalPreview.h"
#include "app/timeline/TimelineFold.h"

#include <QtTest>

using namespace warren;
using namespace warren::timeline;
using nlohmann::json;
using Body = TimelineCard::Body;
using State = CurrentFile::State;

Q_DECLARE_METATYPE(std::string)
Q_DECLARE_METATYPE(json)
Q_DECLARE_METATYPE(CurrentFile)

namespace {

FileReader fileIs(CurrentFile file) {
    return [file](const std::string&) {
        return file;
    };
}

QStringList lines(const std::string& text) {
    return QString::fromStdString(text).split('\n', Qt::SkipEmptyParts);
}

} // namespace

class TestApprovalPreview : public QObject {
    Q_OBJECT

private slots:
    void preview_data() {
        QTest::addColumn<std::string>("tool");
        QTest::addColumn<json>("arguments");
        QTest::addColumn<CurrentFile>("file"); // what the reader gives; Unknown: no reader
        QTest::addColumn<QString>("where");
        QTest::addColumn<QStringList>("body"); // its lines, without headers "---"/"+++"

        const std::string longCommand =
            "for f in $(git ls-files '*.py'); do python -m black --line-length 100 "
            "\"$f\" && python -m isort \"$f\"; done && pytest -q tests/unit";
        QTest::newRow("shell: the whole command, in the workspace")
            << std::string("shell") << json{{"command", longCommand}} << CurrentFile{}
            << "runs in the workspace" << QStringList{QString::fromStdString(longCommand)};
        QTest::newRow("shell: its working directory")
            << std::string("shell") << json{{"command", "make test\nmake install"}, {"workdir", "src/lib"}}
            << CurrentFile{} << "runs in src/lib of the workspace"
            << QStringList{"make test", "make install"};
        QTest::newRow("shell: an absolute working directory as named")
            << std::string("shell") << json{{"command", "ls"}, {"workdir", "/tmp"}} << CurrentFile{}
            << "runs in /tmp" << QStringList{"ls"};
        QTest::newRow("Claude Code's Bash: the command")
            << std::string("Bash") << json{{"command", "rm -rf build"}, {"description", "clean"}}
            << CurrentFile{} << "runs in the workspace" << QStringList{"rm -rf build"};

        const CurrentFile greet{State::Text, "one\ntwo\nthree\nfour\n", {}};
        QTest::newRow("edit: against the file")
            << std::string("edit_file")
            << json{{"path", "greet.txt"}, {"old_string", "two"}, {"new_string", "2"}} << greet
            << QString::fromUtf8("changes greet.txt: +1 \u22121")
            << QStringList{"@@ -1,4 +1,4 @@", " one", "-two", "+2", " three", " four"};
        QTest::newRow("edit: the text is not in the file")
            << std::string("edit_file")
            << json{{"path", "greet.txt"}, {"old_string", "five"}, {"new_string", "5"}} << greet
            << "changes greet.txt (the text to replace is not in the file now: the call will fail): the text "
               "it "
               "replaces and its replacement"
            << QStringList{"@@ -1 +1 @@", "-five", "+5"};
        QTest::newRow("edit: the text occurs twice")
            << std::string("edit_file") << json{{"path", "a"}, {"old_string", "o"}, {"new_string", "0"}}
            << CurrentFile{State::Text, "o\no\n", {}}
            << "changes a (the text to replace occurs 2 times: the call will fail): the text it replaces and "
               "its "
               "replacement"
            << QStringList{"@@ -1 +1 @@", "-o", "+0"};
        QTest::newRow("edit: replace_all")
            << std::string("edit_file")
            << json{{"path", "a"}, {"old_string", "o"}, {"new_string", "0"}, {"replace_all", true}}
            << CurrentFile{State::Text, "o\no\n", {}} << QString::fromUtf8("changes a: +2 \u22122")
            << QStringList{"@@ -1,2 +1,2 @@", "-o", "-o", "+0", "+0"};
        QTest::newRow("edit: a replacement that would make the file huge")
            << std::string("edit_file")
            << json{{"path", "a"}, {"old_string", "o"}, {"new_string", std::string(1 << 20, 'x')},
                    {"replace_all", true}}
            << CurrentFile{State::Text, "o\no\no\no\no\n", {}}
            << "changes a (the file would grow past 4,194,304 bytes): the text it replaces and its replacement "
               "(only the start of the diff)"
            << QStringList{"@@ -1 +1 @@", "-o"};
        QTest::newRow("edit: no file here (a server's task)")
            << std::string("edit_file")
            << json{{"path", "a.c"}, {"old_string", "x = 1;"}, {"new_string", "x = 2;"}} << CurrentFile{}
            << "changes a.c: the text it replaces and its replacement"
            << QStringList{"@@ -1 +1 @@", "-x = 1;", "+x = 2;"};
        QTest::newRow("edit: the file is a link now")
            << std::string("edit_file") << json{{"path", "a"}, {"old_string", "x"}, {"new_string", "y"}}
            << CurrentFile{State::Unreadable, {}, "it is a symbolic link now"}
            << "changes a (it is a symbolic link now): the text it replaces and its replacement"
            << QStringList{"@@ -1 +1 @@", "-x", "+y"};
        QTest::newRow("Claude Code's Edit: against the file")
            << std::string("Edit")
            << json{{"file_path", "/workspace/greet.txt"}, {"old_string", "four"}, {"new_string", "4"}}
            << greet << QString::fromUtf8("changes greet.txt: +1 \u22121")
            << QStringList{"@@ -1,4 +1,4 @@", " one", " two", " three", "-four", "+4"};

        QTest::newRow("Claude Code's MultiEdit: its file only")
            << std::string("MultiEdit")
            << json{{"file_path", "/workspace/greet.txt"},
                    {"edits", json::array({{{"old_string", "one"}, {"new_string", "1"}}})}}
            << greet << "changes greet.txt (its edits are not shown here)" << QStringList{};

        QTest::newRow("write: a new file")
            << std::string("write_file") << json{{"path", "n.txt"}, {"content", "a\nb\n"}}
            << CurrentFile{State::Absent, {}, {}} << QString::fromUtf8("creates n.txt: +2 \u22120")
            << QStringList{"@@ -0,0 +1,2 @@", "+a", "+b"};
        QTest::newRow("write: over the file")
            << std::string("write_file")
            << json{{"path", "greet.txt"}, {"content", "one\nTWO\nthree\nfour\n"}} << greet
            << QString::fromUtf8("rewrites greet.txt: +1 \u22121")
            << QStringList{"@@ -1,4 +1,4 @@", " one", "-two", "+TWO", " three", " four"};
        QTest::newRow("write: no file here")
            << std::string("write_file") << json{{"path", "n.txt"}, {"content", "a\n"}} << CurrentFile{}
            << QString::fromUtf8("writes n.txt whole: +1 \u22120") << QStringList{"@@ -0,0 +1 @@", "+a"};
        QTest::newRow("write: binary content")
            << std::string("write_file") << json{{"path", "b.bin"}, {"content", std::string("a\0b", 3)}}
            << CurrentFile{} << "writes b.bin: binary content, 3 bytes" << QStringList{};

        const std::string patch =
            "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n";
        QTest::newRow("patch: as it is") << std::string("apply_patch") << json{{"input", patch}}
                                         << CurrentFile{} << "applies a patch to 1 file" << lines(patch);
        QTest::newRow("network question: its reason says it all")
            << std::string("network") << json{{"host", "pypi.org"}, {"port", 443u}, {"method", "CONNECT"}}
            << CurrentFile{} << "" << QStringList{};
        QTest::newRow("another tool: nothing more")
            << std::string("read_file") << json{{"path", "a"}} << CurrentFile{} << "" << QStringList{};
        QTest::newRow("arguments that are no object")
            << std::string("shell") << json::array({"rm", "-rf"}) << CurrentFile{} << "" << QStringList{};
    }

    void preview() {
        QFETCH(std::string, tool);
        QFETCH(json, arguments);
        QFETCH(CurrentFile, file);
        QFETCH(QString, where);
        QFETCH(QStringList, body);
        const ApprovalPreview preview =
            approvalPreview(tool, arguments, file.state == State::Unknown ? FileReader() : fileIs(file));
        QCOMPARE(QString::fromStdString(preview.where), where);
        QStringList shown = lines(preview.body);
        if (preview.bodyKind == Body::Diff && tool != "apply_patch")
            shown = shown.filter(QRegularExpression("^(?!--- |\\+\\+\\+ )"));
        QCOMPARE(shown, body);
    }

    // The diff on a card is cut at kPreviewDiffLines, and says so.
    void aLongDiffIsCut() {
        std::string content;
        for (int i = 0; i < 500; ++i)
            content += "line " + std::to_string(i) + "\n";
        const ApprovalPreview preview = approvalPreview(
            "write_file", {{"path", "long.txt"}, {"content", content}}, fileIs({State::Absent, {}, {}}));
        QVERIFY(QString::fromStdString(preview.where).endsWith("(only the start of the diff)"));
        QCOMPARE(lines(preview.body).size(), qsizetype(kPreviewDiffLines));
    }

    // The fold shows a waiting edit against the file once the face reads it; an edit answered in the same
    // batch keeps the call's own text (the file has moved on since).
    void theFoldShowsWaitingEditsAgainstTheFile() {
        const json edit = {{"path", "greet.txt"}, {"old_string", "two"}, {"new_string", "2"}};
        std::uint64_t seq = 0;
        const auto event = [&seq](const std::string& type, json data) {
            return json{{"seq", ++seq},        {"ts", "2026-12-06T18:00:00.000Z"},
                        {"type", type},        {"step", 1},
                        {"tool", "edit_file"}, {"data", std::move(data)}};
        };
        TimelineFold fold("edit");
        for (const json& e :
             {event("approval_requested", {{"id", "c1"}, {"arguments", edit}, {"reason", "r"}}),
              event("approval_resolved", {{"id", "c1"}, {"approved", true}}),
              event("approval_requested", {{"id", "c2"}, {"arguments", edit}, {"reason", "r"}})}) {
            auto read = readEvent(e);
            QVERIFY(read.ok());
            fold.apply(*read);
        }
        const FileReader reader = fileIs({State::Text, "one\ntwo\n", {}});
        const auto changed = fold.previewWaitingApprovals(reader);
        QCOMPARE(changed.size(), 1u); // c2 only
        const TimelineCard& answered = fold.cards()[fold.cards().size() - 2];
        const TimelineCard& waiting = fold.cards().back();
        QCOMPARE(waiting.callId, std::string("c2"));
        QVERIFY(lines(waiting.body).contains(" one"));
        QCOMPARE(answered.callId, std::string("c1"));
        QVERIFY(!lines(answered.body).contains(" one"));
        QVERIFY(fold.previewWaitingApprovals(reader).empty()); // nothing changed since
    }
};

QTEST_GUILESS_MAIN(TestApprovalPreview)
#include "tst_approval_preview.moc"
