#pragma once
// Helpers of the tests of workspace files (the agent's file tools, app/remote): files written and read, a
// file's mode, a tree's snapshot to compare two trees, the real git run on a test repository (no user or
// system configuration), and a hash of everything under a directory to prove it was not written.

#include <QCryptographicHash>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>

namespace warren::test {

namespace fs = std::filesystem;

inline void writeFile(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
}

inline mode_t modeOf(const fs::path& path) {
    struct stat status {};
    ::lstat(path.c_str(), &status);
    return status.st_mode & 07777;
}

inline void setExecutable(const fs::path& path, bool executable) {
    using fs::perms;
    fs::permissions(path, perms::owner_exec | perms::group_exec | perms::others_exec,
                    executable ? fs::perm_options::add : fs::perm_options::remove);
}

inline std::string binaryBytes(std::size_t size, unsigned seed) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<char>((i * seed) ^ (i >> 3) ^ seed);
    return bytes;
}

inline QString sha256Of(const std::string& bytes) {
    return QString::fromLatin1(
        QCryptographicHash::hash(QByteArray::fromStdString(bytes), QCryptographicHash::Sha256).toHex());
}

// Every path under root (".git" left out unless withGit) with its type, executable bit and content hash;
// directories with a trailing "/".
inline QStringList snapshot(const fs::path& root, bool withGit = false) {
    QStringList out;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        const fs::path relative = fs::relative(it->path(), root);
        if (!withGit && it->path().filename() == ".git") {
            it.disable_recursion_pending();
            continue;
        }
        QString line = QString::fromStdString(relative.string());
        if (it->is_symlink()) {
            line += " -> " + QString::fromStdString(fs::read_symlink(it->path()).string());
        } else if (it->is_regular_file()) {
            const bool executable =
                (fs::status(it->path()).permissions() & fs::perms::owner_exec) != fs::perms::none;
            line += (executable ? " x " : " - ") + sha256Of(readFile(it->path()));
        } else if (it->is_directory()) {
            line += "/";
        } else {
            line += " (special)";
        }
        out << line;
    }
    out.sort();
    return out;
}

// A hash of every file, link and directory under dir, names and contents: equal before and after means
// nothing under it was written.
inline QByteArray treeHash(const fs::path& dir) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QString& line : snapshot(dir, true))
        hash.addData(line.toUtf8() + '\n');
    return hash.result().toHex();
}

// The real git with no user or system configuration; fails the test when git fails.
inline QString git(const fs::path& cwd, const QStringList& args) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("GIT_CONFIG_NOSYSTEM", "1");
    env.insert("GIT_CONFIG_GLOBAL", "/dev/null");
    process.setProcessEnvironment(env);
    process.setWorkingDirectory(QString::fromStdString(cwd.string()));
    process.start("git", QStringList{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c",
                                     "init.defaultBranch=main"} +
                             args);
    process.waitForFinished(60'000);
    if (process.exitCode() != 0)
        qWarning().noquote() << "git" << args.join(' ') << "failed:" << process.readAllStandardError();
    return QString::fromUtf8(process.readAllStandardOutput());
}

} // namespace warren::test
