// tidyGitDiff: the headers of added and deleted files, the sections under .git dropped, and everything
// else left byte for byte.

#include "app/git/GitDiffText.h"

#include <QTest>

using warren::git::tidyGitDiff;

namespace {

std::string section(const std::string& header, const std::string& body = "index 0000..1111\n") {
    return "diff --git " + header + "\n" + body;
}

} // namespace

class GitDiffTextTest : public QObject {
    Q_OBJECT
private slots:
    void tidies_data();
    void tidies();
};

void GitDiffTextTest::tidies_data() {
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QByteArray>("expected");
    const auto row = [](const char* name, const std::string& raw, const std::string& expected) {
        QTest::newRow(name) << QByteArray::fromStdString(raw) << QByteArray::fromStdString(expected);
    };
    const std::string modified =
        section("a/src/main.c b/src/main.c", "--- a/src/main.c\n+++ b/src/main.c\n@@ -1 +1 @@\n-x\n+y\n");
    row("empty", "", "");
    row("modified_kept", modified, modified);
    row("added_header", section("b/new.txt b/new.txt", "new file mode 100644\n"),
        section("a/new.txt b/new.txt", "new file mode 100644\n"));
    row("deleted_header", section("a/old.txt a/old.txt", "deleted file mode 100644\n"),
        section("a/old.txt b/old.txt", "deleted file mode 100644\n"));
    row("added_quoted_header", section("\"b/caf\\303\\251\" \"b/caf\\303\\251\""),
        section("\"a/caf\\303\\251\" \"b/caf\\303\\251\""));
    row("added_name_with_spaces", section("b/dir with space/n n b/dir with space/n n"),
        section("a/dir with space/n n b/dir with space/n n"));
    row("added_name_containing_b_slash", section("b/x b/y b/x b/y"), section("a/x b/y b/x b/y"));
    row("modified_name_containing_b_slash", section("a/x b/y b/x b/y"), section("a/x b/y b/x b/y"));
    row("repository_metadata_dropped",
        modified + section("a/.git/index b/.git/index", "GIT binary patch\nliteral 3\nabc\n\n") +
            section("b/.git/objects/02/57 b/.git/objects/02/57") + modified,
        modified + modified);
    row("nested_repository_dropped", section("a/vendor/lib/.git/HEAD b/vendor/lib/.git/HEAD") + modified,
        modified);
    row("upper_case_git_dropped", section("b/.GIT/config b/.GIT/config"), "");
    row("quoted_metadata_dropped", section("\"b/.git/caf\\303\\251\" \"b/.git/caf\\303\\251\""), "");
    row("gitignore_kept", section("a/.gitignore b/.gitignore"), section("a/.gitignore b/.gitignore"));
    row("github_kept", section("b/.github/ci.yml b/.github/ci.yml"),
        section("a/.github/ci.yml b/.github/ci.yml"));
    row("file_named_git_kept", section("a/docs/.git b/docs/.git"), section("a/docs/.git b/docs/.git"));
    // A text line that happens to hold "diff --git" is no header: only the start of a line is.
    const std::string quoting =
        section("a/notes b/notes", "@@ -1 +1 @@\n-diff --git b/x b/x\n+ diff --git a/.git/x b/.git/x\n");
    row("header_text_inside_content", quoting, quoting);
}

void GitDiffTextTest::tidies() {
    QFETCH(QByteArray, raw);
    QFETCH(QByteArray, expected);
    QCOMPARE(QByteArray::fromStdString(tidyGitDiff(raw.toStdString())), expected);
}

QTEST_APPLESS_MAIN(GitDiffTextTest)
#include "tst_git_diff_text.moc"
