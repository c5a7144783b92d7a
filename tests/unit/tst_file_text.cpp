// readFileText and writeFileText: a whole file both ways, its mode, and errors that name the file.
#include "common/FileText.h"

#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>

using warren::readFileText;
using warren::writeFileText;

class TestFileText : public QObject {
    Q_OBJECT
private slots:
    void writtenAndReadBack_data();
    void writtenAndReadBack();
    void replacesWhatWasThere();
    void aMissingFileIsNotFound();
    void aMissingDirectoryIsAnErrorNamingTheFile();
};

void TestFileText::writtenAndReadBack_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<uint>("mode");
    QTest::newRow("empty") << QByteArray() << 0644u;
    QTest::newRow("text, private") << QByteArray("one\ntwo\n") << 0600u;
    QTest::newRow("bytes with NULs, executable") << QByteArray("a\0b\xff", 4) << 0755u;
    QTest::newRow("larger than one read") << QByteArray(200'000, 'x') << 0644u;
}

void TestFileText::writtenAndReadBack() {
    QFETCH(QByteArray, content);
    QFETCH(uint, mode);
    QTemporaryDir dir;
    const std::string path = dir.filePath("file").toStdString();
    const auto written = writeFileText(path, std::string_view(content.constData(), static_cast<std::size_t>(content.size())),
                                       static_cast<mode_t>(mode));
    QVERIFY2(written, written ? "" : written.error().message.c_str());
    struct stat info {};
    QCOMPARE(::stat(path.c_str(), &info), 0);
    QCOMPARE(static_cast<uint>(info.st_mode & 07777), mode);
    const auto read = readFileText(path);
    QVERIFY2(read, read ? "" : read.error().message.c_str());
    QCOMPARE(QByteArray::fromStdString(*read), content);
}

void TestFileText::replacesWhatWasThere() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("file").toStdString();
    QVERIFY(writeFileText(path, "a longer first content\n"));
    QVERIFY(writeFileText(path, "short\n"));
    QCOMPARE(readFileText(path).value(), std::string("short\n"));
}

void TestFileText::aMissingFileIsNotFound() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("missing").toStdString();
    const auto read = readFileText(path);
    QVERIFY(!read);
    QCOMPARE(read.error().code, warren::ErrorCode::NotFound);
    QVERIFY2(read.error().message.find(path) != std::string::npos, read.error().message.c_str());
}

void TestFileText::aMissingDirectoryIsAnErrorNamingTheFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("no/such/dir/file").toStdString();
    const auto written = writeFileText(path, "x");
    QVERIFY(!written);
    QVERIFY2(written.error().message.find(path) != std::string::npos, written.error().message.c_str());
}

QTEST_GUILESS_MAIN(TestFileText)
#include "tst_file_text.moc"
