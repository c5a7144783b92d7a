// KeychainSecretStore against a real gnome-keyring, in the private D-Bus session that
// tests/support/with-keychain.sh sets up (CTest runs the test through it): secrets round-trip, a missing
// entry is nothing rather than an error, and the secret is in no file in plain text, neither in the data
// directory nor in the keyring's own files.

#include "app/secrets/KeychainSecretStore.h"
#include "app/secrets/SecretStore.h"

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::control;

namespace {

// Files under dir whose bytes contain needle.
QStringList filesContaining(const QString& dir, const QByteArray& needle) {
    QStringList found;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(needle))
            found << file.fileName();
    }
    return found;
}

} // namespace

class TestKeychainSecretStore : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        const QByteArray missing = qgetenv("WARREN_NO_KEYRING");
        if (!missing.isEmpty())
            QSKIP(qPrintable("no keyring to test against: " + QString::fromLocal8Bit(missing)));
        QVERIFY2(!qgetenv("WARREN_KEYRING_HOME").isEmpty(),
                 "run this test through tests/support/with-keychain.sh (as CTest does)");
    }

    void roundTripInTheKeychain() {
        QTemporaryDir dataDir;
        const std::string secret =
            "sk-warren-test-" + std::to_string(QRandomGenerator::global()->generate64());
        auto store = SecretStore::open(dataDir.path().toStdString(), "warren-test");
        QCOMPARE(store->backend(), SecretStore::Backend::Keychain);
        QCOMPARE(store->warning(), std::string());

        auto missing = store->read("openai");
        QVERIFY2(missing.ok(), missing ? "" : missing.error().message.c_str());
        QVERIFY(!missing->has_value());

        QVERIFY(store->write("openai", secret).ok());
        QCOMPARE(store->read("openai").value(), std::optional<std::string>(secret));
        QVERIFY(store->write("openai", secret + "-2").ok());
        QCOMPARE(store->read("openai").value(), std::optional<std::string>(secret + "-2"));

        // Neither the data directory nor the keyring's own (encrypted) files hold the secret in plain text.
        QVERIFY(!QFile::exists(dataDir.filePath("secrets.json")));
        QCOMPARE(filesContaining(dataDir.path(), QByteArray::fromStdString(secret)), QStringList());
        QCOMPARE(
            filesContaining(qEnvironmentVariable("WARREN_KEYRING_HOME"), QByteArray::fromStdString(secret)),
            QStringList());

        QVERIFY(store->remove("openai").ok());
        QVERIFY(!store->read("openai").value().has_value());
        QVERIFY(store->remove("openai").ok()); // removing what is not there is not an error
    }

    void servicesAreSeparate() {
        KeychainSecretStore first("warren-test-a");
        KeychainSecretStore second("warren-test-b");
        QVERIFY(first.write("openai", "sk-a").ok());
        QVERIFY(!second.read("openai").value().has_value());
        QVERIFY(first.remove("openai").ok());
    }
};

QTEST_GUILESS_MAIN(TestKeychainSecretStore)
#include "tst_keychain_secret_store.moc"
