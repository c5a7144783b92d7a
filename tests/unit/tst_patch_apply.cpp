// PatchApply: the patch's headers read as rows (every kind of change, quoted names, type changes, and the
// patches refused whole), the conflict rule as rows, and the real thing: a workspace packed, extracted as
// the server does, changed as a task would, its patch made by the server's own workspacePatch, and applied
// back with git; conflicts (edited, deleted, created, chmod-ed locally, or refused by git) are left exactly
// as they were while the rest is applied; planning writes nothing; the user's .git stays byte-identical.

#include "app/remote/PatchApply.h"
#include "app/remote/WorkspacePack.h"
#include "common/UniqueFd.h"
#include "common/tar/UploadExtractor.h"
#include "app/git/WorkspacePatch.h"
#include "tests/unit/WorkspaceTree.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <functional>

using namespace warren;
using namespace warren::git;
using namespace warren::remote;
using namespace warren::test;

Q_DECLARE_METATYPE(LocalState::Type)

namespace {

using Change = PatchFile::Change;

// "path change binary oldMode newMode" per file, modes in octal.
QStringList describeFiles(const std::vector<PatchFile>& files) {
    QStringList out;
    for (const auto& file : files)
        out << QString("%1 %2%3 %4 %5")
                   .arg(QString::fromStdString(file.path), describe(file.change),
                        file.binary ? " binary" : "")
                   .arg(file.oldMode, 0, 8)
                   .arg(file.newMode, 0, 8);
    return out;
}

QStringList paths(const std::vector<PatchFile>& files) {
    QStringList out;
    for (const auto& file : files)
        out << QString::fromStdString(file.path);
    return out;
}

QStringList conflictPaths(const std::vector<PatchConflict>& conflicts) {
    QStringList out;
    for (const auto& conflict : conflicts)
        out << QString::fromStdString(conflict.path);
    return out;
}

QString reasonFor(const PatchPlan& plan, const std::string& path) {
    for (const auto& conflict : plan.conflicts)
        if (conflict.path == path)
            return QString::fromStdString(conflict.reason);
    return {};
}

const char* kModified =
    "diff --git a/f b/f\n"
    "index 5626abf0f72e58d7a153368ba57db4c673c0e171..814f4a422927b82f5f8a43f8fab6d3839e3983f2 100644\n"
    "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n one\n+two\n";

} // namespace

class PatchApplyTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();

    void patchFiles_data();
    void patchFiles();
    void refusedPatches_data();
    void refusedPatches();
    void unquoteGitName_data();
    void unquoteGitName();
    void conflictReason_data();
    void conflictReason();
    void preimageBlob_data();
    void preimageBlob();

    void appliesEveryKindOfChange_data();
    void appliesEveryKindOfChange();
    void conflictsAreLeftAloneAndTheRestApplied_data();
    void conflictsAreLeftAloneAndTheRestApplied();
    void aFileWhereTheTaskMadeADirectoryIsAConflict();
    void aFileTheTaskMadeADirectoryIsApplied();
    void whatGitRefusesBecomesAConflict();
    void usersRepositoryStaysByteIdentical();
    void refusedPatchWritesNothing();
    void emptyPatchDoesNothing();

private:
    // m_local packed into an upload; the server's pristine tree and the task's workspace extracted from
    // it; change() run on the task's workspace; the server's patch between the two.
    std::string uploadAndChange(const std::function<void(const fs::path&)>& change);
    // planPatch or applyPatch against the upload's manifest, or (the task submitted from elsewhere) against
    // the patch's own pre-images, as the test's "baseline" column says.
    Result<PatchPlan> planAgainst(const std::string& patch, const QString& baseline) const;
    Result<PatchPlan> applyAgainst(const std::string& patch, const QString& baseline) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_root, m_local, m_task;
    WorkspaceManifest m_manifest;
};

void PatchApplyTest::initTestCase() {
    if (QStandardPaths::findExecutable("git").isEmpty())
        QSKIP("git is not installed");
}

void PatchApplyTest::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_root = fs::path(m_dir->path().toStdString());
    m_local = m_root / "local";
    m_task = m_root / "task";
    fs::create_directories(m_local);
}

std::string PatchApplyTest::uploadAndChange(const std::function<void(const fs::path&)>& change) {
    const fs::path tar = m_root / "upload.tar";
    auto packed = packWorkspace(m_local, tar);
    if (!packed)
        qFatal("pack: %s", packed.error().message.c_str());
    m_manifest = packed->manifest;
    for (const fs::path& tree : {m_root / "pristine", m_task}) {
        const UniqueFd fd(::open(tar.c_str(), O_RDONLY | O_CLOEXEC));
        tar::FdByteSource source(fd.get());
        auto extracted = tar::UploadExtractor(tar::UploadLimits{}).extract(source, tree);
        if (!extracted)
            qFatal("extract: %s", extracted.error().message.c_str());
    }
    change(m_task);
    auto patch = git::workspacePatch(m_root / "pristine", m_task);
    if (!patch)
        qFatal("patch: %s", patch.error().message.c_str());
    return *patch;
}

Result<PatchPlan> PatchApplyTest::planAgainst(const std::string& patch, const QString& baseline) const {
    return baseline == "manifest" ? planPatch(patch, m_local, m_manifest) : planPatch(patch, m_local);
}

Result<PatchPlan> PatchApplyTest::applyAgainst(const std::string& patch, const QString& baseline) const {
    return baseline == "manifest" ? applyPatch(patch, m_local, m_manifest) : applyPatch(patch, m_local);
}

namespace {

void baselines() {
    QTest::addColumn<QString>("baseline");
    QTest::newRow("the upload's manifest") << "manifest";
    QTest::newRow("the patch's pre-images") << "preimages";
}

} // namespace

// ---- pure ----

void PatchApplyTest::patchFiles_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QStringList>("files");
    QTest::newRow("empty") << "" << QStringList{};
    QTest::newRow("modified") << kModified << QStringList{"f modified 100644 100644"};
    QTest::newRow("added") << "diff --git a/dir/new b/dir/new\nnew file mode 100755\nindex 0000000..3e75765\n"
                              "--- /dev/null\n+++ b/dir/new\n@@ -0,0 +1 @@\n+new\n"
                           << QStringList{"dir/new added 0 100755"};
    QTest::newRow("deleted") << "diff --git a/gone b/gone\ndeleted file mode 100644\nindex 286c5f5..0000000\n"
                                "--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
                             << QStringList{"gone deleted 100644 0"};
    QTest::newRow("executable bit") << "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
                                    << QStringList{"run.sh modified 100644 100755"};
    QTest::newRow("binary") << "diff --git a/bin b/bin\nindex bbc4e5a..3025d08 100644\nGIT binary patch\n"
                               "literal 3\nKcmZ>Y%mn}fDF6Wg\n\nliteral 3\nKcmZ>Y%mn}fDF6Wg\n\n"
                            << QStringList{"bin modified binary 100644 100644"};
    QTest::newRow("name with a space") << "diff --git a/sp ace b/sp ace\nold mode 100644\nnew mode 100755\n"
                                       << QStringList{"sp ace modified 100644 100755"};
    QTest::newRow("name that looks like two")
        << "diff --git a/x b/x b/x b/x\nold mode 100644\nnew mode 100755\n"
        << QStringList{"x b/x modified 100644 100755"};
    QTest::newRow("quoted tab") << "diff --git \"a/t\\tab\" \"b/t\\tab\"\nold mode 100644\nnew mode 100755\n"
                                << QStringList{"t\tab modified 100644 100755"};
    QTest::newRow("quoted UTF-8") << "diff --git \"a/\\303\\251t\\303\\251\" \"b/\\303\\251t\\303\\251\"\n"
                                     "old mode 100644\nnew mode 100755\n"
                                  << QStringList{
                                         QString::fromUtf8("\xc3\xa9t\xc3\xa9 modified 100644 100755")};
    QTest::newRow("file become a link (two sections, one file)")
        << "diff --git a/l b/l\ndeleted file mode 100644\nindex 1..0\n--- a/l\n+++ /dev/null\n@@ -1 +0,0 "
           "@@\n-x\n"
           "diff --git a/l b/l\nnew file mode 120000\nindex 0..2\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+t\n"
           "\\ No newline at end of file\n"
        << QStringList{"l modified 100644 120000"};
    QTest::newRow("two files, in order")
        << QString(kModified) + "diff --git a/a b/a\nold mode 100755\nnew mode 100644\n"
        << QStringList{"f modified 100644 100644", "a modified 100755 100644"};
    QTest::newRow("a hunk line that mentions diff --git")
        << "diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-diff --git a/x b/x\n+y\n"
        << QStringList{"f modified 100644 100644"};
}

void PatchApplyTest::patchFiles() {
    QFETCH(QString, patch);
    QFETCH(QStringList, files);
    auto parsed = git::patchFiles(patch.toStdString());
    QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
    QCOMPARE(describeFiles(*parsed), files);
}

void PatchApplyTest::refusedPatches_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("error");
    QTest::newRow("up and out") << "diff --git a/../x b/../x\nold mode 100644\nnew mode 100755\n"
                                << "\"../x\"";
    QTest::newRow("absolute") << "diff --git a//etc/x b//etc/x\nold mode 100644\nnew mode 100755\n"
                              << "inside the workspace";
    QTest::newRow("into .git") << "diff --git a/.git/config b/.git/config\nold mode 100644\nnew mode 100755\n"
                               << ".git";
    QTest::newRow("into a nested .GIT")
        << "diff --git a/v/.GIT/hooks/x b/v/.GIT/hooks/x\nnew file mode 100755\n"
        << ".git";
    QTest::newRow("a rename") << "diff --git a/old b/new\nsimilarity index 100%\n"
                              << "a/FILE and b/FILE";
    QTest::newRow("not a patch") << "hello\n"
                                 << "does not start with";
    QTest::newRow("unterminated quote") << "diff --git \"a/x \"b/x\"\n"
                                        << "quoted";
    QTest::newRow("quoted names differ") << "diff --git \"a/x\" \"b/y\"\n"
                                         << "a/FILE and b/FILE";
}

void PatchApplyTest::refusedPatches() {
    QFETCH(QString, patch);
    QFETCH(QString, error);
    auto parsed = git::patchFiles(patch.toStdString());
    QVERIFY(!parsed);
    QVERIFY2(QString::fromStdString(parsed.error().message).contains(error), parsed.error().message.c_str());
}

void PatchApplyTest::unquoteGitName_data() {
    QTest::addColumn<QString>("quoted");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<bool>("valid");
    QTest::newRow("plain") << "\"a/x\"" << QByteArray("a/x") << true;
    QTest::newRow("escapes") << "\"a\\\\b\\\"c\\n\"" << QByteArray("a\\b\"c\n") << true;
    QTest::newRow("octal byte") << "\"\\377\"" << QByteArray("\xff") << true;
    QTest::newRow("no closing quote") << "\"a/x" << QByteArray() << false;
    QTest::newRow("text after it") << "\"a\"b" << QByteArray() << false;
    QTest::newRow("unknown escape") << "\"\\q\"" << QByteArray() << false;
}

void PatchApplyTest::unquoteGitName() {
    QFETCH(QString, quoted);
    QFETCH(QByteArray, name);
    QFETCH(bool, valid);
    const auto unquoted = git::unquoteGitName(quoted.toStdString());
    QCOMPARE(unquoted.has_value(), valid);
    if (valid)
        QCOMPARE(QByteArray::fromStdString(*unquoted), name);
}

void PatchApplyTest::conflictReason_data() {
    QTest::addColumn<bool>("uploaded");     // the manifest has the path
    QTest::addColumn<bool>("uploadedLink"); // ... as a link
    QTest::addColumn<LocalState::Type>("local");
    QTest::addColumn<QString>("hash"); // the local file's
    QTest::addColumn<bool>("executable");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("reason"); // a part of it; empty: no conflict
    using T = LocalState::Type;
    const QString same = QString(64, 'a'), other = QString(64, 'b');
    QTest::newRow("unchanged file") << true << false << T::File << same << false << ""
                                    << "";
    QTest::newRow("edited") << true << false << T::File << other << false << ""
                            << "changed here";
    QTest::newRow("chmod +x") << true << false << T::File << same << true << ""
                              << "executable bit";
    QTest::newRow("deleted") << true << false << T::Missing << "" << false << ""
                             << "deleted";
    QTest::newRow("file became a directory") << true << false << T::Directory << "" << false << ""
                                             << "is a directory here but was a file";
    QTest::newRow("file became a link") << true << false << T::Symlink << "" << false << "x"
                                        << "is a symbolic link here but was a file";
    QTest::newRow("absent both times") << false << false << T::Missing << "" << false << ""
                                       << "";
    QTest::newRow("created here") << false << false << T::File << same << false << ""
                                  << "not part of the upload";
    QTest::newRow("created here as a directory") << false << false << T::Directory << "" << false << ""
                                                 << "not part of the upload";
    QTest::newRow("unchanged link") << true << true << T::Symlink << "" << false << "t"
                                    << "";
    QTest::newRow("link retargeted") << true << true << T::Symlink << "" << false << "u"
                                     << "points to \"u\"";
    QTest::newRow("link became a file") << true << true << T::File << same << false << ""
                                        << "is a file here but was a symbolic link";
    QTest::newRow("under a file") << false << false << T::UnderFile << "" << false << ""
                                  << "where the patch needs a directory";
    QTest::newRow("beyond a link") << true << false << T::BeyondSymlink << "" << false << ""
                                   << "symbolic link";
    QTest::newRow("a FIFO now") << true << false << T::Other << "" << false << ""
                                << "something other";
}

void PatchApplyTest::conflictReason() {
    QFETCH(bool, uploaded);
    QFETCH(bool, uploadedLink);
    QFETCH(LocalState::Type, local);
    QFETCH(QString, hash);
    QFETCH(bool, executable);
    QFETCH(QString, target);
    QFETCH(QString, reason);
    ManifestEntry entry{"p",   uploadedLink ? ManifestEntry::Type::Symlink : ManifestEntry::Type::File,
                        1,     uploadedLink ? "" : std::string(64, 'a'),
                        false, uploadedLink ? "t" : ""};
    LocalState state{local, hash.toStdString(), executable, target.toStdString(), "d"};
    const auto why = remote::conflictReason(uploaded ? &entry : nullptr, state);
    if (reason.isEmpty()) {
        QVERIFY2(!why, why ? why->c_str() : "");
    } else {
        QVERIFY(why);
        QVERIFY2(QString::fromStdString(*why).contains(reason), why->c_str());
    }
}

void PatchApplyTest::preimageBlob_data() {
    QTest::addColumn<QString>("section");
    QTest::addColumn<QString>("blob"); // empty: none
    const QString id = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
    QTest::newRow("modified") << "diff --git a/f b/f\nindex " + id + "..0123456789abcdef0123456789abcdef01234567 100644\n"
                                 "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n"
                              << id;
    QTest::newRow("deleted") << "diff --git a/f b/f\ndeleted file mode 100755\nindex " + id +
                                    "..0000000000000000000000000000000000000000\n"
                             << id;
    QTest::newRow("mode and content") << "diff --git a/f b/f\nold mode 100644\nnew mode 100755\nindex " + id +
                                             "..1111111111111111111111111111111111111111\nGIT binary patch\n"
                                      << id;
    QTest::newRow("added: no pre-image") << "diff --git a/f b/f\nnew file mode 100644\nindex "
                                            "0000000000000000000000000000000000000000..1111111111111111111111111111111111111111\n"
                                         << "";
    QTest::newRow("abbreviated id") << "diff --git a/f b/f\nindex e69de29..1111111 100644\n--- a/f\n" << "";
    QTest::newRow("not hex") << "diff --git a/f b/f\nindex " + QString(40, 'g') + "..1111111111111111111111111111111111111111\n"
                             << "";
    QTest::newRow("only a mode change") << "diff --git a/f b/f\nold mode 100644\nnew mode 100755\n" << "";
    QTest::newRow("an index line inside a hunk") << "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-index " + id +
                                                        "..1111111111111111111111111111111111111111\n"
                                                 << "";
}

void PatchApplyTest::preimageBlob() {
    QFETCH(QString, section);
    QFETCH(QString, blob);
    const auto found = git::preimageBlob(section.toStdString());
    QCOMPARE(QString::fromStdString(found.value_or("")), blob);
}

// ---- with git and files ----

void PatchApplyTest::appliesEveryKindOfChange_data() { baselines(); }

void PatchApplyTest::appliesEveryKindOfChange() {
    QFETCH(QString, baseline);
    writeFile(m_local / "src/main.c", "int main() {\n    return 0;\n}\n");
    writeFile(m_local / "gone.txt", "bye\n");
    writeFile(m_local / "data/blob.bin", binaryBytes(5000, 3));
    writeFile(m_local / "run.sh", "#!/bin/sh\n");
    writeFile(m_local / "becomes-link", "was a file\n");
    writeFile(m_local / "t\tab \xc3\xa9.txt", "one\n");
    const std::string patch = uploadAndChange([](const fs::path& task) {
        writeFile(task / "src/main.c", "int main() {\n    return 1;\n}\n");
        fs::remove(task / "gone.txt");
        writeFile(task / "data/blob.bin", binaryBytes(5000, 4));
        setExecutable(task / "run.sh", true);
        writeFile(task / "new/dir/added.txt", "added\n");
        writeFile(task / "new/tool.bin", binaryBytes(300, 9));
        fs::create_symlink("../src/main.c", task / "new/link");
        fs::remove(task / "becomes-link");
        fs::create_symlink("src/main.c", task / "becomes-link");
        writeFile(task / "t\tab \xc3\xa9.txt", "two\n");
    });
    const QStringList before = snapshot(m_local);
    auto plan = planAgainst(patch, baseline);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    QCOMPARE(snapshot(m_local), before); // planning writes nothing
    QVERIFY(plan->conflicts.empty());
    QCOMPARE(plan->apply.size(), std::size_t(9));

    auto applied = applyAgainst(patch, baseline);
    QVERIFY2(applied, applied ? "" : applied.error().message.c_str());
    QCOMPARE(paths(applied->apply), paths(plan->apply));
    QVERIFY(applied->conflicts.empty());
    fs::remove_all(m_task / "gone.txt"); // (already gone) the trees now match but for empty directories
    QCOMPARE(snapshot(m_local), snapshot(m_task));
}

void PatchApplyTest::conflictsAreLeftAloneAndTheRestApplied_data() { baselines(); }

void PatchApplyTest::conflictsAreLeftAloneAndTheRestApplied() {
    QFETCH(QString, baseline);
    writeFile(m_local / "edited.txt", "base\n");
    writeFile(m_local / "deleted.txt", "base\n");
    writeFile(m_local / "chmodded.sh", "base\n");
    writeFile(m_local / "clean.txt", "base\n");
    writeFile(m_local / "clean.bin", binaryBytes(4000, 1));
    writeFile(m_local / "clean-gone.txt", "base\n");
    const std::string patch = uploadAndChange([](const fs::path& task) {
        writeFile(task / "edited.txt", "task\n");
        writeFile(task / "deleted.txt", "task\n");
        writeFile(task / "chmodded.sh", "task\n");
        writeFile(task / "created.txt", "task\n");
        writeFile(task / "clean.txt", "task\n");
        writeFile(task / "clean.bin", binaryBytes(4000, 2));
        writeFile(task / "clean-new.txt", "task\n");
        fs::remove(task / "clean-gone.txt");
    });
    // The user works on after the upload.
    writeFile(m_local / "edited.txt", "mine\n");
    fs::remove(m_local / "deleted.txt");
    setExecutable(m_local / "chmodded.sh", true);
    writeFile(m_local / "created.txt", "mine\n");
    const QString editedBefore = sha256Of(readFile(m_local / "edited.txt"));
    const QString createdBefore = sha256Of(readFile(m_local / "created.txt"));

    const QStringList before = snapshot(m_local);
    auto plan = planAgainst(patch, baseline);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    QCOMPARE(snapshot(m_local), before);
    const QStringList conflicts{"chmodded.sh", "created.txt", "deleted.txt", "edited.txt"};
    QCOMPARE(conflictPaths(plan->conflicts), conflicts);
    QVERIFY(reasonFor(*plan, "edited.txt").contains("changed here since the upload"));
    QVERIFY(reasonFor(*plan, "deleted.txt").contains("deleted here"));
    QVERIFY(reasonFor(*plan, "chmodded.sh").contains("executable bit"));
    QVERIFY(reasonFor(*plan, "created.txt").contains("not part of the upload"));
    QCOMPARE(paths(plan->apply), (QStringList{"clean-gone.txt", "clean-new.txt", "clean.bin", "clean.txt"}));

    auto applied = applyAgainst(patch, baseline);
    QVERIFY2(applied, applied ? "" : applied.error().message.c_str());
    QCOMPARE(conflictPaths(applied->conflicts), conflicts);
    QCOMPARE(paths(applied->apply), paths(plan->apply));
    // The conflicts are as the user left them...
    QCOMPARE(sha256Of(readFile(m_local / "edited.txt")), editedBefore);
    QCOMPARE(sha256Of(readFile(m_local / "created.txt")), createdBefore);
    QVERIFY(!fs::exists(m_local / "deleted.txt"));
    QCOMPARE(readFile(m_local / "chmodded.sh"), std::string("base\n"));
    // ... and the rest is the task's.
    QCOMPARE(readFile(m_local / "clean.txt"), std::string("task\n"));
    QCOMPARE(readFile(m_local / "clean.bin"), binaryBytes(4000, 2));
    QCOMPARE(readFile(m_local / "clean-new.txt"), std::string("task\n"));
    QVERIFY(!fs::exists(m_local / "clean-gone.txt"));
}

// Something on the path that is not a directory: git apply --check passes it and the write fails
// part-way, so the plan makes it a conflict first.
void PatchApplyTest::aFileWhereTheTaskMadeADirectoryIsAConflict() {
    writeFile(m_local / "a.txt", "base\n");
    const std::string patch = uploadAndChange([](const fs::path& task) {
        writeFile(task / "a.txt", "task\n");
        writeFile(task / "d/new.txt", "task\n");
    });
    writeFile(m_local / "d", "a file where the task made a directory\n");
    auto applied = applyPatch(patch, m_local, m_manifest);
    QVERIFY2(applied, applied ? "" : applied.error().message.c_str());
    QCOMPARE(conflictPaths(applied->conflicts), QStringList{"d/new.txt"});
    QVERIFY(reasonFor(*applied, "d/new.txt").contains("\"d\" is a file here"));
    QCOMPARE(paths(applied->apply), QStringList{"a.txt"});
    QCOMPARE(readFile(m_local / "a.txt"), std::string("task\n"));
    QCOMPARE(readFile(m_local / "d"), std::string("a file where the task made a directory\n"));
}

// The task itself replaced the file "d" with a directory: not a conflict.
void PatchApplyTest::aFileTheTaskMadeADirectoryIsApplied() {
    writeFile(m_local / "d", "file\n");
    const std::string patch = uploadAndChange([](const fs::path& task) {
        fs::remove(task / "d");
        writeFile(task / "d/new.txt", "task\n");
    });
    auto applied = applyPatch(patch, m_local, m_manifest);
    QVERIFY2(applied, applied ? "" : applied.error().message.c_str());
    QVERIFY(applied->conflicts.empty());
    QCOMPARE(readFile(m_local / "d/new.txt"), std::string("task\n"));
}

// A manifest that does not belong to the patch (another upload's) agrees with the local file, but git sees
// the patch does not fit it: that file alone is a conflict, the rest applies.
void PatchApplyTest::whatGitRefusesBecomesAConflict() {
    writeFile(m_local / "a.txt", "base\n");
    writeFile(m_local / "b.txt", "base\n");
    const std::string patch = uploadAndChange([](const fs::path& task) {
        writeFile(task / "a.txt", "task\n");
        writeFile(task / "b.txt", "task\n");
    });
    writeFile(m_local / "a.txt", "mine\n");
    std::vector<ManifestEntry> entries = m_manifest.entries();
    for (auto& entry : entries)
        if (entry.path == "a.txt")
            entry.sha256 = sha256Of("mine\n").toStdString();
    const WorkspaceManifest otherManifest(entries);
    auto applied = applyPatch(patch, m_local, otherManifest);
    QVERIFY2(applied, applied ? "" : applied.error().message.c_str());
    QCOMPARE(conflictPaths(applied->conflicts), QStringList{"a.txt"});
    QVERIFY2(reasonFor(*applied, "a.txt").contains("git apply cannot apply it here"),
             qPrintable(reasonFor(*applied, "a.txt")));
    QCOMPARE(paths(applied->apply), QStringList{"b.txt"});
    QCOMPARE(readFile(m_local / "a.txt"), std::string("mine\n"));
    QCOMPARE(readFile(m_local / "b.txt"), std::string("task\n"));
}

void PatchApplyTest::usersRepositoryStaysByteIdentical() {
    writeFile(m_local / ".gitignore", "build/\n");
    writeFile(m_local / "src/main.c", "v1\n");
    writeFile(m_local / "src/util.c", "u1\n");
    writeFile(m_local / "build/out.o", "object\n");
    test::git(m_local, {"init", "-q"});
    test::git(m_local, {"add", "-A"});
    test::git(m_local, {"commit", "-qm", "first"});
    writeFile(m_local / "src/util.c", "u2 staged\n");
    test::git(m_local, {"add", "src/util.c"}); // an index that differs from HEAD
    const std::string patch = uploadAndChange([](const fs::path& task) {
        writeFile(task / "src/main.c", "v2\n");
        writeFile(task / "src/new.c", "new\n");
        fs::remove(task / "src/util.c");
    });
    const QByteArray gitBefore = treeHash(m_local / ".git");
    auto plan = planPatch(patch, m_local, m_manifest);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    auto applied = applyPatch(patch, m_local, m_manifest);
    QVERIFY2(applied, applied ? "" : applied.error().message.c_str());
    QCOMPARE(paths(applied->apply), (QStringList{"src/main.c", "src/new.c", "src/util.c"}));
    QCOMPARE(readFile(m_local / "src/main.c"), std::string("v2\n"));
    QVERIFY(!fs::exists(m_local / "src/util.c"));
    QCOMPARE(treeHash(m_local / ".git"), gitBefore);
}

void PatchApplyTest::refusedPatchWritesNothing() {
    writeFile(m_local / "f", "one\n");
    std::string patch = uploadAndChange([](const fs::path& task) { writeFile(task / "f", "one\ntwo\n"); });
    patch += "diff --git a/../escape b/../escape\nnew file mode 100644\n--- /dev/null\n+++ b/../escape\n"
             "@@ -0,0 +1 @@\n+x\n";
    const QStringList before = snapshot(m_local);
    auto applied = applyPatch(patch, m_local, m_manifest);
    QVERIFY(!applied);
    QVERIFY2(QString::fromStdString(applied.error().message).contains("nothing was applied"),
             applied.error().message.c_str());
    QCOMPARE(snapshot(m_local), before);
    QVERIFY(!fs::exists(m_root / "escape"));
}

void PatchApplyTest::emptyPatchDoesNothing() {
    writeFile(m_local / "f", "one\n");
    const std::string patch = uploadAndChange([](const fs::path&) {});
    QCOMPARE(patch, std::string());
    auto applied = applyPatch(patch, m_local, m_manifest);
    QVERIFY2(applied, applied ? "" : applied.error().message.c_str());
    QVERIFY(applied->apply.empty() && applied->conflicts.empty());
}

QTEST_GUILESS_MAIN(PatchApplyTest)
#include "tst_patch_apply.moc"
