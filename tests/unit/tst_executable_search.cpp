// findExecutableOnPath: a CLI's install on the control plane's PATH and an image's program on the pod's are
// looked for alike: the first absolute directory holding a regular file this process may execute; relative
// entries, directories, files without the execute bit and names with a slash are never taken.

#include "common/ExecutableSearch.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;

class TestExecutableSearch : public QObject {
    Q_OBJECT
private slots:
    void theFirstExecutableOfTheListIsFound();
};

namespace {

void make(const QString& path, QFileDevice::Permissions permissions) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("#!/bin/sh\n");
    file.close();
    QVERIFY(file.setPermissions(permissions));
}

} // namespace

void TestExecutableSearch::theFirstExecutableOfTheListIsFound() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QDir dir(root.path());
    for (const char* sub : {"a", "b", "c"})
        QVERIFY(dir.mkdir(sub));
    const auto exec = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;
    make(dir.filePath("a/plain"), QFileDevice::ReadOwner | QFileDevice::WriteOwner); // not executable
    QVERIFY(dir.mkdir("a/tool"));                                                    // a directory
    make(dir.filePath("b/tool"), exec);
    make(dir.filePath("b/plain"), exec);
    make(dir.filePath("c/tool"), exec);
    const std::string a = dir.filePath("a").toStdString(), b = dir.filePath("b").toStdString(),
                      c = dir.filePath("c").toStdString();

    const std::string list = "relative:" + a + "::" + b + ":" + c;
    QCOMPARE(findExecutableOnPath("tool", list), std::optional(std::filesystem::path(b) / "tool"));
    QCOMPARE(findExecutableOnPath("plain", list), std::optional(std::filesystem::path(b) / "plain"));
    QCOMPARE(findExecutableOnPath("tool", c + ":" + b), std::optional(std::filesystem::path(c) / "tool"));
    QVERIFY(!findExecutableOnPath("plain", a));
    QVERIFY(!findExecutableOnPath("missing", list));
    QVERIFY(!findExecutableOnPath("b/tool", dir.path().toStdString())); // a name, never a path
    QVERIFY(!findExecutableOnPath("", list));
    QVERIFY(!findExecutableOnPath("tool", ""));
    // A relative entry is not looked in, though it names a directory that holds the program from here.
    QVERIFY(QDir::setCurrent(dir.filePath("b")));
    QVERIFY(!findExecutableOnPath("tool", "."));
}

QTEST_GUILESS_MAIN(TestExecutableSearch)
#include "tst_executable_search.moc"
