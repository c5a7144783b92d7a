// FileSecretStore: secrets round-trip through a 0600 file whatever the umask, a file others could read or
// that belongs to someone else is refused with the command that fixes it, and SecretStore::open falls back
// to the file when no keychain answers.

#include "app/secrets/FileSecretStore.h"
#include "app/secrets/SecretStore.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <unistd.h>

using namespace warren;
using namespace warren::control;

namespace {

mode_t modeOf(const std::string& path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0 ? status.st_mode & 07777 : 0;
}

} // namespace

class TestFileSecretStore : public QObject {
    Q_OBJECT

private slots:
    void writeReadOverwriteRemove() {
        QTemporaryDir dir;
        auto store = SecretStore::openFile(dir.path().toStdString());
        QCOMPARE(store->backend(), SecretStore::Backend::File);
        auto missing = store->read("openai");
        QVERIFY(missing.ok());
        QVERIFY(!missing->has_value());
        QVERIFY(store->write("openai", "sk-first").ok());
        QVERIFY(store->write("anthropic", "sk-ant").ok());
        QCOMPARE(store->read("openai").value(), std::optional<std::string>("sk-first"));
        QVERIFY(store->write("openai", "sk-second").ok());
        QCOMPARE(store->read("openai").value(), std::optional<std::string>("sk-second"));
        QVERIFY(store->remove("openai").ok());
        QVERIFY(!store->read("openai").value().has_value());
        QCOMPARE(store->read("anthropic").value(), std::optional<std::string>("sk-ant"));
        QVERIFY(store->remove("never-stored").ok());
        // A second store on the same directory sees what the first wrote.
        QCOMPARE(SecretStore::openFile(dir.path().toStdString())->read("anthropic").value(),
                 std::optional<std::string>("sk-ant"));
    }

    void fileIsOnlyForTheUserWhateverTheUmask() {
        QTemporaryDir dir;
        const mode_t previous = ::umask(0);
        FileSecretStore store(dir.path().toStdString());
        const auto written = store.write("openai", "sk-x");
        ::umask(previous);
        QVERIFY(written.ok());
        QCOMPARE(modeOf(store.path()), mode_t(0600));
        // Nothing but the file itself is left in the directory (no temp files).
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"secrets.json"});
    }

    void createsTheDataDirectory() {
        QTemporaryDir dir;
        FileSecretStore store((dir.path() + "/a/b").toStdString());
        QVERIFY(store.write("openai", "sk-x").ok());
        QCOMPARE(store.read("openai").value(), std::optional<std::string>("sk-x"));
    }

    void readableByOthersIsRefused_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("group readable") << 0640;
        QTest::newRow("world readable") << 0604;
        QTest::newRow("group writable") << 0620;
    }

    void readableByOthersIsRefused() {
        QFETCH(int, mode);
        QTemporaryDir dir;
        FileSecretStore store(dir.path().toStdString());
        QVERIFY(store.write("openai", "sk-x").ok());
        QVERIFY(::chmod(store.path().c_str(), static_cast<mode_t>(mode)) == 0);
        const auto read = store.read("openai");
        const auto written = store.write("other", "y");
        QVERIFY(!read.ok() && !written.ok());
        for (const auto& error : {read.error().message, written.error().message})
            QVERIFY2(
                QString::fromStdString(error).contains(QString::fromStdString("chmod 600 " + store.path())),
                error.c_str());
        QCOMPARE(modeOf(store.path()), mode_t(mode)); // refused, not silently rewritten
    }

    void ownedByAnotherUserIsRefused() {
        if (::geteuid() != 0)
            QSKIP("only root can give a file to another user; the unprivileged run cannot set this up");
        QTemporaryDir dir;
        FileSecretStore store(dir.path().toStdString());
        QVERIFY(store.write("openai", "sk-x").ok());
        QVERIFY(::chown(store.path().c_str(), 65534, 65534) == 0);
        const auto read = store.read("openai");
        QVERIFY(!read.ok());
        QVERIFY2(QString::fromStdString(read.error().message).contains("belongs to another user"),
                 read.error().message.c_str());
    }

    void symlinkIsRefused() {
        QTemporaryDir dir;
        QFile target(dir.filePath("elsewhere.json"));
        QVERIFY(target.open(QIODevice::WriteOnly));
        target.write("{\"secrets\": {\"openai\": \"planted\"}}");
        target.close();
        QVERIFY(QFile::setPermissions(target.fileName(), QFile::ReadOwner | QFile::WriteOwner));
        QVERIFY(QFile::link(target.fileName(), dir.filePath("secrets.json")));
        FileSecretStore store(dir.path().toStdString());
        QVERIFY(!store.read("openai").ok());
    }

    void corruptFileIsAnError() {
        QTemporaryDir dir;
        FileSecretStore store(dir.path().toStdString());
        QFile file(QString::fromStdString(store.path()));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{not json");
        file.close();
        QVERIFY(QFile::setPermissions(file.fileName(), QFile::ReadOwner | QFile::WriteOwner));
        const auto read = store.read("openai");
        QVERIFY(!read.ok());
        QVERIFY(QString::fromStdString(read.error().message).contains("is not valid"));
    }

    void warningNamesTheFileAndTheFix() {
        QTemporaryDir dir;
        const auto store = SecretStore::openFile(dir.path().toStdString());
        const QString warning = QString::fromStdString(store->warning());
        QVERIFY(warning.contains(dir.filePath("secrets.json")));
        QVERIFY(warning.contains("gnome-keyring"));
    }

    // No session bus: the keychain cannot answer, so open() hands back the file store and says why.
    void openFallsBackToTheFileWithoutAKeychain() {
        qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/warren-test-bus");
        QTemporaryDir dir;
        const auto keychain = SecretStore::openKeychain("warren-test");
        QVERIFY(!keychain.ok());
        QVERIFY(!keychain.error().message.empty());
        const auto store = SecretStore::open(dir.path().toStdString(), "warren-test");
        QCOMPARE(store->backend(), SecretStore::Backend::File);
        QVERIFY(!store->warning().empty());
        QVERIFY(store->write("openai", "sk-x").ok());
        QVERIFY(QFile::exists(dir.filePath("secrets.json")));
    }
};

QTEST_GUILESS_MAIN(TestFileSecretStore)
#include "tst_file_secret_store.moc"
