// EgressPolicy: the --network parser, the allow-list matcher and the address check, against the ways a
// client could reach a host the list does not name: other spellings of a listed name or address, names that
// merely contain a listed one, and names that resolve inside the machine or its networks.

#include "app/egress/EgressPolicy.h"

#include <QtTest>

using namespace warren;
using namespace warren::control;

namespace {

// A network as one line, so a data row can say what it expects: "allow
// pypi.org:80/443|*.x.org:8443|::1=ip:80".
QString describe(const TaskNetwork& network) {
    switch (network.kind) {
    case TaskNetwork::Kind::None:
        return "none";
    case TaskNetwork::Kind::Loopback:
        return "loopback";
    case TaskNetwork::Kind::Allow:
        break;
    }
    QStringList rules;
    for (const HostRule& rule : network.hosts) {
        QString text = QString::fromStdString(rule.host);
        if (rule.wildcard)
            text.prepend("*.");
        if (rule.literalAddress)
            text += "=ip";
        text += ":" + (rule.port ? QString::number(*rule.port) : QString("80/443"));
        rules << text;
    }
    return (network.ask ? "ask " : "allow ") + rules.join('|');
}

std::vector<HostRule> rulesOf(std::string_view text) {
    auto parsed = parseTaskNetwork(text);
    return parsed ? parsed->hosts : std::vector<HostRule>{};
}

} // namespace

class TestEgressPolicy : public QObject {
    Q_OBJECT

private slots:
    void parseValid_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("none") << "none"
                              << "none";
        QTest::newRow("loopback") << "loopback"
                                  << "loopback";
        QTest::newRow("ask alone") << "ask" << "ask ";
        QTest::newRow("ask with hosts") << "ask:pypi.org,*.pythonhosted.org:8443"
                                        << "ask pypi.org:80/443|*.pythonhosted.org:8443";
        QTest::newRow("one name") << "allow:pypi.org"
                                  << "allow pypi.org:80/443";
        QTest::newRow("name and wildcard") << "allow:pypi.org,*.pythonhosted.org"
                                           << "allow pypi.org:80/443|*.pythonhosted.org:80/443";
        QTest::newRow("case and trailing dot normalised") << "allow:PyPI.Org."
                                                          << "allow pypi.org:80/443";
        QTest::newRow("wildcard case and trailing dot") << "allow:*.PythonHosted.org."
                                                        << "allow *.pythonhosted.org:80/443";
        QTest::newRow("name with port") << "allow:example.com:8443"
                                        << "allow example.com:8443";
        QTest::newRow("wildcard with port") << "allow:*.example.com:8443"
                                            << "allow *.example.com:8443";
        QTest::newRow("highest port") << "allow:example.com:65535"
                                      << "allow example.com:65535";
        QTest::newRow("ipv4 literal with port") << "allow:127.0.0.1:8080"
                                                << "allow 127.0.0.1=ip:8080";
        QTest::newRow("ipv4 literal without port") << "allow:192.0.2.7"
                                                   << "allow 192.0.2.7=ip:80/443";
        QTest::newRow("ipv6 in brackets with port") << "allow:[::1]:8080"
                                                    << "allow ::1=ip:8080";
        QTest::newRow("ipv6 in brackets without port") << "allow:[2001:DB8::7]"
                                                       << "allow 2001:db8::7=ip:80/443";
        QTest::newRow("ipv6 bare is an address without port") << "allow:::1"
                                                              << "allow ::1=ip:80/443";
        QTest::newRow("ipv6 written long is stored canonical") << "allow:[0:0:0:0:0:0:0:1]:9000"
                                                               << "allow ::1=ip:9000";
        QTest::newRow("mapped ipv6 literal") << "allow:[::ffff:127.0.0.1]:8080"
                                             << "allow ::ffff:127.0.0.1=ip:8080";
        QTest::newRow("two-label wildcard such as co.uk") << "allow:*.co.uk"
                                                          << "allow *.co.uk:80/443";
        QTest::newRow("punycode name") << "allow:xn--bcher-kva.example"
                                       << "allow xn--bcher-kva.example:80/443";
        QTest::newRow("single-label name") << "allow:localhost"
                                           << "allow localhost:80/443";
        QTest::newRow("digits in labels, letter first in the last") << "allow:1.2.3.example4"
                                                                    << "allow 1.2.3.example4:80/443";
        QTest::newRow("duplicates kept once") << "allow:a.example,A.example.,a.example"
                                              << "allow a.example:80/443";
        QTest::newRow("same name other port kept") << "allow:a.example,a.example:8443"
                                                   << "allow a.example:80/443|a.example:8443";
        QTest::newRow("spaces around entries") << "allow: pypi.org , files.pythonhosted.org"
                                               << "allow pypi.org:80/443|files.pythonhosted.org:80/443";
        QTest::newRow("longest label") << "allow:" + QString(63, 'a') + ".example"
                                       << "allow " + QString(63, 'a') + ".example:80/443";
        const QString longestName =
            QString(QString(63, 'a') + ".").repeated(3) + QString(53, 'b') + ".example";
        QTest::newRow("longest name") << "allow:" + longestName << "allow " + longestName + ":80/443";
    }

    void parseValid() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const auto parsed = parseTaskNetwork(text.toStdString());
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
        QCOMPARE(describe(parsed.value()), expected);
    }

    void parseInvalid_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message"); // a part of the error the user must see
        const QString forms = "use none, loopback or allow:HOST[,HOST...]";
        QTest::newRow("empty") << "" << forms;
        QTest::newRow("capitalised none") << "None" << forms;
        QTest::newRow("allow without colon") << "allow" << forms;
        QTest::newRow("allow with space") << "allow pypi.org" << forms;
        QTest::newRow("other word") << "deny:pypi.org" << forms;
        QTest::newRow("empty list") << "allow:"
                                    << "names no host";
        QTest::newRow("ask, empty list") << "ask:"
                                         << "names no host";
        QTest::newRow("ask, empty entry") << "ask:a.example,,b.example"
                                          << "host 2 is empty";
        QTest::newRow("ask, too broad") << "ask:*.com"
                                        << "is too broad";
        QTest::newRow("ask capitalised") << "Ask" << forms;
        QTest::newRow("ask without colon, with a host") << "ask pypi.org" << forms;
        QTest::newRow("blank list") << "allow: "
                                    << "names no host";
        QTest::newRow("empty entry inside") << "allow:a.example,,b.example"
                                            << "host 2 is empty";
        QTest::newRow("empty entry at end") << "allow:a.example,"
                                            << "host 2 is empty";
        QTest::newRow("empty entry at start") << "allow:,a.example"
                                              << "host 1 is empty";
        QTest::newRow("star alone") << "allow:*"
                                    << "\"*\" is too broad";
        QTest::newRow("star alone with port") << "allow:*:443"
                                              << "\"*:443\" is too broad";
        QTest::newRow("wildcard of a top-level domain")
            << "allow:*.com"
            << "--network allow:...: \"*.com\" is too broad: a wildcard needs a domain such as *.example.com";
        QTest::newRow("wildcard of a tld with dot") << "allow:*.com."
                                                    << "\"*.com.\" is too broad";
        QTest::newRow("wildcard of nothing") << "allow:*."
                                             << "\"*.\" is not a valid wildcard";
        QTest::newRow("double wildcard") << "allow:*.*.example.com"
                                         << "is not a valid wildcard";
        QTest::newRow("wildcard of an address") << "allow:*.127.0.0.1"
                                                << "is not a valid wildcard";
        QTest::newRow("star without dot") << "allow:*example.com"
                                          << "\"*example.com\" is neither a host name nor an address";
        QTest::newRow("star inside") << "allow:foo.*.example.com"
                                     << "is neither a host name nor an address";
        QTest::newRow("non-ascii name")
            << QString::fromUtf8("allow:b\xc3\xbc"
                                 "cher.example")
            << "is not ASCII: write an internationalised name in its punycode form";
        QTest::newRow("port zero") << "allow:a.example:0"
                                   << "\"a.example:0\" has a bad port";
        QTest::newRow("port too high") << "allow:a.example:65536"
                                       << "has a bad port";
        QTest::newRow("port empty") << "allow:a.example:"
                                    << "has a bad port";
        QTest::newRow("port with sign") << "allow:a.example:+80"
                                        << "has a bad port";
        QTest::newRow("port not a number") << "allow:a.example:https"
                                           << "has a bad port";
        QTest::newRow("url instead of host") << "allow:https://a.example"
                                             << "\"https://a.example\"";
        QTest::newRow("path after host") << "allow:a.example/simple"
                                         << "is neither a host name nor an address";
        QTest::newRow("ipv4 as one number") << "allow:2130706433"
                                            << "\"2130706433\" is neither a host name nor an address";
        QTest::newRow("ipv4 in hex") << "allow:0x7f.1"
                                     << "is neither a host name nor an address";
        QTest::newRow("ipv4 one number hex") << "allow:0x7f000001"
                                             << "is neither a host name nor an address";
        QTest::newRow("ipv4 shortened") << "allow:127.1"
                                        << "is neither a host name nor an address";
        QTest::newRow("ipv4 octal") << "allow:0177.0.0.1"
                                    << "is neither a host name nor an address";
        QTest::newRow("ipv4 leading zeros") << "allow:127.000.000.001"
                                            << "is neither a host name nor an address";
        QTest::newRow("ipv4 octet too big") << "allow:256.1.1.1"
                                            << "is neither a host name nor an address";
        QTest::newRow("ipv4 five parts") << "allow:1.2.3.4.5"
                                         << "is neither a host name nor an address";
        QTest::newRow("ipv4 trailing dot") << "allow:127.0.0.1."
                                           << "is neither a host name nor an address";
        QTest::newRow("ipv6 unclosed bracket") << "allow:[::1"
                                               << "has no closing ']'";
        QTest::newRow("ipv6 text after bracket") << "allow:[::1]x"
                                                 << "has text after ']'";
        QTest::newRow("ipv4 in brackets") << "allow:[127.0.0.1]"
                                          << "holds no IPv6 address in its brackets";
        QTest::newRow("ipv6 zone in brackets") << "allow:[fe80::1%eth0]"
                                               << "holds no IPv6 address in its brackets";
        QTest::newRow("ipv6 zone bare") << "allow:fe80::1%eth0"
                                        << "is neither a host name nor an address";
        QTest::newRow("ipv6 two double colons") << "allow:1::2::3"
                                                << "is neither a host name nor an address";
        QTest::newRow("ipv6 with shortened ipv4") << "allow:[::ffff:127.1]"
                                                  << "holds no IPv6 address in its brackets";
        QTest::newRow("label starts with hyphen") << "allow:-a.example"
                                                  << "is neither a host name nor an address";
        QTest::newRow("label ends with hyphen") << "allow:a-.example"
                                                << "is neither a host name nor an address";
        QTest::newRow("empty label") << "allow:a..example"
                                     << "is neither a host name nor an address";
        QTest::newRow("leading dot") << "allow:.a.example"
                                     << "is neither a host name nor an address";
        QTest::newRow("underscore") << "allow:a_b.example"
                                    << "is neither a host name nor an address";
        QTest::newRow("label too long") << "allow:" + QString(64, 'a') + ".example"
                                        << "is neither a host name nor an address";
        QTest::newRow("name too long")
            << "allow:" + QString(QString(63, 'a') + ".").repeated(3) + QString(54, 'b') + ".example"
            << "is neither a host name nor an address";
        QTest::newRow("second entry named") << "allow:pypi.org,*.com"
                                            << "\"*.com\" is too broad";
    }

    void parseInvalid() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const auto parsed = parseTaskNetwork(text.toStdString());
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error().code, ErrorCode::InvalidArgument);
        const QString actual = QString::fromStdString(parsed.error().message);
        QVERIFY2(actual.contains(message), qPrintable(actual));
    }

    void matchHost_data() {
        QTest::addColumn<QString>("rules");
        QTest::addColumn<QByteArray>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<int>("expected"); // index of the matching rule, -1 for none

        const QString list =
            "allow:pypi.org,*.pythonhosted.org,example.com:8443,127.0.0.1:8080,[::1]:9000,192.0.2.7";
        QTest::newRow("exact name 443") << list << QByteArray("pypi.org") << 443 << 0;
        QTest::newRow("exact name 80") << list << QByteArray("pypi.org") << 80 << 0;
        QTest::newRow("exact name other port") << list << QByteArray("pypi.org") << 8080 << -1;
        QTest::newRow("name in upper case") << list << QByteArray("PyPI.ORG") << 443 << 0;
        QTest::newRow("name with trailing dot") << list << QByteArray("pypi.org.") << 443 << 0;
        QTest::newRow("name with two trailing dots") << list << QByteArray("pypi.org..") << 443 << -1;
        QTest::newRow("name with leading dot") << list << QByteArray(".pypi.org") << 443 << -1;
        QTest::newRow("subdomain of an exact name") << list << QByteArray("evil.pypi.org") << 443 << -1;
        QTest::newRow("listed name as prefix") << list << QByteArray("pypi.org.evil.example") << 443 << -1;
        QTest::newRow("listed name without its dot") << list << QByteArray("pypiorg") << 443 << -1;
        QTest::newRow("listed name with a prefix") << list << QByteArray("xpypi.org") << 443 << -1;
        QTest::newRow("name with a port in it") << list << QByteArray("pypi.org:443") << 443 << -1;
        QTest::newRow("name with a space") << list << QByteArray("pypi.org ") << 443 << -1;
        QTest::newRow("name with a NUL") << list << QByteArray("pypi.org\0.evil", 14) << 443 << -1;
        QTest::newRow("name percent-encoded") << list << QByteArray("pyp%69.org") << 443 << -1;
        QTest::newRow("name with dotless i") << list << QByteArray("pyp\xc4\xb1.org") << 443 << -1;
        QTest::newRow("name in fullwidth letters") << list << QByteArray("\xef\xbd\x90ypi.org") << 443 << -1;
        QTest::newRow("empty host") << list << QByteArray("") << 443 << -1;
        QTest::newRow("dot alone") << list << QByteArray(".") << 443 << -1;
        QTest::newRow("wildcard one label") << list << QByteArray("files.pythonhosted.org") << 443 << 1;
        QTest::newRow("wildcard several labels") << list << QByteArray("a.b.pythonhosted.org") << 443 << 1;
        QTest::newRow("wildcard attacker-looking but inside")
            << list << QByteArray("evil.example.pythonhosted.org") << 443 << 1;
        QTest::newRow("wildcard case and dot") << list << QByteArray("FILES.PythonHosted.ORG.") << 80 << 1;
        QTest::newRow("wildcard never the suffix itself")
            << list << QByteArray("pythonhosted.org") << 443 << -1;
        QTest::newRow("wildcard suffix without dot") << list << QByteArray("xpythonhosted.org") << 443 << -1;
        QTest::newRow("wildcard suffix as prefix")
            << list << QByteArray("pythonhosted.org.evil.example") << 443 << -1;
        QTest::newRow("wildcard with empty label") << list << QByteArray(".pythonhosted.org") << 443 << -1;
        QTest::newRow("wildcard with double dot") << list << QByteArray("a..pythonhosted.org") << 443 << -1;
        QTest::newRow("wildcard other port") << list << QByteArray("files.pythonhosted.org") << 22 << -1;
        QTest::newRow("name with port rule") << list << QByteArray("example.com") << 8443 << 2;
        QTest::newRow("name with port rule, default port") << list << QByteArray("example.com") << 443 << -1;
        QTest::newRow("ipv4 literal") << list << QByteArray("127.0.0.1") << 8080 << 3;
        QTest::newRow("ipv4 literal other port") << list << QByteArray("127.0.0.1") << 80 << -1;
        QTest::newRow("ipv4 as one number") << list << QByteArray("2130706433") << 8080 << -1;
        QTest::newRow("ipv4 in hex") << list << QByteArray("0x7f.1") << 8080 << -1;
        QTest::newRow("ipv4 one number hex") << list << QByteArray("0x7f000001") << 8080 << -1;
        QTest::newRow("ipv4 shortened") << list << QByteArray("127.1") << 8080 << -1;
        QTest::newRow("ipv4 octal") << list << QByteArray("0177.0.0.1") << 8080 << -1;
        QTest::newRow("ipv4 leading zeros") << list << QByteArray("127.000.000.001") << 8080 << -1;
        QTest::newRow("ipv4 trailing dot") << list << QByteArray("127.0.0.1.") << 8080 << -1;
        QTest::newRow("ipv4 in brackets") << list << QByteArray("[127.0.0.1]") << 8080 << -1;
        QTest::newRow("ipv4 as mapped ipv6") << list << QByteArray("[::ffff:127.0.0.1]") << 8080 << -1;
        QTest::newRow("ipv4 as mapped ipv6 hex") << list << QByteArray("[::ffff:7f00:1]") << 8080 << -1;
        QTest::newRow("ipv6 in brackets") << list << QByteArray("[::1]") << 9000 << 4;
        QTest::newRow("ipv6 bare") << list << QByteArray("::1") << 9000 << 4;
        QTest::newRow("ipv6 written long") << list << QByteArray("[0:0:0:0:0:0:0:1]") << 9000 << 4;
        QTest::newRow("ipv6 other port") << list << QByteArray("[::1]") << 8080 << -1;
        QTest::newRow("ipv6 with zone") << list << QByteArray("[::1%lo]") << 9000 << -1;
        QTest::newRow("ipv6 unclosed") << list << QByteArray("[::1") << 9000 << -1;
        QTest::newRow("ipv6 ipv4-compatible of a listed v4")
            << list << QByteArray("[::127.0.0.1]") << 8080 << -1;
        QTest::newRow("documentation literal default port") << list << QByteArray("192.0.2.7") << 443 << 5;
        QTest::newRow("localhost is a name, not the literal")
            << list << QByteArray("localhost") << 8080 << -1;

        const QString pair = "allow:allowed.com,*.allowed.com";
        QTest::newRow("pair: exact") << pair << QByteArray("allowed.com") << 443 << 0;
        QTest::newRow("pair: subdomain") << pair << QByteArray("evil.com.allowed.com") << 443 << 1;
        QTest::newRow("pair: allowed as prefix") << pair << QByteArray("allowed.com.evil.com") << 443 << -1;
        QTest::newRow("pair: dot dropped") << pair << QByteArray("allowedcom") << 443 << -1;
        QTest::newRow("pair: suffix without dot") << pair << QByteArray("xallowed.com") << 443 << -1;
        QTest::newRow("pair: longer name ending in the suffix")
            << pair << QByteArray("notallowed.com") << 443 << -1;
        QTest::newRow("pair: hyphen before suffix") << pair << QByteArray("evil-allowed.com") << 443 << -1;

        QTest::newRow("name rule never matches its address")
            << "allow:pypi.org" << QByteArray("151.101.0.223") << 443 << -1;
        QTest::newRow("address rule never matches a name")
            << "allow:151.101.0.223" << QByteArray("pypi.org") << 443 << -1;
        QTest::newRow("wildcard never matches an address")
            << "allow:*.example.com" << QByteArray("127.0.0.1") << 443 << -1;
    }

    void matchHost() {
        QFETCH(QString, rules);
        QFETCH(QByteArray, host);
        QFETCH(int, port);
        QFETCH(int, expected);
        const std::vector<HostRule> parsed = rulesOf(rules.toStdString());
        QVERIFY(!parsed.empty());
        const HostRule* rule = warren::control::matchHost(
            parsed, std::string_view(host.constData(), static_cast<std::size_t>(host.size())),
            static_cast<std::uint16_t>(port));
        const int index = rule ? static_cast<int>(rule - parsed.data()) : -1;
        QCOMPARE(index, expected);
    }

    void addressLiteral_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical"); // empty: refused
        QTest::newRow("ipv4") << "203.0.113.7"
                              << "203.0.113.7";
        QTest::newRow("ipv4 zeros") << "0.0.0.0"
                                    << "0.0.0.0";
        QTest::newRow("ipv4 broadcast") << "255.255.255.255"
                                        << "255.255.255.255";
        QTest::newRow("ipv6 loopback") << "::1"
                                       << "::1";
        QTest::newRow("ipv6 upper case") << "2001:DB8::1"
                                         << "2001:db8::1";
        QTest::newRow("ipv6 full") << "2001:0db8:0000:0000:0000:0000:0000:0001"
                                   << "2001:db8::1";
        QTest::newRow("ipv6 mapped dotted") << "::ffff:127.0.0.1"
                                            << "::ffff:127.0.0.1";
        QTest::newRow("name") << "pypi.org" << QString();
        QTest::newRow("empty") << "" << QString();
        QTest::newRow("ipv4 one number") << "2130706433" << QString();
        QTest::newRow("ipv4 hex part") << "0x7f.0.0.1" << QString();
        QTest::newRow("ipv4 three parts") << "127.0.1" << QString();
        QTest::newRow("ipv4 leading zero") << "127.0.0.01" << QString();
        QTest::newRow("ipv4 sign") << "+127.0.0.1" << QString();
        QTest::newRow("ipv4 space") << " 127.0.0.1" << QString();
        QTest::newRow("ipv4 empty part") << "127..0.1" << QString();
        QTest::newRow("ipv6 brackets") << "[::1]" << QString();
        QTest::newRow("ipv6 zone") << "fe80::1%1" << QString();
        QTest::newRow("ipv6 group too long") << "2001:00db8::1" << QString();
        QTest::newRow("ipv6 too many groups") << "1:2:3:4:5:6:7:8:9" << QString();
        QTest::newRow("ipv6 triple colon") << ":::1" << QString();
        QTest::newRow("ipv6 shortened embedded ipv4") << "::ffff:127.1" << QString();
        QTest::newRow("ipv6 leading-zero embedded ipv4") << "::ffff:127.0.0.01" << QString();
    }

    void addressLiteral() {
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        const auto address = parseAddressLiteral(text.toStdString());
        QCOMPARE(address ? address->toString() : QString(), canonical);
    }

    void internalAddress_data() {
        QTest::addColumn<QString>("address");
        QTest::addColumn<bool>("internal");
        struct Row {
            const char* address;
            bool internal;
        };
        // Each IPv4 range at both ends with its public neighbours; then IPv6, and IPv4 carried inside it
        // (mapped, IPv4-compatible, translated, NAT64, 6to4); a zone names a local interface.
        const Row rows[] = {
            {"0.0.0.0", true},
            {"0.255.255.255", true},
            {"1.0.0.0", false},
            {"9.255.255.255", false},
            {"10.0.0.0", true},
            {"10.255.255.255", true},
            {"11.0.0.0", false},
            {"100.63.255.255", false},
            {"100.64.0.0", true},
            {"100.127.255.255", true},
            {"100.128.0.0", false},
            {"126.255.255.255", false},
            {"127.0.0.0", true},
            {"127.0.0.1", true},
            {"127.255.255.255", true},
            {"128.0.0.0", false},
            {"169.253.255.255", false},
            {"169.254.0.0", true},
            {"169.254.169.254", true},
            {"169.254.255.255", true},
            {"169.255.0.0", false},
            {"172.15.255.255", false},
            {"172.16.0.0", true},
            {"172.31.255.255", true},
            {"172.32.0.0", false},
            {"191.255.255.255", false},
            {"192.0.0.0", true},
            {"192.0.0.255", true},
            {"192.0.1.0", false},
            {"192.0.2.0", true},
            {"192.0.2.255", true},
            {"192.0.3.0", false},
            {"192.88.99.1", true},
            {"192.167.255.255", false},
            {"192.168.0.0", true},
            {"192.168.255.255", true},
            {"192.169.0.0", false},
            {"198.17.255.255", false},
            {"198.18.0.0", true},
            {"198.19.255.255", true},
            {"198.20.0.0", false},
            {"198.51.99.255", false},
            {"198.51.100.0", true},
            {"198.51.100.255", true},
            {"198.51.101.0", false},
            {"203.0.112.255", false},
            {"203.0.113.0", true},
            {"203.0.113.255", true},
            {"203.0.114.0", false},
            {"223.255.255.255", false},
            {"224.0.0.0", true},
            {"239.255.255.255", true},
            {"240.0.0.0", true},
            {"255.255.255.254", true},
            {"255.255.255.255", true},
            {"8.8.8.8", false},
            {"151.101.0.223", false},
            {"::", true},
            {"::1", true},
            {"::ffff:127.0.0.1", true},
            {"::ffff:7f00:1", true},
            {"::ffff:10.1.2.3", true},
            {"::ffff:169.254.169.254", true},
            {"::ffff:0.0.0.0", true},
            {"::ffff:8.8.8.8", false},
            {"::127.0.0.1", true},
            {"::8.8.8.8", true},
            {"::ffff:0:127.0.0.1", true},
            {"::ffff:0:8.8.8.8", false},
            {"64:ff9b::127.0.0.1", true},
            {"64:ff9b::a9fe:a9fe", true},
            {"64:ff9b::192.168.1.1", true},
            {"64:ff9b::8.8.8.8", false},
            {"64:ff9b:1::8.8.8.8", true},
            {"2002:7f00:1::", true},
            {"2002:a9fe:a9fe::1", true},
            {"2002:808:808::1", false},
            {"fe80::1", true},
            {"febf:ffff::1", true},
            {"fec0::1", true},
            {"fc00::1", true},
            {"fd00:ec2::254", true},
            {"fdff:ffff::1", true},
            {"ff00::", true},
            {"ff02::1", true},
            {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
            {"2001:db8::1", true},
            {"2001:db8:ffff:ffff::1", true},
            {"2001:db9::1", false},
            {"2001::1", true},
            {"2001:1ff:ffff::1", true},
            {"2001:200::1", false},
            {"3fff::1", true},
            {"3fff:fff:ffff::1", true},
            {"3fff:1000::1", false},
            {"100::1", true},
            {"1fff:ffff::1", true},
            {"4000::1", true},
            {"2a04:4e42::223", false},
            {"2606:4700:4700::1111", false},
            {"2000::1", false},
            {"3ffe:ffff::1", false},
            {"fe80::1%1", true},
            {"2a04:4e42::223%1", true},
        };
        for (const Row& row : rows)
            QTest::newRow(row.address) << QString::fromLatin1(row.address) << row.internal;
    }

    void internalAddress() {
        QFETCH(QString, address);
        QFETCH(bool, internal);
        const QHostAddress parsed(address);
        QVERIFY2(!parsed.isNull(), qPrintable(address));
        QCOMPARE(isInternalAddress(parsed), internal);
    }

    void addressAllowed_data() {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("address");
        QTest::addColumn<bool>("allowed");
        QTest::newRow("name to public ipv4") << "allow:pypi.org"
                                             << "151.101.0.223" << true;
        QTest::newRow("name to public ipv6") << "allow:pypi.org"
                                             << "2a04:4e42::223" << true;
        QTest::newRow("name to loopback (rebinding)") << "allow:pypi.org"
                                                      << "127.0.0.1" << false;
        QTest::newRow("name to metadata service") << "allow:*.pythonhosted.org"
                                                  << "169.254.169.254" << false;
        QTest::newRow("name to private") << "allow:pypi.org"
                                         << "10.0.0.5" << false;
        QTest::newRow("name to mapped loopback") << "allow:pypi.org"
                                                 << "::ffff:127.0.0.1" << false;
        QTest::newRow("name to nat64 metadata") << "allow:pypi.org"
                                                << "64:ff9b::169.254.169.254" << false;
        QTest::newRow("name to ipv6 loopback") << "allow:pypi.org"
                                               << "::1" << false;
        QTest::newRow("name to unique-local") << "allow:pypi.org"
                                              << "fd00::1" << false;
        QTest::newRow("localhost name to loopback") << "allow:localhost"
                                                    << "127.0.0.1" << false;
        QTest::newRow("literal loopback to itself") << "allow:127.0.0.1:8080"
                                                    << "127.0.0.1" << true;
        QTest::newRow("literal loopback to a neighbour") << "allow:127.0.0.1:8080"
                                                         << "127.0.0.2" << false;
        QTest::newRow("literal loopback to its mapped form") << "allow:127.0.0.1:8080"
                                                             << "::ffff:127.0.0.1" << false;
        QTest::newRow("literal public to another public") << "allow:8.8.8.8"
                                                          << "8.8.4.4" << false;
        QTest::newRow("literal public to itself") << "allow:8.8.8.8"
                                                  << "8.8.8.8" << true;
        QTest::newRow("literal documentation to itself") << "allow:192.0.2.7"
                                                         << "192.0.2.7" << true;
        QTest::newRow("literal ipv6 loopback to itself") << "allow:[::1]:9000"
                                                         << "0:0:0:0:0:0:0:1" << true;
        QTest::newRow("literal ipv6 link-local to itself with zone") << "allow:[fe80::1]"
                                                                     << "fe80::1%1" << false;
        QTest::newRow("literal mapped to itself") << "allow:[::ffff:127.0.0.1]:8080"
                                                  << "::ffff:127.0.0.1" << true;
    }

    void addressAllowed() {
        QFETCH(QString, rule);
        QFETCH(QString, address);
        QFETCH(bool, allowed);
        const std::vector<HostRule> rules = rulesOf(rule.toStdString());
        QCOMPARE(rules.size(), std::size_t{1});
        const QHostAddress parsed(address);
        QVERIFY(!parsed.isNull());
        QCOMPARE(warren::control::addressAllowed(rules.front(), parsed), allowed);
    }

    void nullAddressRefused() {
        QVERIFY(!warren::control::addressAllowed(rulesOf("allow:pypi.org").front(), QHostAddress()));
        QVERIFY(isInternalAddress(QHostAddress()));
    }

    // --resolve HOST:PORT:ADDRESS, and which requests it pins.
    void pinnedAddresses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected"); // host:port=address, or the error's words
        QTest::newRow("ipv4") << "API.Example.Test.:8443:127.0.0.1" << "api.example.test:8443=127.0.0.1";
        QTest::newRow("ipv6 in brackets") << "a.test:443:[::1]" << "a.test:443=::1";
        QTest::newRow("ipv6 bare") << "a.test:443:::1" << "a.test:443=::1";
        QTest::newRow("no address") << "a.test:443" << "is not HOST:PORT:ADDRESS";
        QTest::newRow("an address as host") << "127.0.0.1:443:127.0.0.2" << "HOST must be a DNS name";
        QTest::newRow("port 0") << "a.test:0:127.0.0.1" << "PORT must be a number";
        QTest::newRow("a name as address") << "a.test:443:b.test" << "ADDRESS must be an IPv4 or IPv6";
        QTest::newRow("a loose ipv4 spelling") << "a.test:443:127.1" << "ADDRESS must be an IPv4 or IPv6";
        QTest::newRow("several, in order") << "a.test:443:127.0.0.2,[::1],127.0.0.1" << "a.test:443=127.0.0.2,::1,127.0.0.1";
        QTest::newRow("an empty one") << "a.test:443:127.0.0.1," << "ADDRESS must be an IPv4 or IPv6";
        QTest::newRow("a name among them") << "a.test:443:127.0.0.1,b.test" << "ADDRESS must be an IPv4 or IPv6";
        QTest::newRow("too many") << "a.test:443:1.1.1.1,1.1.1.2,1.1.1.3,1.1.1.4,1.1.1.5,1.1.1.6,1.1.1.7,1.1.1.8,1.1.1.9"
                                  << "at most 8 addresses";
    }
    void pinnedAddresses() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const auto pinned = parsePinnedAddress(text.toStdString());
        if (!pinned) {
            QVERIFY2(pinned.error().message.find(expected.toStdString()) != std::string::npos,
                     pinned.error().message.c_str());
            return;
        }
        QStringList addresses;
        for (const QHostAddress& address : pinned->addresses)
            addresses << address.toString();
        QCOMPARE(QString::fromStdString(pinned->host + ":" + std::to_string(pinned->port)) + "=" + addresses.join(','),
                 expected);
        const std::vector<PinnedAddress> all{*pinned};
        QVERIFY(findPinned(all, text.section(':', 0, 0).toStdString(), pinned->port) != nullptr);
        QVERIFY(findPinned(all, pinned->host, std::uint16_t(pinned->port + 1)) == nullptr);
        QVERIFY(findPinned(all, "other.test", pinned->port) == nullptr);
    }
};

QTEST_APPLESS_MAIN(TestEgressPolicy)
#include "tst_egress_policy.moc"
