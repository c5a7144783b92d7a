// The operator's secret file for users' provider keys: 32 bytes that only its owner may read, and every
// other file refused with a message that names the file and says how to make a good one.

#include "server/accounts/ProviderKeySecret.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <unistd.h>

using namespace warren::accounts;

class TestProviderKeySecret : public QObject {
    Q_OBJECT

private slots:
    void readsAGoodFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("secret");
        const QByteArray bytes(32, '\x5a');
        QVERIFY(write(path, bytes, 0600));
        auto secret = readProviderKeySecret(path.toStdString());
        QVERIFY2(secret, secret ? "" : secret.error().message.c_str());
        QCOMPARE(QByteArray::fromStdString(*secret), bytes);
        QVERIFY(write(path, bytes, 0400));
        QVERIFY(readProviderKeySecret(path.toStdString()));
        QVERIFY(QFile::link(path, dir.filePath("link"))); // as a mounted secret may be
        QVERIFY(readProviderKeySecret(dir.filePath("link").toStdString()));
    }

    void refuses_data() {
        QTest::addColumn<QString>("kind"); // "file", "missing", "directory", "symlink"
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("problem"); // a part of the message
        QTest::newRow("empty") << "file" << 0 << 0600 << "holds 0 bytes, not 32";
        QTest::newRow("one short") << "file" << 31 << 0600 << "holds 31 bytes, not 32";
        QTest::newRow("one long") << "file" << 33 << 0600 << "holds 33 bytes, not 32";
        QTest::newRow("hex text of 32 bytes") << "file" << 65 << 0600 << "holds 65 bytes";
        QTest::newRow("group may read") << "file" << 32 << 0640 << "group or others";
        QTest::newRow("others may read") << "file" << 32 << 0604 << "group or others";
        QTest::newRow("umask 022's openssl rand") << "file" << 32 << 0644 << "chmod 600";
        QTest::newRow("group may write") << "file" << 32 << 0620 << "group or others";
        QTest::newRow("missing") << "missing" << 0 << 0 << "cannot open it";
        QTest::newRow("a directory") << "directory" << 0 << 0700 << "not a regular file";
        QTest::newRow("a link to a file others may read") << "symlink" << 32 << 0644 << "group or others";
    }
    void refuses() {
        QFETCH(QString, kind);
        QFETCH(int, size);
        QFETCH(int, mode);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const QString path = dir.filePath("secret");
        if (kind == "file") {
            QVERIFY(write(path, QByteArray(size, 'k'), mode));
        } else if (kind == "directory") {
            QVERIFY(QDir().mkdir(path));
        } else if (kind == "symlink") {
            QVERIFY(write(dir.filePath("target"), QByteArray(size, 'k'), mode));
            QVERIFY(QFile::link(dir.filePath("target"), path));
        }
        auto secret = readProviderKeySecret(path.toStdString());
        QVERIFY(!secret);
        const QString message = QString::fromStdString(secret.error().message);
        QVERIFY2(message.contains(problem), qPrintable(message));
        QVERIFY2(message.startsWith("--provider-key-secret " + path + ": "), qPrintable(message));
        QVERIFY2(message.contains("(umask 077 && openssl rand -out " + path + " 32)"), qPrintable(message));
    }

private:
    static bool write(const QString& path, const QByteArray& bytes, int mode) {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
            return false;
        file.close();
        return ::chmod(QFile::encodeName(path).constData(), static_cast<mode_t>(mode)) == 0;
    }
};

QTEST_GUILESS_MAIN(TestProviderKeySecret)
#include "tst_provider_key_secret.moc"
