// workspacePatch with the real git: the patch of a task's changes (added, deleted, modified text, binary
// files, names with spaces, an executable bit, a symlink) applies with `git apply` onto a copy of the
// pristine tree and reproduces the workspace; paths are relative to the workspace's root; the cap and a
// missing git are clear errors.

#include "app/git/WorkspacePatch.h"

#include <QDirIterator>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <random>

using namespace warren::git;

namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string binary(std::size_t size, unsigned seed) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<char>((i * seed) ^ (i >> 3));
    return bytes;
}

// Every path under root with its type, executable bit and content.
QStringList snapshot(const fs::path& root) {
    QStringList out;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        QString line = QString::fromStdString(fs::relative(entry.path(), root).string());
        if (entry.is_symlink()) {
            line += " -> " + QString::fromStdString(fs::read_symlink(entry.path()).string());
        } else if (entry.is_regular_file()) {
            QFile file(QString::fromStdString(entry.path().string()));
            file.open(QIODevice::ReadOnly);
            const bool executable =
                (fs::status(entry.path()).permissions() & fs::perms::owner_exec) != fs::perms::none;
            line += (executable ? " x " : " - ") + QString::fromLatin1(file.readAll().toHex());
        } else if (entry.is_directory() && fs::is_empty(entry.path())) {
            continue; // git does not carry empty directories
        }
        out << line;
    }
    out.sort();
    return out;
}

} // namespace

class WorkspacePatchTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void appliesOntoThePristineCopy();
    void leavesRepositoryMetadataOut();
    void sameTreesGiveAnEmptyPatch();
    void refusesAPatchPastTheCap();
    void saysWhenGitIsMissing();
    void stopsAGitThatTakesTooLong();
    void saysWhenATreeIsMissing();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_pristine, m_workspace;
};

void WorkspacePatchTest::initTestCase() {
    if (QStandardPaths::findExecutable("git").isEmpty())
        QSKIP("git is not installed");
}

void WorkspacePatchTest::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_pristine = fs::path(m_dir->path().toStdString()) / "pristine";
    m_workspace = fs::path(m_dir->path().toStdString()) / "workspace";
    write(m_pristine / "src/main.c", "int main(void) {\n    return 0;\n}\n");
    write(m_pristine / "README", "readme\n");
    write(m_pristine / "doomed.txt", "going away\n");
    write(m_pristine / "image.png", binary(5000, 7));
    write(m_pristine / "run.sh", "#!/bin/sh\necho hi\n");
    write(m_pristine / "dir with space/old name.txt", "spaced\n");
    fs::copy(m_pristine, m_workspace, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

void WorkspacePatchTest::appliesOntoThePristineCopy() {
    write(m_workspace / "src/main.c", "int main(void) {\n    return 42;\n}\n"); // modified text
    fs::remove(m_workspace / "doomed.txt");                                     // deleted
    write(m_workspace / "src/new.h", "#pragma once\n");                         // added
    write(m_workspace / "image.png", binary(5000, 11));                         // modified binary
    write(m_workspace / "blob.bin", binary(3000, 3) + std::string(1, '\0'));    // added binary
    write(m_workspace / "dir with space/new name.txt", "spaced too\n");         // a name with spaces
    write(m_workspace / "dir with space/old name.txt", "spaced, changed\n");
    write(m_workspace / "caf\xc3\xa9.txt", "non-ASCII name\n"); // quoted by git
    fs::permissions(m_workspace / "run.sh", fs::perms::owner_exec, fs::perm_options::add);
    fs::create_symlink("src/main.c", m_workspace / "main-link");

    auto patch = workspacePatch(m_pristine, m_workspace);
    QVERIFY2(patch.ok(), patch.ok() ? "" : patch.error().message.c_str());
    const QByteArray text = QByteArray::fromStdString(*patch);
    QVERIFY(text.contains("diff --git a/src/main.c b/src/main.c\n"));
    QVERIFY(text.contains("diff --git a/dir with space/new name.txt b/dir with space/new name.txt\n"));
    QVERIFY(text.contains("GIT binary patch"));
    QVERIFY(text.contains("diff --git a/doomed.txt b/doomed.txt\ndeleted file mode"));
    QVERIFY(text.contains("diff --git a/blob.bin b/blob.bin\nnew file mode"));
    QVERIFY(text.contains("diff --git \"a/caf\\303\\251.txt\" \"b/caf\\303\\251.txt\"\nnew file mode"));
    QVERIFY2(!text.contains(m_dir->path().toUtf8()), "the patch names the server's directories");

    const fs::path copy = fs::path(m_dir->path().toStdString()) / "copy";
    fs::copy(m_pristine, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    const QString patchFile = m_dir->filePath("task.patch");
    QFile out(patchFile);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(text);
    out.close();
    QProcess apply;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("GIT_CEILING_DIRECTORIES", m_dir->path()); // no repository around the copy takes the patch
    apply.setProcessEnvironment(env);
    apply.setWorkingDirectory(QString::fromStdString(copy.string()));
    apply.start("git", {"apply", "--verbose", patchFile});
    QVERIFY(apply.waitForFinished());
    QVERIFY2(apply.exitCode() == 0, apply.readAllStandardError().constData());
    QCOMPARE(snapshot(copy), snapshot(m_workspace));
}

// The task committed in the workspace's repository: git apply refuses paths under .git, so they are left
// out and the rest still applies.
void WorkspacePatchTest::leavesRepositoryMetadataOut() {
    write(m_pristine / ".git/HEAD", "ref: refs/heads/main\n");
    write(m_workspace / ".git/HEAD", "ref: refs/heads/task\n");
    write(m_workspace / ".git/objects/ab/cdef", binary(300, 5));
    write(m_workspace / "README", "changed by the task\n");
    auto patch = workspacePatch(m_pristine, m_workspace);
    QVERIFY2(patch.ok(), patch.ok() ? "" : patch.error().message.c_str());
    QVERIFY2(patch->find(".git/") == std::string::npos, patch->c_str());
    QVERIFY(patch->starts_with("diff --git a/README b/README\n"));
}

void WorkspacePatchTest::sameTreesGiveAnEmptyPatch() {
    auto patch = workspacePatch(m_pristine, m_workspace);
    QVERIFY2(patch.ok(), patch.ok() ? "" : patch.error().message.c_str());
    QCOMPARE(*patch, std::string());
}

void WorkspacePatchTest::refusesAPatchPastTheCap() {
    std::mt19937 random(14);
    std::string noise(1 << 20, '\0');
    for (char& c : noise)
        c = static_cast<char>(random()); // incompressible: git deflates binary patches
    write(m_workspace / "big.bin", noise);
    PatchOptions options;
    options.maxBytes = 64 * 1024;
    auto patch = workspacePatch(m_pristine, m_workspace, options);
    QVERIFY(!patch.ok());
    QVERIFY2(patch.error().message.find("larger than the 65536 bytes the server allows") != std::string::npos,
             patch.error().message.c_str());
    options.maxBytes = 4 << 20;
    QVERIFY(workspacePatch(m_pristine, m_workspace, options).ok());
}

void WorkspacePatchTest::saysWhenGitIsMissing() {
    PatchOptions options;
    options.git = m_dir->filePath("no-such-git").toStdString();
    auto patch = workspacePatch(m_pristine, m_workspace, options);
    QVERIFY(!patch.ok());
    QVERIFY2(patch.error().message.find("is git installed?") != std::string::npos,
             patch.error().message.c_str());
}

// A git that never answers (a tree too large, a stuck disk) is killed at the deadline.
void WorkspacePatchTest::stopsAGitThatTakesTooLong() {
    const QString slowGit = m_dir->filePath("slow-git");
    QFile script(slowGit);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\nexec sleep 600\n");
    script.close();
    QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::ExeOwner));
    PatchOptions options;
    options.git = slowGit.toStdString();
    options.timeout = std::chrono::milliseconds(200);
    auto patch = workspacePatch(m_pristine, m_workspace, options);
    QVERIFY(!patch.ok());
    QVERIFY2(patch.error().message.find("git diff took longer than") != std::string::npos,
             patch.error().message.c_str());
}

void WorkspacePatchTest::saysWhenATreeIsMissing() {
    auto patch = workspacePatch(m_pristine, m_workspace / "gone");
    QVERIFY(!patch.ok());
    QVERIFY2(patch.error().message.find("not a directory") != std::string::npos,
             patch.error().message.c_str());
}

QTEST_GUILESS_MAIN(WorkspacePatchTest)
#include "tst_workspace_patch.moc"
