// Who counts as one client (an IPv4 address; an IPv6 /64; an IPv4-mapped IPv6 address as its IPv4), and
// ClientConnections' bookkeeping: the per-client limit, the head and body deadlines, and which connection
// gives way to a newcomer when the server is full.

#include "server/http/ClientAddressKey.h"
#include "server/http/ClientConnections.h"

#include <QTest>
#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>

using namespace warren::http;

namespace {

QByteArray keyOfSockaddr(const QString& text) {
    const QHostAddress address(text);
    if (address.protocol() == QAbstractSocket::IPv4Protocol) {
        sockaddr_in in{};
        in.sin_family = AF_INET;
        in.sin_addr.s_addr = htonl(address.toIPv4Address());
        return clientAddressKey(reinterpret_cast<const sockaddr*>(&in));
    }
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    const Q_IPV6ADDR bytes = address.toIPv6Address();
    std::memcpy(&in6.sin6_addr, bytes.c, sizeof bytes.c);
    return clientAddressKey(reinterpret_cast<const sockaddr*>(&in6));
}

int a, b, c, d; // their addresses stand for four connections
ClientConnectionLimits limits(unsigned cap, unsigned perClient) {
    return {cap, perClient, 1000, 2000, 100};
}

} // namespace

class TestHttpClientConnections : public QObject {
    Q_OBJECT

private slots:
    void sameClient_data() {
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("second");
        QTest::addColumn<bool>("same");
        QTest::newRow("one IPv4 address") << "192.0.2.1"
                                          << "192.0.2.1" << true;
        QTest::newRow("two IPv4 addresses") << "192.0.2.1"
                                            << "192.0.2.2" << false;
        QTest::newRow("two loopback addresses") << "127.0.0.2"
                                                << "127.0.0.3" << false;
        QTest::newRow("one IPv6 /64, two hosts") << "2001:db8:1:2::1"
                                                 << "2001:db8:1:2:ffff:ffff:ffff:ffff" << true;
        QTest::newRow("privacy addresses in one /64") << "2001:db8:1:2:a1b2:c3d4:e5f6:789"
                                                      << "2001:db8:1:2:1111:2222:3333:4444" << true;
        QTest::newRow("neighbouring /64s") << "2001:db8:1:2::1"
                                           << "2001:db8:1:3::1" << false;
        QTest::newRow("one /48, two /64s") << "2001:db8:1::1"
                                           << "2001:db8:1:ffff::1" << false;
        QTest::newRow("IPv4-mapped is its IPv4") << "::ffff:192.0.2.1"
                                                 << "192.0.2.1" << true;
        QTest::newRow("IPv4-mapped, other IPv4") << "::ffff:192.0.2.1"
                                                 << "::ffff:192.0.2.2" << false;
        QTest::newRow("IPv4 and an IPv6 of the same bytes") << "192.0.2.1"
                                                            << "c000:201::" << false;
        QTest::newRow("IPv6 loopback and IPv4 loopback") << "::1"
                                                         << "127.0.0.1" << false;
    }
    void sameClient() {
        QFETCH(QString, first);
        QFETCH(QString, second);
        QFETCH(bool, same);
        const QByteArray one = clientAddressKey(QHostAddress(first));
        const QByteArray two = clientAddressKey(QHostAddress(second));
        QVERIFY(!one.isEmpty());
        QCOMPARE(one == two, same);
        // The socket address the server sees gives the same keys.
        QCOMPARE(keyOfSockaddr(first), one);
        QCOMPARE(keyOfSockaddr(second), two);
    }

    void perClientLimitCountsAnIpv6Slash64AsOne() {
        ClientConnections connections(limits(100, 2));
        const QByteArray host1 = clientAddressKey(QHostAddress("2001:db8:0:1::1"));
        const QByteArray host2 = clientAddressKey(QHostAddress("2001:db8:0:1::2"));
        const QByteArray host3 = clientAddressKey(QHostAddress("2001:db8:0:1:dead:beef:0:1"));
        const QByteArray neighbour = clientAddressKey(QHostAddress("2001:db8:0:2::1"));
        QVERIFY(connections.admits(host1));
        connections.opened(&a, 10, host1, 0);
        QVERIFY(connections.admits(host2));
        connections.opened(&b, 11, host2, 0);
        QVERIFY(!connections.admits(host3));
        QVERIFY(!connections.admits(host1));
        QVERIFY(connections.admits(neighbour));
        connections.closed(&a);
        QVERIFY(connections.admits(host3));
        QCOMPARE(connections.countOf(host3), 1u);
    }

    void headDeadlineCountsFromTheAccept() {
        ClientConnections connections(limits(100, 0));
        connections.opened(&a, 10, "k", 0);
        QCOMPARE(connections.nextDeadline(), std::optional<std::int64_t>(1000));
        QVERIFY(connections.expire(999).empty());
        QCOMPARE(connections.expire(1000), std::vector<int>{10});
        QVERIFY(connections.expire(5000).empty()); // once
        QVERIFY(!connections.nextDeadline());
    }

    void bodyDeadlineMovesWithTheRate() {
        ClientConnections connections(limits(100, 0));
        connections.opened(&a, 10, "k", 0);
        connections.headReceived(&a, true, 500);
        QCOMPARE(connections.nextDeadline(), std::optional<std::int64_t>(2500));
        connections.bodyReceived(&a, 100); // one second's worth at 100 B/s
        QCOMPARE(connections.nextDeadline(), std::optional<std::int64_t>(3500));
        QVERIFY(connections.expire(3499).empty());
        QCOMPARE(connections.expire(3500), std::vector<int>{10});
    }

    void answeringIsNeverCutAndTheNextHeadIsTimedFromTheAnswer() {
        ClientConnections connections(limits(100, 0));
        connections.opened(&a, 10, "k", 0);
        connections.headReceived(&a, false, 10);
        QVERIFY(!connections.nextDeadline());
        QVERIFY(connections.expire(1'000'000).empty());
        connections.answered(&a, 1'000'000);
        QCOMPARE(connections.nextDeadline(), std::optional<std::int64_t>(1'001'000));
    }

    void theClientHoldingTheMostGivesWayOldestFirst() {
        ClientConnections connections(limits(3, 0));
        connections.opened(&a, 10, "busy", 0);
        connections.opened(&b, 11, "busy", 1);
        connections.opened(&c, 12, "other", 2);
        QVERIFY(!connections.makeRoomFor(&c));  // within the cap
        connections.headReceived(&a, false, 3); // being answered: never given up
        connections.opened(&d, 13, "newcomer", 4);
        QCOMPARE(connections.makeRoomFor(&d), std::optional<int>(11));
    }

    void nothingGivesWayWhenAllAreAnswered() {
        ClientConnections connections(limits(1, 0));
        connections.opened(&a, 10, "x", 0);
        connections.headReceived(&a, false, 0);
        connections.opened(&b, 11, "y", 0);
        QVERIFY(!connections.makeRoomFor(&b));
    }
};

QTEST_GUILESS_MAIN(TestHttpClientConnections)
#include "tst_http_client_connections.moc"
