// A warm container's claim (common/WarmClaim): the one JSON line both sides read, refused when it is anything
// but a claim; sent with the task's stdio over a socket, as the control plane does, and received as the
// waiter does, with what the waiter says when it cannot run the claim.

#include "common/WarmClaim.h"

#include <QtTest>
#include <fcntl.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace warren;

namespace {

WarmClaim sample() {
    return WarmClaim{
        {"/opt/warren/warren-agent", "serve", "--connect", "unix:/opt/warren/channel/agent.sock"},
        {{"HOME", "/state/home"}, {"WITH SPACE", "a value\nwith a newline"}},
        "/workspace"};
}

std::string readAll(int fd) {
    std::string text;
    char buffer[256];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof(buffer))) > 0)
        text.append(buffer, static_cast<std::size_t>(n));
    return text;
}

} // namespace

class TestWarmClaim : public QObject {
    Q_OBJECT

private slots:
    void aClaimReadsBackAsItWasWritten();
    void anythingButAClaimIsRefused_data();
    void anythingButAClaimIsRefused();
    void theClaimCarriesTheTasksStdio();
    void aClaimWithoutItsStdioIsRefused();
    void theWaitersWordIsTheSendersError();
    void aWaiterThatNeverAnswersIsGivenUpOn();
};

void TestWarmClaim::aClaimReadsBackAsItWasWritten() {
    const std::string line = encodeWarmClaim(sample());
    QCOMPARE(line.back(), '\n');
    QCOMPARE(std::count(line.begin(), line.end(), '\n'), 1); // one line, the newline in a value escaped
    auto read = decodeWarmClaim(std::string_view(line).substr(0, line.size() - 1));
    QVERIFY2(read, read ? "" : read.error().message.c_str());
    QVERIFY(*read == sample());
}

void TestWarmClaim::anythingButAClaimIsRefused_data() {
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("not JSON") << QByteArray("argv");
    QTest::newRow("not an object") << QByteArray("[]");
    QTest::newRow("an unknown field") << QByteArray(R"({"argv":["/a"],"env":{},"cwd":"/","uid":0})");
    QTest::newRow("no argv") << QByteArray(R"({"env":{},"cwd":"/"})");
    QTest::newRow("an empty argv") << QByteArray(R"({"argv":[],"env":{},"cwd":"/"})");
    QTest::newRow("a relative program") << QByteArray(R"({"argv":["sh"],"env":{},"cwd":"/"})");
    QTest::newRow("a number in argv") << QByteArray(R"({"argv":["/a",1],"env":{},"cwd":"/"})");
    QTest::newRow("a NUL in argv") << QByteArray(R"({"argv":["/a","b\u0000c"],"env":{},"cwd":"/"})");
    QTest::newRow("'=' in a name") << QByteArray(R"({"argv":["/a"],"env":{"A=B":"c"},"cwd":"/"})");
    QTest::newRow("an empty name") << QByteArray(R"({"argv":["/a"],"env":{"":"c"},"cwd":"/"})");
    QTest::newRow("a number as a value") << QByteArray(R"({"argv":["/a"],"env":{"A":1},"cwd":"/"})");
    QTest::newRow("a relative cwd") << QByteArray(R"({"argv":["/a"],"env":{},"cwd":"workspace"})");
    QTest::newRow("no cwd") << QByteArray(R"({"argv":["/a"],"env":{}})");
    QTest::newRow("over the size") << QByteArray(R"({"argv":["/a","pad"],"env":{},"cwd":"/"})")
                                          .replace("pad", QByteArray(kMaxWarmClaimBytes, 'x'));
}

void TestWarmClaim::anythingButAClaimIsRefused() {
    QFETCH(QByteArray, line);
    auto read = decodeWarmClaim(std::string_view(line.constData(), static_cast<std::size_t>(line.size())));
    QVERIFY(!read);
    QVERIFY2(QString::fromStdString(read.error().message).startsWith("a bad warm claim"),
             read.error().message.c_str());
}

void TestWarmClaim::theClaimCarriesTheTasksStdio() {
    int pair[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    UniqueFd host(pair[0]), waiter(pair[1]);
    int out[2];
    QCOMPARE(::pipe2(out, O_CLOEXEC), 0);
    UniqueFd outRead(out[0]), outWrite(out[1]);
    Status sent = Ok{};
    std::thread sender([&] {
        sent = sendWarmClaim(host.get(), sample(), {-1, outWrite.get(), -1}, std::chrono::seconds(30));
    });
    auto received = receiveWarmClaim(waiter.get());
    QVERIFY2(received, received ? "" : received.error().message.c_str());
    QVERIFY(received->claim == sample());
    waiter.reset(); // as the waiter's exec closes it: the sender's sign that the claim ran
    sender.join();
    QVERIFY2(sent, sent ? "" : sent.error().message.c_str());
    // stdout is the task's pipe; stdin, given none, is /dev/null.
    outWrite.reset();
    QVERIFY(::write(received->stdio[1].get(), "from the agent", 14) == 14);
    received->stdio[1].reset();
    QCOMPARE(QString::fromStdString(readAll(outRead.get())), QString("from the agent"));
    char byte;
    QCOMPARE(::read(received->stdio[0].get(), &byte, 1), ssize_t(0));
}

void TestWarmClaim::aClaimWithoutItsStdioIsRefused() {
    int pair[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    UniqueFd host(pair[0]), waiter(pair[1]);
    const std::string line = encodeWarmClaim(sample());
    QVERIFY(::write(host.get(), line.data(), line.size()) == static_cast<ssize_t>(line.size()));
    auto received = receiveWarmClaim(waiter.get());
    QVERIFY(!received);
    QVERIFY2(QString::fromStdString(received.error().message).contains("stdin, stdout and stderr"),
             received.error().message.c_str());
}

void TestWarmClaim::theWaitersWordIsTheSendersError() {
    int pair[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    UniqueFd host(pair[0]), waiter(pair[1]);
    std::thread answering([&] {
        auto received = receiveWarmClaim(waiter.get());
        const std::string word = "error: cannot run /opt/warren/warren-agent: No such file or directory\n";
        if (!received || ::write(waiter.get(), word.data(), word.size()) < 0)
            return;
        waiter.reset();
    });
    const Status sent = sendWarmClaim(host.get(), sample(), {-1, -1, -1}, std::chrono::seconds(30));
    answering.join();
    QVERIFY(!sent);
    QVERIFY2(QString::fromStdString(sent.error().message)
                 .endsWith("cannot run /opt/warren/warren-agent: No such file or directory"),
             sent.error().message.c_str());
}

void TestWarmClaim::aWaiterThatNeverAnswersIsGivenUpOn() {
    int pair[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    UniqueFd host(pair[0]), waiter(pair[1]); // the waiter holds its end open and says nothing
    const Status sent = sendWarmClaim(host.get(), sample(), {-1, -1, -1}, std::chrono::milliseconds(50));
    QVERIFY(!sent);
    QCOMPARE(sent.error().code, ErrorCode::Unavailable);
    QVERIFY2(QString::fromStdString(sent.error().message).contains("did not take its claim"),
             sent.error().message.c_str());
}

QTEST_GUILESS_MAIN(TestWarmClaim)
#include "tst_warm_claim.moc"
