// InsideDestinations: the operator's --allow-internal list, and what warrend lets reach inside its host and
// networks. Each refusal row is a way a user could name the host's loopback, a private network or a cloud
// metadata service (by number in any spelling, by a name the machine answers for), and each allowed row a
// destination the operator wrote.

#include "app/egress/InsideDestinations.h"

#include <QtTest>

using namespace warren;
using namespace warren::control;

namespace {

InsideAccess serverAllowing(std::string_view list) {
    InsideAccess access{true, {}};
    if (!list.empty()) {
        auto parsed = parseInsideDestinations(list);
        if (parsed)
            access.allowed = *parsed;
    }
    return access;
}

} // namespace

class TestInsideDestinations : public QObject {
    Q_OBJECT

private slots:
    void parsesWhatAnOperatorWrites_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("host"); // a host a connection names
        QTest::addColumn<QString>("address");
        QTest::addColumn<int>("port");
        QTest::addColumn<bool>("allowed");
        QTest::newRow("address, any port") << "10.0.3.7"
                                           << "10.0.3.7"
                                           << "10.0.3.7" << 5432 << true;
        QTest::newRow("address, its port") << "127.0.0.1:11434"
                                           << "127.0.0.1"
                                           << "127.0.0.1" << 11434 << true;
        QTest::newRow("address, another port") << "127.0.0.1:11434"
                                               << "127.0.0.1"
                                               << "127.0.0.1" << 5432 << false;
        QTest::newRow("another address") << "127.0.0.1:11434"
                                         << "127.0.0.2"
                                         << "127.0.0.2" << 11434 << false;
        QTest::newRow("mapped IPv6 as its IPv4") << "127.0.0.1"
                                                 << "::ffff:127.0.0.1"
                                                 << "::ffff:127.0.0.1" << 80 << true;
        QTest::newRow("block") << "10.0.0.0/8"
                               << "10.9.8.7"
                               << "10.9.8.7" << 80 << true;
        QTest::newRow("block, outside it") << "10.0.0.0/8"
                                           << "11.0.0.1"
                                           << "11.0.0.1" << 80 << false;
        QTest::newRow("block masked") << "10.1.2.3/16"
                                      << "10.1.200.1"
                                      << "10.1.200.1" << 80 << true;
        QTest::newRow("block with a port") << "10.0.0.0/8:5432"
                                           << "10.1.1.1"
                                           << "10.1.1.1" << 5432 << true;
        QTest::newRow("IPv6 in brackets, port") << "[::1]:8000"
                                                << "::1"
                                                << "::1" << 8000 << true;
        QTest::newRow("IPv6 block, bracketed") << "[fd00::/8]:5432"
                                               << "fd12::1"
                                               << "fd12::1" << 5432 << true;
        QTest::newRow("IPv6 block, bare") << "fd00::/8"
                                          << "fd12::1"
                                          << "fd12::1" << 1 << true;
        QTest::newRow("name") << "models.internal:8000"
                              << "Models.Internal."
                              << "10.0.0.9" << 8000 << true;
        QTest::newRow("name, other name same address") << "models.internal"
                                                       << "evil.example"
                                                       << "10.0.0.9" << 80 << false;
        QTest::newRow("several, the second") << "10.0.3.7,127.0.0.1:8080"
                                             << "127.0.0.1"
                                             << "127.0.0.1" << 8080 << true;
        QTest::newRow("a zone is never one") << "fe80::/10"
                                             << "fe80::1%lo"
                                             << "fe80::1%lo" << 80 << false;
    }
    void parsesWhatAnOperatorWrites() {
        QFETCH(QString, text);
        QFETCH(QString, host);
        QFETCH(QString, address);
        QFETCH(int, port);
        QFETCH(bool, allowed);
        auto parsed = parseInsideDestinations(text.toStdString());
        QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
        QCOMPARE(
            insideDestinationAllowed(*parsed, host.toStdString(), QHostAddress(address), std::uint16_t(port)),
            allowed);
    }

    void refusesWhatIsNotADestination_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("empty") << ""
                               << "is empty";
        QTest::newRow("empty entry") << "10.0.0.1,,10.0.0.2"
                                     << "is empty";
        QTest::newRow("bad port") << "10.0.0.1:0"
                                  << "bad port";
        QTest::newRow("short IPv4") << "127.1"
                                    << "neither";
        QTest::newRow("hex IPv4") << "0x7f.0.0.1"
                                  << "neither";
        QTest::newRow("wildcard") << "*.internal"
                                  << "neither";
        QTest::newRow("prefix too long") << "10.0.0.0/33"
                                         << "prefix length";
        QTest::newRow("no prefix") << "10.0.0.0/"
                                   << "prefix length";
        QTest::newRow("block of a name") << "db.internal/8"
                                         << "no address";
        QTest::newRow("brackets round IPv4") << "[127.0.0.1]:80"
                                             << "neither";
        QTest::newRow("unclosed bracket") << "[::1:80"
                                          << "closing";
    }
    void refusesWhatIsNotADestination() {
        QFETCH(QString, text);
        QFETCH(QString, says);
        auto parsed = parseInsideDestinations(text.toStdString());
        QVERIFY(!parsed);
        QVERIFY2(QString::fromStdString(parsed.error().message).contains(says),
                 parsed.error().message.c_str());
        QVERIFY(parsed.error().message.starts_with("--allow-internal: "));
    }

    void onAServerAllowListsReachInsideOnlyWhereTheOperatorSays_data() {
        QTest::addColumn<QString>("network");
        QTest::addColumn<QString>("operatorAllows");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("public name") << "allow:pypi.org"
                                     << "" << true;
        QTest::newRow("public address") << "allow:192.0.43.10:443"
                                        << "" << true;
        QTest::newRow("loopback") << "allow:127.0.0.1:5432"
                                  << "" << false;
        QTest::newRow("loopback, other port allowed") << "allow:127.0.0.1:5432"
                                                      << "127.0.0.1:8080" << false;
        QTest::newRow("loopback allowed") << "allow:127.0.0.1:5432"
                                          << "127.0.0.1:5432" << true;
        QTest::newRow("loopback, no port: 80 and 443") << "allow:127.0.0.1"
                                                       << "127.0.0.1:80" << false;
        QTest::newRow("another loopback address") << "allow:127.9.9.9:80"
                                                  << "" << false;
        QTest::newRow("private 10/8") << "allow:10.1.2.3:80"
                                      << "" << false;
        QTest::newRow("private allowed by block") << "allow:10.1.2.3:80"
                                                  << "10.0.0.0/8" << true;
        QTest::newRow("192.168") << "allow:192.168.1.1"
                                 << "" << false;
        QTest::newRow("metadata") << "allow:169.254.169.254:80"
                                  << "" << false;
        QTest::newRow("unspecified") << "allow:0.0.0.0:80"
                                     << "" << false;
        QTest::newRow("IPv6 loopback") << "allow:[::1]:80"
                                       << "" << false;
        QTest::newRow("IPv4-mapped loopback") << "allow:[::ffff:127.0.0.1]:80"
                                              << "" << false;
        QTest::newRow("IPv4-mapped, allowed as IPv4") << "allow:[::ffff:127.0.0.1]:80"
                                                      << "127.0.0.1" << true;
        QTest::newRow("unique local") << "allow:[fd00::1]:80"
                                      << "" << false;
        QTest::newRow("localhost") << "allow:localhost:80"
                                   << "" << false;
        QTest::newRow("LOCALHOST.") << "allow:LOCALHOST.:80"
                                    << "" << false;
        QTest::newRow("under localhost") << "allow:db.localhost:80"
                                         << "" << false;
        QTest::newRow("wildcard under localhost") << "allow:*.x.localhost"
                                                  << "" << false;
        QTest::newRow("ip6-localhost") << "allow:ip6-localhost:80"
                                       << "" << false;
        QTest::newRow("localhost allowed by address") << "allow:localhost:8080"
                                                      << "127.0.0.1:8080" << true;
        QTest::newRow("localhost allowed by name") << "allow:localhost:8080"
                                                   << "localhost" << true;
        QTest::newRow("one bad of two") << "allow:pypi.org,127.0.0.1:22"
                                        << "" << false;
    }
    void onAServerAllowListsReachInsideOnlyWhereTheOperatorSays() {
        QFETCH(QString, network);
        QFETCH(QString, operatorAllows);
        QFETCH(bool, accepted);
        auto parsed = parseTaskNetwork(network.toStdString());
        QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
        const Status checked = checkAllowListInside(*parsed, serverAllowing(operatorAllows.toStdString()));
        QCOMPARE(bool(checked), accepted);
        if (!accepted)
            QVERIFY2(checked.error().message.find("warrend serve --allow-internal") != std::string::npos,
                     checked.error().message.c_str());
        // The desktop's user decides for their own machine: everything that parses stands.
        QVERIFY(checkAllowListInside(*parsed, InsideAccess{}));
    }

    void connectionsReachInsideOnlyWhereTheOperatorSays_data() {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("address"); // where the connection would go
        QTest::addColumn<QString>("operatorAllows");
        QTest::addColumn<bool>("desktop");
        QTest::addColumn<bool>("server");
        QTest::newRow("name to public") << "example.com"
                                        << "93.184.216.34"
                                        << "" << true << true;
        QTest::newRow("name rebound to loopback") << "example.com"
                                                  << "127.0.0.1"
                                                  << "" << false << false;
        QTest::newRow("name to metadata") << "example.com"
                                          << "169.254.169.254"
                                          << "" << false << false;
        QTest::newRow("literal loopback") << "127.0.0.1:80"
                                          << "127.0.0.1"
                                          << "" << true << false;
        QTest::newRow("literal loopback allowed") << "127.0.0.1:80"
                                                  << "127.0.0.1"
                                                  << "127.0.0.1:80" << true << true;
        QTest::newRow("name to private, block allowed") << "db.example.com"
                                                        << "10.0.0.5"
                                                        << "10.0.0.0/8" << false << true;
        QTest::newRow("name allowed by name") << "db.internal:80"
                                              << "10.0.0.5"
                                              << "db.internal" << false << true;
    }
    void connectionsReachInsideOnlyWhereTheOperatorSays() {
        QFETCH(QString, rule);
        QFETCH(QString, address);
        QFETCH(QString, operatorAllows);
        QFETCH(bool, desktop);
        QFETCH(bool, server);
        const auto rules = parseTaskNetwork(("allow:" + rule).toStdString());
        QVERIFY(rules);
        const HostRule& hostRule = rules->hosts.front();
        const std::string host = hostRule.host;
        QCOMPARE(addressAllowed(hostRule, host, QHostAddress(address), 80, InsideAccess{}), desktop);
        QCOMPARE(addressAllowed(hostRule, host, QHostAddress(address), 80,
                                serverAllowing(operatorAllows.toStdString())),
                 server);
    }
};

QTEST_GUILESS_MAIN(TestInsideDestinations)
#include "tst_inside_destinations.moc"
