// runChild: a real program run to its end through /bin/sh -c scripts: what it wrote on both pipes (also
// more than a pipe holds, on both at once), its status, its stdin, and the two ways it is ended early.
#include "common/ChildProcess.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

using warren::ChildOutput;
using warren::ChildRequest;
using warren::runChild;

Q_DECLARE_METATYPE(ChildOutput::End)

class TestChildProcess : public QObject {
    Q_OBJECT
private slots:
    void runsToItsEnd_data();
    void runsToItsEnd();
    void readsStdinFromTheFileNamed();
    void aProgramThatDoesNotExistIsAnError();
};

namespace {

ChildRequest shell(const std::string& script) {
    ChildRequest request;
    request.argv = {"/bin/sh", "-c", script};
    request.env = {"PATH=/usr/bin:/bin", "LC_ALL=C"};
    return request;
}

} // namespace

void TestChildProcess::runsToItsEnd_data() {
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("timeoutMs");   // 0: none
    QTest::addColumn<int>("maxStdout");   // 0: no cap
    QTest::addColumn<ChildOutput::End>("end");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("outSize");
    QTest::addColumn<QString>("err");
    using End = ChildOutput::End;
    QTest::newRow("output and status") << "echo out; echo err >&2; exit 3" << 0 << 0 << End::Exited << 3 << 4 << "err";
    QTest::newRow("stderr's trailing newlines trimmed") << "printf 'a\\n\\n \\n' >&2" << 0 << 0 << End::Exited << 0 << 0
                                                         << "a";
    QTest::newRow("more than a pipe holds on both at once")
        << "head -c 1000000 /dev/zero; head -c 200000 /dev/zero >&2; head -c 1000000 /dev/zero" << 0 << 0 << End::Exited
        << 0 << 2000000 << QString(QByteArray(64 * 1024, '\0'));
    QTest::newRow("killed by a signal") << "kill -9 $$" << 0 << 0 << End::Exited << 128 + 9 << 0 << "";
    QTest::newRow("past its deadline") << "echo started; exec sleep 60" << 100 << 0 << End::TimedOut << 0 << 8 << "";
    QTest::newRow("stdout past its cap") << "head -c 100000 /dev/zero; exec sleep 60" << 0 << 4096 << End::StdoutTooLarge
                                         << 0 << -1 << "";
}

void TestChildProcess::runsToItsEnd() {
    QFETCH(QString, script);
    QFETCH(int, timeoutMs);
    QFETCH(int, maxStdout);
    QFETCH(ChildOutput::End, end);
    QFETCH(int, status);
    QFETCH(int, outSize);
    QFETCH(QString, err);
    ChildRequest request = shell(script.toStdString());
    request.timeout = std::chrono::milliseconds(timeoutMs);
    if (maxStdout > 0)
        request.maxStdout = static_cast<std::size_t>(maxStdout);
    const auto ran = runChild(request);
    QVERIFY2(ran, ran ? "" : ran.error().message.c_str());
    QCOMPARE(ran->end, end);
    QCOMPARE(ran->status, status);
    if (outSize >= 0)
        QCOMPARE(ran->out.size(), static_cast<std::size_t>(outSize));
    else
        QVERIFY(ran->out.size() <= static_cast<std::size_t>(maxStdout));
    QCOMPARE(QString::fromStdString(ran->err), err);
}

void TestChildProcess::readsStdinFromTheFileNamed() {
    QTemporaryDir dir;
    const std::string input = dir.filePath("input").toStdString();
    std::ofstream(input) << "from the file\n";
    ChildRequest request = shell("cat");
    request.stdinFile = input;
    const auto ran = runChild(request);
    QVERIFY2(ran, ran ? "" : ran.error().message.c_str());
    QCOMPARE(ran->out, std::string("from the file\n"));
    const auto empty = runChild(shell("cat")); // /dev/null
    QVERIFY(empty);
    QCOMPARE(empty->out, std::string());
}

void TestChildProcess::aProgramThatDoesNotExistIsAnError() {
    ChildRequest request;
    request.argv = {"/nonexistent/warren-no-such-program"};
    const auto ran = runChild(request);
    QVERIFY(!ran);
    QCOMPARE(ran.error().code, warren::ErrorCode::NotFound);
    QVERIFY2(ran.error().message.find("/nonexistent/warren-no-such-program") != std::string::npos,
             ran.error().message.c_str());
}

QTEST_GUILESS_MAIN(TestChildProcess)
#include "tst_child_process.moc"
