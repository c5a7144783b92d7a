// `warrend admin`: the argument parser (pure, data-driven), the commands against a real PostgreSQL
// (add-user prints one key alone on stdout, list-users shows no secret, set-quota sets and clears, bad
// arguments exit 2 and create nothing), and the warrend executable's dispatch.

#include "server/accounts/AdminCommand.h"
#include "server/accounts/ApiKey.h"
#include "tests/support/PostgresServer.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace warren;
using namespace warren::accounts;

namespace {

std::vector<std::string> split(const QString& line) {
    std::vector<std::string> out;
    for (const QString& word : line.split(' ', Qt::SkipEmptyParts))
        out.push_back(word.toStdString());
    return out;
}

struct Run {
    int code = 0;
    std::string out, err;
};

} // namespace

class TestAdminCommand : public QObject {
    Q_OBJECT

    std::unique_ptr<test::PostgresServer> m_server;
    std::string m_url;

    Run admin(std::vector<std::string> args, const std::string& input = {}) {
        args.insert(args.begin(), {"--database", m_url});
        std::istringstream in(input);
        std::ostringstream out, err;
        const int code = runAdmin(args, in, out, err);
        return Run{code, out.str(), err.str()};
    }

    std::uint64_t count(const std::string& sql) {
        auto store = AccountStore::open(m_url);
        if (!store)
            qFatal("%s", store.error().message.c_str());
        auto reply = store->connection().exec("count", sql.c_str());
        if (!reply)
            qFatal("%s", reply.error().message.c_str());
        return reply->rows.at(0).uint(0);
    }

private slots:
    void initTestCase() {
        QString error;
        m_server = test::PostgresServer::start(&error);
        QVERIFY2(m_server, qPrintable(error));
        m_url = m_server->url().toStdString();
    }

    void parse_data() {
        QTest::addColumn<QString>("args");
        QTest::addColumn<QString>("error"); // empty: parsed
        QTest::newRow("add-user") << "--database U add-user alice"
                                  << "";
        QTest::newRow("add-user-tenant") << "--database U add-user alice --tenant acme"
                                         << "";
        QTest::newRow("option-equals") << "--database=U add-user alice --tenant=acme"
                                       << "";
        QTest::newRow("database-after") << "add-user alice --database U"
                                        << "";
        QTest::newRow("set-quota-tenant") << "--database U set-quota --tenant acme --max-concurrent 2"
                                          << "";
        QTest::newRow("set-quota-every-limit")
            << "--database U set-quota --user a --max-concurrent 0 --memory-mb 1 --pids 2 --cpu-seconds 3 "
               "--timeout-sec 4 --file-size-mb 5 --tokens-per-month 0"
            << "";
        QTest::newRow("set-quota-clear") << "--database U set-quota --user a --clear memory-mb --clear pids"
                                         << "";
        QTest::newRow("clear-by-key") << "--database U set-quota --user a --clear max_concurrent"
                                      << "";
        QTest::newRow("list-users-json") << "--database U list-users --json"
                                         << "";
        QTest::newRow("list-tenants") << "--database U list-tenants"
                                      << "";
        QTest::newRow("list-tenants-limit") << "--database U list-tenants --pids 2"
                                            << "limits do not apply to list-tenants";
        QTest::newRow("revoke-prefix") << "--database U revoke-key wrn_abcdefgh"
                                       << "";
        QTest::newRow("nothing") << ""
                                 << "a command is missing";
        QTest::newRow("no-database") << "add-user alice"
                                     << "--database URL is missing";
        QTest::newRow("empty-database") << "--database= add-user alice"
                                        << "--database URL is missing";
        QTest::newRow("database-no-value") << "add-user alice --database"
                                           << "--database needs a value";
        QTest::newRow("unknown-command") << "--database U remove-user alice"
                                         << "unknown command \"remove-user\"";
        QTest::newRow("unknown-option") << "--database U set-quota --user a --cpus 2"
                                        << "unknown option --cpus";
        QTest::newRow("add-user-no-name") << "--database U add-user"
                                          << "add-user needs the new user's NAME";
        QTest::newRow("add-user-bad-name") << "--database U add-user -x"
                                           << "\"-x\" is not a user name";
        QTest::newRow("add-user-bad-chars") << "--database U add-user a;b"
                                            << "is not a user name";
        QTest::newRow("add-user-bad-tenant") << "--database U add-user a --tenant .t"
                                             << "is not a tenant name";
        QTest::newRow("add-user-extra") << "--database U add-user a b"
                                        << "unexpected argument \"b\"";
        QTest::newRow("add-user-limit") << "--database U add-user a --pids 3"
                                        << "limits do not apply to add-user";
        QTest::newRow("add-key-tenant") << "--database U add-key a --tenant t"
                                        << "--tenant does not apply to add-key";
        QTest::newRow("list-users-operand") << "--database U list-users a"
                                            << "list-users takes no argument";
        QTest::newRow("set-quota-neither") << "--database U set-quota --pids 3"
                                           << "exactly one of --tenant";
        QTest::newRow("set-quota-both") << "--database U set-quota --tenant t --user a --pids 3"
                                        << "exactly one of --tenant";
        QTest::newRow("set-quota-nothing") << "--database U set-quota --tenant t"
                                           << "at least one limit";
        QTest::newRow("set-quota-zero-memory") << "--database U set-quota --tenant t --memory-mb 0"
                                               << "from 1 to";
        QTest::newRow("set-quota-negative") << "--database U set-quota --tenant t --pids -1"
                                            << "whole number";
        QTest::newRow("set-quota-plus") << "--database U set-quota --tenant t --pids +1"
                                        << "whole number";
        QTest::newRow("set-quota-word") << "--database U set-quota --tenant t --pids many"
                                        << "whole number";
        QTest::newRow("set-quota-overflow") << "--database U set-quota --tenant t --pids 99999999999999999999"
                                            << "whole number";
        QTest::newRow("set-quota-too-large") << "--database U set-quota --tenant t --pids 9223372036854775808"
                                             << "from 1 to 9223372036854775807";
        QTest::newRow("set-quota-twice") << "--database U set-quota --tenant t --pids 1 --clear pids"
                                         << "--pids is given twice";
        QTest::newRow("clear-unknown") << "--database U set-quota --tenant t --clear cpus"
                                       << "--clear takes";
        QTest::newRow("tenant-twice") << "--database U set-quota --tenant t --tenant u --pids 1"
                                      << "--tenant is given twice";
        QTest::newRow("json-value") << "--database U list-users --json=yes"
                                    << "--json takes no value";
        QTest::newRow("set-secret") << "--database U set-secret GH --tenant t --host api.github.com --header "
                                       "X-Token:{} --in-body --provider-key-secret F"
                                    << "";
        QTest::newRow("delete-secret") << "--database U delete-secret GH --tenant t"
                                       << "";
        QTest::newRow("list-secrets") << "--database U list-secrets --tenant t --json"
                                      << "";
        QTest::newRow("secret-without-tenant") << "--database U set-secret GH --host h --provider-key-secret F"
                                               << "needs --tenant T";
        QTest::newRow("secret-for-a-user") << "--database U delete-secret GH --tenant t --user a"
                                           << "--user does not apply to delete-secret";
        QTest::newRow("secret-without-hosts") << "--database U set-secret GH --tenant t --provider-key-secret F"
                                              << "needs --host";
        QTest::newRow("secret-without-seal") << "--database U set-secret GH --tenant t --host h"
                                             << "needs --provider-key-secret";
        QTest::newRow("secret-without-name") << "--database U delete-secret --tenant t"
                                             << "needs the secret's NAME";
        QTest::newRow("in-body-value") << "--database U set-secret GH --tenant t --host h --in-body=no"
                                       << "--in-body takes no value";
        QTest::newRow("list-secrets-name") << "--database U list-secrets GH --tenant t"
                                           << "takes no argument";
        QTest::newRow("set-mcp-servers") << "--database U set-mcp-servers --tenant t servers.json"
                                         << "";
        QTest::newRow("set-mcp-servers-no-file") << "--database U set-mcp-servers --tenant t"
                                                 << "needs a .mcp.json FILE";
        QTest::newRow("set-mcp-servers-no-tenant") << "--database U set-mcp-servers servers.json"
                                                   << "needs --tenant T";
        QTest::newRow("delete-mcp-servers") << "--database U delete-mcp-servers --tenant t"
                                            << "";
        QTest::newRow("delete-mcp-servers-operand") << "--database U delete-mcp-servers x --tenant t"
                                                    << "takes no argument";
        QTest::newRow("list-mcp-servers") << "--database U list-mcp-servers --json"
                                          << "";
        QTest::newRow("list-mcp-servers-user") << "--database U list-mcp-servers --user a"
                                               << "--user does not apply to list-mcp-servers";
        QTest::newRow("install-skills") << "--database U install-skills --tenant t --data-dir D pack"
                                        << "";
        QTest::newRow("install-skills-no-data-dir") << "--database U install-skills --tenant t pack"
                                                    << "needs --data-dir DIR";
        QTest::newRow("install-skills-no-folder") << "--database U install-skills --tenant t --data-dir D"
                                                  << "needs a FOLDER";
        QTest::newRow("install-skills-tenant-up") << "--database U install-skills --tenant ../x --data-dir D pack"
                                                  << "is not a tenant name";
        QTest::newRow("install-skills-tenant-slash") << "--database U install-skills --tenant a/b --data-dir D pack"
                                                     << "is not a tenant name";
        QTest::newRow("remove-skill") << "--database U remove-skill notes --tenant t --data-dir D"
                                      << "";
        QTest::newRow("remove-skill-no-name") << "--database U remove-skill --tenant t --data-dir D"
                                              << "needs the skill's NAME";
        QTest::newRow("list-skills") << "--database U list-skills --tenant t --data-dir D --json"
                                     << "";
    }

    void parse() {
        QFETCH(QString, args);
        QFETCH(QString, error);
        const auto parsed = parseAdminArguments(split(args));
        if (error.isEmpty()) {
            QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
            QVERIFY(parsed->has_value());
            return;
        }
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(QString::fromStdString(parsed.error().message).contains(error),
                 parsed.error().message.c_str());
    }

    void parsedValues() {
        auto parsed =
            parseAdminArguments(split("--database U set-quota --user a --memory-mb 512 --clear pids"));
        QVERIFY(parsed.ok());
        const auto& quota = std::get<AdminSetQuota>((*parsed)->action);
        QCOMPARE(quota.user, std::optional<std::string>("a"));
        QCOMPARE(quota.changes.size(), std::size_t(2));
        QCOMPARE(quota.changes[0].limit, LimitName::MemoryMb);
        QCOMPARE(quota.changes[0].value, std::optional<std::uint64_t>(512));
        QCOMPARE(quota.changes[1].limit, LimitName::Pids);
        QVERIFY(!quota.changes[1].value);
        QCOMPARE(
            std::get<AdminAddUser>((*parseAdminArguments(split("--database U add-user a")))->action).tenant,
            std::string("default"));
        auto help = parseAdminArguments(split("add-user --help"));
        QVERIFY(help.ok() && !help->has_value());
    }

    void addUserPrintsOneKeyAlone() {
        const Run run = admin({"add-user", "alice", "--tenant", "acme"});
        QCOMPARE(run.code, 0);
        QVERIFY(run.out.ends_with("\n"));
        const std::string key = run.out.substr(0, run.out.size() - 1);
        QVERIFY2(api_key::isWellFormed(key), run.out.c_str());
        QVERIFY(run.err.find(key) == std::string::npos);
        QCOMPARE(count("SELECT count(*) FROM tenants WHERE name = 'acme'"), std::uint64_t(1));
        // The key works; the database has its hash and nowhere its text.
        auto store = AccountStore::open(m_url);
        QVERIFY(store);
        QVERIFY(*store->authenticate(key));
        QCOMPARE(count("SELECT count(*) FROM api_keys WHERE key_hash = '" + api_key::hash(key) + "'"),
                 std::uint64_t(1));
        const std::string body = key.substr(kApiKeyPrefix.size());
        QCOMPARE(count("SELECT count(*) FROM api_keys k WHERE strpos(k::text, '" + body + "') > 0"),
                 std::uint64_t(0));
        // Another key, and list-users shows both prefixes but neither key.
        const Run second = admin({"add-key", "alice"});
        QCOMPARE(second.code, 0);
        const std::string key2 = second.out.substr(0, second.out.size() - 1);
        QVERIFY(api_key::isWellFormed(key2) && key2 != key);
        for (const bool json : {false, true}) {
            const Run list = admin(json ? std::vector<std::string>{"list-users", "--json"}
                                        : std::vector<std::string>{"list-users"});
            QCOMPARE(list.code, 0);
            QVERIFY(list.out.find("alice") != std::string::npos);
            QVERIFY(list.out.find(api_key::displayPrefix(key)) != std::string::npos);
            QVERIFY(list.out.find(api_key::displayPrefix(key2)) != std::string::npos);
            QVERIFY(list.out.find(key) == std::string::npos && list.out.find(key2) == std::string::npos);
            QVERIFY(list.out.find(api_key::hash(key)) == std::string::npos);
        }
        // Revoke one by its prefix.
        const Run revoked = admin({"revoke-key", api_key::displayPrefix(key)});
        QCOMPARE(revoked.code, 0);
        QCOMPARE(revoked.out, std::string("revoked 1 key\n"));
        QVERIFY(!*store->authenticate(key));
        QVERIFY(*store->authenticate(key2));
    }

    void takenNameFailsAndCreatesNothing() {
        QCOMPARE(admin({"add-user", "bob"}).code, 0);
        const std::uint64_t keys = count("SELECT count(*) FROM api_keys");
        const Run again = admin({"add-user", "bob", "--tenant", "elsewhere"});
        QCOMPARE(again.code, 1);
        QVERIFY(again.out.empty());
        QVERIFY2(again.err.find("exists already") != std::string::npos, again.err.c_str());
        QCOMPARE(count("SELECT count(*) FROM api_keys"), keys);
        QCOMPARE(count("SELECT count(*) FROM tenants WHERE name = 'elsewhere'"), std::uint64_t(0));
    }

    void setQuotaSetsAndClears() {
        QCOMPARE(admin({"add-user", "carol", "--tenant", "quota"}).code, 0);
        Run run = admin({"set-quota", "--tenant", "quota", "--max-concurrent", "4", "--memory-mb", "2048"});
        QCOMPARE(run.code, 0);
        run = admin({"set-quota", "--user", "carol", "--memory-mb", "512", "--tokens-per-month", "1000"});
        QCOMPARE(run.code, 0);
        QCOMPARE(count("SELECT memory_mb FROM users WHERE name = 'carol'"), std::uint64_t(512));
        QCOMPARE(count("SELECT max_concurrent FROM tenants WHERE name = 'quota'"), std::uint64_t(4));
        run = admin({"set-quota", "--user", "carol", "--clear", "memory-mb"});
        QCOMPARE(run.code, 0);
        QCOMPARE(count("SELECT count(*) FROM users WHERE name = 'carol' AND memory_mb IS NULL"),
                 std::uint64_t(1));
        QCOMPARE(count("SELECT tokens_per_month FROM users WHERE name = 'carol'"), std::uint64_t(1000));
        const Run tenants = admin({"list-tenants", "--json"});
        QCOMPARE(tenants.code, 0);
        const auto list = nlohmann::json::parse(tenants.out);
        const auto quota =
            std::find_if(list.begin(), list.end(), [](const auto& t) { return t["name"] == "quota"; });
        QVERIFY(quota != list.end());
        QCOMPARE((*quota)["users"].get<int>(), 1);
        QCOMPARE((*quota)["quota"]["max_concurrent"].get<int>(), 4);
        QCOMPARE((*quota)["quota"]["memory_mb"].get<int>(), 2048);
        QVERIFY((*quota)["quota"]["pids"].is_null());
        const Run text = admin({"list-tenants"});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.find("quota\t") != std::string::npos, text.out.c_str());
        QVERIFY(text.out.find("max_concurrent=4,memory_mb=2048") != std::string::npos);
        run = admin({"set-quota", "--tenant", "no-such", "--pids", "3"});
        QCOMPARE(run.code, 1);
        QVERIFY2(run.err.find("no tenant named") != std::string::npos, run.err.c_str());
    }

    void badArgumentsExitTwoAndTouchNothing() {
        const std::uint64_t users = count("SELECT count(*) FROM users");
        for (const auto& args :
             std::vector<std::vector<std::string>>{{"add-user"},
                                                   {"add-user", "x y"},
                                                   {"add-user", "dan", "--pids", "2"},
                                                   {"frobnicate"},
                                                   {"set-quota", "--user", "carol", "--memory-mb", "0"}}) {
            const Run run = admin(args);
            QCOMPARE(run.code, 2);
            QVERIFY(run.out.empty());
            QVERIFY(run.err.find("usage: warrend admin") != std::string::npos);
        }
        QCOMPARE(count("SELECT count(*) FROM users"), users);
        QCOMPARE(count("SELECT (memory_mb IS NULL)::int FROM users WHERE name = 'carol'"), std::uint64_t(1));
        // A database that cannot be reached is the command's failure, not a usage error.
        std::istringstream in;
        std::ostringstream out, err;
        QCOMPARE(runAdmin({"--database", "postgresql:///x?host=/nonexistent", "list-users"}, in, out, err), 1);
        QVERIFY(out.str().empty());
    }

    // A tenant's secret: set from stdin, sealed (its value in no column, no output), listed without it,
    // replaced, removed; the operator's file must be a good one, the tenant must exist.
    void tenantSecretsAreSealedAndListedWithoutTheirValue() {
        QVERIFY(admin({"add-user", "frank", "--tenant", "labs"}).code == 0);
        QTemporaryDir dir;
        const std::string seal = (dir.path() + "/seal").toStdString();
        {
            QFile file(QString::fromStdString(seal));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray(32, 'k'));
            file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        }
        const std::string value = "tenant-value-9f3c1e";
        Run run = admin({"set-secret", "LAB_TOKEN", "--tenant", "labs", "--host", "api.example.com", "--header",
                         "X-Lab: {}", "--provider-key-secret", seal},
                        value + "\n");
        QVERIFY2(run.code == 0, run.err.c_str());
        QVERIFY2(run.out.find("tenant labs: secret LAB_TOKEN for api.example.com") != std::string::npos, run.out.c_str());
        QCOMPARE(count("SELECT count(*) FROM tenant_secrets WHERE name = 'LAB_TOKEN' AND strpos(ciphertext::text, "
                       "'tenant-value') = 0 AND strpos(hosts || header, 'tenant-value') = 0"),
                 std::uint64_t(1));
        run = admin({"list-secrets", "--tenant", "labs"});
        QCOMPARE(run.code, 0);
        QVERIFY2(run.out.find("LAB_TOKEN\tapi.example.com\tX-Lab: {}\theaders only\t") != std::string::npos,
                 run.out.c_str());
        QVERIFY(run.out.find(value) == std::string::npos);
        // Refused: no value, an unknown tenant, a bad file, a bad binding; none repeats the value.
        for (const auto& [args, input, says] : std::vector<std::tuple<std::vector<std::string>, std::string, std::string>>{
                 {{"set-secret", "EMPTY", "--tenant", "labs", "--host", "h.example", "--provider-key-secret", seal},
                  "\n", "no value on stdin"},
                 {{"set-secret", "X", "--tenant", "nobody", "--host", "h.example", "--provider-key-secret", seal},
                  value, "no tenant nobody"},
                 {{"set-secret", "X", "--tenant", "labs", "--host", "h.example", "--provider-key-secret",
                   seal + ".missing"},
                  value, seal + ".missing"},
                 {{"set-secret", "X", "--tenant", "labs", "--host", "*.com", "--provider-key-secret", seal}, value,
                  "*.com"}}) {
            run = admin(args, input);
            QVERIFY2(run.code == 1, run.err.c_str());
            QVERIFY2(run.err.find(says) != std::string::npos, run.err.c_str());
            QVERIFY(run.err.find(value) == std::string::npos && run.out.find(value) == std::string::npos);
        }
        run = admin({"delete-secret", "LAB_TOKEN", "--tenant", "labs"});
        QVERIFY2(run.code == 0, run.err.c_str());
        run = admin({"delete-secret", "LAB_TOKEN", "--tenant", "labs"});
        QCOMPARE(run.code, 1);
        QVERIFY2(run.err.find("has no secret LAB_TOKEN") != std::string::npos, run.err.c_str());
        QCOMPARE(count("SELECT count(*) FROM tenant_secrets"), std::uint64_t(0));
    }

    // A tenant's MCP servers: read by the agent's reader before they are stored (an entry it would skip is
    // refused, named), listed to the operator without any env or header value, replaced whole, removed.
    void tenantMcpServersAreCheckedAndListedWithoutValues() {
        QVERIFY(admin({"add-user", "gina", "--tenant", "tools"}).code == 0);
        QTemporaryDir dir;
        const auto write = [&](const std::string& name, const std::string& text) {
            const std::string path = (dir.path() + "/").toStdString() + name;
            QFile file(QString::fromStdString(path));
            if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), qint64(text.size())) != qint64(text.size()))
                qFatal("cannot write %s", path.c_str());
            return path;
        };
        const nlohmann::json servers = {
            {"docs", {{"command", "docs-server"}, {"args", {"--ro"}}, {"env", {{"DOCS_TOKEN", "env-value-3b9d"}}}}},
            {"issues",
             {{"type", "http"},
              {"url", "https://issues.example/mcp"},
              {"headers", {{"Authorization", "Bearer header-value-77a1"}, {"X-Team", "${TEAM_TOKEN}"}}}}}};
        const std::string good = write("good.json", nlohmann::json{{"mcpServers", servers}}.dump());
        Run run = admin({"set-mcp-servers", "--tenant", "tools", good});
        QVERIFY2(run.code == 0, run.err.c_str());
        QVERIFY2(run.out.find("tenant tools: MCP servers docs (stdio), issues (http)") != std::string::npos,
                 run.out.c_str());
        run = admin({"list-mcp-servers"});
        QCOMPARE(run.code, 0);
        QVERIFY2(run.out.find("tools\tdocs\tstdio\t") != std::string::npos &&
                     run.out.find("tools\tissues\thttp\t") != std::string::npos,
                 run.out.c_str());
        run = admin({"list-mcp-servers", "--tenant", "tools", "--json"});
        QCOMPARE(run.code, 0);
        const auto listed = nlohmann::json::parse(run.out);
        QCOMPARE(listed.at(0)["servers"]["docs"]["env"], nlohmann::json({"DOCS_TOKEN"}));
        QCOMPARE(listed.at(0)["servers"]["issues"]["headers"], nlohmann::json({"Authorization", "X-Team"}));
        for (const char* value : {"env-value-3b9d", "header-value-77a1", "TEAM_TOKEN}"})
            QVERIFY2(run.out.find(value) == std::string::npos, run.out.c_str());
        QCOMPARE(count("SELECT count(*) FROM tenant_mcp_servers m JOIN tenants t ON t.id = m.tenant_id "
                       "WHERE t.name = 'tools' AND strpos(m.servers, 'docs-server') > 0"),
                 std::uint64_t(1));
        // Refused, with the reason, and the stored servers kept.
        for (const auto& [file, tenant, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
                 {write("skipped.json", R"({"mcpServers": {"ok": {"command": "a"}, "broken": {"args": ["x"]}}})"),
                  "tools", "server \"broken\" skipped: no \"command\""},
                 {write("remote.json", R"({"mcpServers": {"r": {"type": "http", "url": "ftp:x"}}})"), "tools",
                  "does not start with http:// or https://"},
                 {write("name.json", R"({"mcpServers": {"a b": {"command": "a"}}})"), "tools", "\"a b\" skipped"},
                 {write("none.json", R"({"mcpServers": {}})"), "tools", "declares no server"},
                 {write("shape.json", R"({"servers": {}})"), "tools", "has no \"mcpServers\""},
                 {write("json.json", "{"), "tools", "not JSON"},
                 {(dir.path() + "/missing.json").toStdString(), "tools", "missing.json"},
                 {good, "nobody", "no tenant nobody"}}) {
            run = admin({"set-mcp-servers", "--tenant", tenant, file});
            QVERIFY2(run.code == 1, run.err.c_str());
            QVERIFY2(run.err.find(says) != std::string::npos, run.err.c_str());
        }
        QVERIFY(admin({"list-mcp-servers", "--tenant", "tools"}).out.find("issues") != std::string::npos);
        // Replaced whole.
        run = admin({"set-mcp-servers", "--tenant", "tools", write("one.json", R"({"mcpServers": {"one": {"command": "o"}}})")});
        QVERIFY2(run.code == 0, run.err.c_str());
        run = admin({"list-mcp-servers", "--tenant", "tools"});
        QVERIFY2(run.out.find("one") != std::string::npos && run.out.find("issues") == std::string::npos, run.out.c_str());
        QVERIFY(admin({"delete-mcp-servers", "--tenant", "tools"}).code == 0);
        run = admin({"delete-mcp-servers", "--tenant", "tools"});
        QVERIFY2(run.code == 1 && run.err.find("has no MCP servers") != std::string::npos, run.err.c_str());
        QCOMPARE(count("SELECT count(*) FROM tenant_mcp_servers"), std::uint64_t(0));
    }

    // install-skills: for a tenant that exists, into the data directory given; remove-skill and list-skills.
    void tenantSkillsAreInstalledForATenantThatExists() {
        QVERIFY(admin({"add-user", "hank", "--tenant", "skilled"}).code == 0);
        QTemporaryDir data, pack;
        QVERIFY(QDir().mkpath(pack.filePath("notes")));
        QFile skill(pack.filePath("notes/SKILL.md"));
        QVERIFY(skill.open(QIODevice::WriteOnly));
        skill.write("---\nname: notes\ndescription: Take notes\n---\nWrite them down.\n");
        skill.close();
        const std::string dataDir = data.path().toStdString(), folder = pack.path().toStdString();
        Run run = admin({"install-skills", "--tenant", "nobody", "--data-dir", dataDir, folder});
        QVERIFY2(run.code == 1 && run.err.find("no tenant nobody") != std::string::npos, run.err.c_str());
        QVERIFY(!QFileInfo::exists(data.filePath("tenant-skills/nobody")));
        run = admin({"install-skills", "--tenant", "skilled", "--data-dir", dataDir, folder});
        QVERIFY2(run.code == 0, run.err.c_str());
        QVERIFY2(run.out == "tenant skilled: installed the skill notes (1 file, 61 bytes)\n", run.out.c_str());
        QVERIFY(QFile::exists(data.filePath("tenant-skills/skilled/notes/SKILL.md")));
        run = admin({"install-skills", "--tenant", "skilled", "--data-dir", dataDir, folder});
        QVERIFY2(run.code == 0 && run.out.find("replaced the skill notes") != std::string::npos, run.out.c_str());
        run = admin({"list-skills", "--tenant", "skilled", "--data-dir", dataDir});
        QCOMPARE(run.out, std::string("notes\n"));
        QVERIFY(admin({"remove-skill", "notes", "--tenant", "skilled", "--data-dir", dataDir}).code == 0);
        run = admin({"remove-skill", "notes", "--tenant", "skilled", "--data-dir", dataDir});
        QVERIFY2(run.code == 1 && run.err.find("has no skill notes") != std::string::npos, run.err.c_str());
        QVERIFY(!QFileInfo::exists(data.filePath("tenant-skills/skilled/notes")));
    }

    void warrendDispatches() {
        const QString warrend = qEnvironmentVariable("WARREND");
        QVERIFY2(!warrend.isEmpty(), "WARREND is not set");
        QProcess process;
        process.start(warrend, {"serve-nothing"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
        QVERIFY(process.readAllStandardOutput().isEmpty());
        QVERIFY(process.readAllStandardError().contains("unknown subcommand"));
        process.start(warrend, {"admin", "--database", QString::fromStdString(m_url), "add-user", "erin"});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 0);
        const QByteArray out = process.readAllStandardOutput();
        QVERIFY(out.endsWith('\n'));
        QVERIFY2(api_key::isWellFormed(out.chopped(1).toStdString()), out.constData());
    }

    void cleanupTestCase() { m_server.reset(); }
};

QTEST_GUILESS_MAIN(TestAdminCommand)
#include "tst_admin_command.moc"
