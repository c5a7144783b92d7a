// readArtifact against a real output directory: a regular file is read; anything else a task could leave
// under an artifact's name is refused without being read, and without blocking: a FIFO no one writes (a
// blocking open or read would hang this test until its timeout), a device, a socket, a directory, a
// symbolic link to /etc/passwd or to a file outside the output, a path through a linked directory, "..".
// A file past the limit is refused by its size.

#include "common/UniqueFd.h"
#include "server/uploads/ArtifactFile.h"

#include <QTemporaryDir>
#include <QTest>
#include <cstring>
#include <fstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

using namespace warren;
using Outcome = uploads::ArtifactRead::Outcome;
namespace fs = std::filesystem;
Q_DECLARE_METATYPE(Outcome)

class ArtifactFileTest : public QObject {
    Q_OBJECT
private slots:
    void init();
    void readsARegularFile();
    void refusesWhatIsNotARegularFile_data();
    void refusesWhatIsNotARegularFile();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_output;
};

void ArtifactFileTest::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    m_output = fs::path(m_dir->path().toStdString()) / "output";
    fs::create_directories(m_output / "reports");
    std::ofstream(m_output / "reports" / "result.json") << "{\"ok\": true}";
    std::ofstream(fs::path(m_dir->path().toStdString()) / "secret") << "another user's";
}

void ArtifactFileTest::readsARegularFile() {
    const auto read = uploads::readArtifact(m_output, "reports/result.json", 1024);
    QCOMPARE(read.outcome, Outcome::Read);
    QCOMPARE(read.data, std::string("{\"ok\": true}"));
}

void ArtifactFileTest::refusesWhatIsNotARegularFile_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("name");
    QTest::addColumn<Outcome>("outcome");
    QTest::addColumn<QString>("reason");
    QTest::newRow("fifo") << "fifo" << "x" << Outcome::NotRegular << "is a FIFO";
    QTest::newRow("char_device") << "device" << "x" << Outcome::NotRegular << "is a device";
    QTest::newRow("socket") << "socket" << "x" << Outcome::NotRegular << "is a socket";
    QTest::newRow("directory") << "none" << "reports" << Outcome::NotRegular << "is a directory";
    QTest::newRow("link_to_etc_passwd") << "passwd_link" << "x" << Outcome::NotRegular << "symbolic link";
    QTest::newRow("link_to_another_users_file") << "secret_link" << "x" << Outcome::NotRegular << "symbolic link";
    QTest::newRow("link_inside_the_output") << "inside_link" << "x" << Outcome::NotRegular << "symbolic link";
    QTest::newRow("through_a_linked_directory")
        << "dir_link" << "linked/result.json" << Outcome::NotRegular << "symbolic link";
    QTest::newRow("dotdot_out") << "none" << "../secret" << Outcome::NotRegular << "leads out";
    QTest::newRow("absolute") << "none" << "/etc/passwd" << Outcome::NotRegular << "leads out";
    QTest::newRow("missing") << "none" << "gone.txt" << Outcome::Missing << "no longer";
    QTest::newRow("too_large") << "large" << "x" << Outcome::TooLarge << "larger than";
}

void ArtifactFileTest::refusesWhatIsNotARegularFile() {
    QFETCH(QString, kind);
    QFETCH(QString, name);
    QFETCH(Outcome, outcome);
    QFETCH(QString, reason);
    const fs::path at = m_output / "x";
    UniqueFd socket;
    if (kind == "fifo") {
        QVERIFY(::mkfifo(at.c_str(), 0644) == 0);
    } else if (kind == "device") {
        if (::mknod(at.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
            QSKIP("cannot make a device node here (no CAP_MKNOD)");
    } else if (kind == "socket") {
        socket = UniqueFd(::socket(AF_UNIX, SOCK_STREAM, 0));
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, at.c_str(), sizeof address.sun_path - 1);
        QVERIFY(::bind(socket.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    } else if (kind == "passwd_link") {
        fs::create_symlink("/etc/passwd", at);
    } else if (kind == "secret_link") {
        fs::create_symlink("../secret", at);
    } else if (kind == "inside_link") {
        fs::create_symlink("reports/result.json", at);
    } else if (kind == "dir_link") {
        fs::create_directory_symlink("reports", m_output / "linked");
    } else if (kind == "large") {
        std::ofstream(at) << std::string(2048, 'x');
    }
    const auto read = uploads::readArtifact(m_output, name.toStdString(), 1024);
    QCOMPARE(read.outcome, outcome);
    QVERIFY(read.data.empty());
    QVERIFY2(QString::fromStdString(read.message).contains(reason), read.message.c_str());
}

QTEST_APPLESS_MAIN(ArtifactFileTest)
#include "tst_artifact_file.moc"
