// Router: which route a method and a raw path reach, the parameters captured, and the 404/405/400 cases.

#include "server/http/Router.h"
#include "server/http/UrlDecoding.h"

#include <QTest>

using namespace warren::http;

class TestHttpRouter : public QObject {
    Q_OBJECT

private:
    static Router sample() {
        Router router;
        const auto named = [](const char* name) {
            return [name](const HttpRequest&, HttpReply reply) {
                reply.send(HttpResponse{200, {}, name});
            };
        };
        router.add("GET", "/v1/server", named("server"));
        router.add("GET", "/v1/tasks", named("list"));
        router.add("POST", "/v1/tasks", named("create"));
        router.add("GET", "/v1/tasks/{id}", named("show"));
        router.add("GET", "/v1/tasks/{id}/events/stream", named("stream"));
        router.add("POST", "/v1/tasks/{id}/approvals/{approval}", named("approve"));
        router.add("POST", "/v1/uploads", named("upload"), RouteOptions{1 << 30, true});
        return router;
    }

private slots:
    void matches_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QStringList>("parameters"); // name=value, sorted

        QTest::newRow("literal") << QByteArray("GET") << QByteArray("/v1/server") << "/v1/server"
                                 << QStringList{};
        QTest::newRow("same path, by method")
            << QByteArray("POST") << QByteArray("/v1/tasks") << "/v1/tasks" << QStringList{};
        QTest::newRow("one parameter")
            << QByteArray("GET") << QByteArray("/v1/tasks/42") << "/v1/tasks/{id}" << QStringList{"id=42"};
        QTest::newRow("parameter inside") << QByteArray("GET") << QByteArray("/v1/tasks/t-1/events/stream")
                                          << "/v1/tasks/{id}/events/stream" << QStringList{"id=t-1"};
        QTest::newRow("two parameters")
            << QByteArray("POST") << QByteArray("/v1/tasks/7/approvals/a9")
            << "/v1/tasks/{id}/approvals/{approval}" << QStringList{"approval=a9", "id=7"};
        QTest::newRow("encoded slash stays in its segment")
            << QByteArray("GET") << QByteArray("/v1/tasks/a%2Fb") << "/v1/tasks/{id}"
            << QStringList{"id=a/b"};
        QTest::newRow("encoded UTF-8") << QByteArray("GET") << QByteArray("/v1/tasks/%C3%A9t%C3%A9")
                                       << "/v1/tasks/{id}" << QStringList{"id=été"};
        QTest::newRow("HEAD reaches GET")
            << QByteArray("HEAD") << QByteArray("/v1/tasks/3") << "/v1/tasks/{id}" << QStringList{"id=3"};
    }
    void matches() {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, path);
        QFETCH(QString, pattern);
        QFETCH(QStringList, parameters);
        const Router router = sample();
        const auto result = router.match(method, path);
        const auto* found = std::get_if<RouteMatch>(&result);
        QVERIFY(found);
        QCOMPARE("/" + found->route->pattern.join('/'), pattern);
        QStringList actual;
        for (auto it = found->parameters.cbegin(); it != found->parameters.cend(); ++it)
            actual.append(it.key() + "=" + it.value());
        actual.sort();
        QCOMPARE(actual, parameters);
    }

    void refuses_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<QByteArray>("allow");

        QTest::newRow("unknown path")
            << QByteArray("GET") << QByteArray("/v2/server") << "404" << QByteArray();
        QTest::newRow("too long") << QByteArray("GET") << QByteArray("/v1/server/extra") << "404"
                                  << QByteArray();
        QTest::newRow("trailing slash is an empty segment")
            << QByteArray("GET") << QByteArray("/v1/tasks/") << "404" << QByteArray();
        QTest::newRow("empty parameter")
            << QByteArray("GET") << QByteArray("/v1/tasks//events/stream") << "404" << QByteArray();
        QTest::newRow("root") << QByteArray("GET") << QByteArray("/") << "404" << QByteArray();
        QTest::newRow("wrong method, one allowed")
            << QByteArray("DELETE") << QByteArray("/v1/server") << "405" << QByteArray("GET, HEAD");
        QTest::newRow("wrong method, several allowed")
            << QByteArray("PUT") << QByteArray("/v1/tasks") << "405" << QByteArray("GET, HEAD, POST");
        QTest::newRow("GET on a POST route")
            << QByteArray("GET") << QByteArray("/v1/uploads") << "405" << QByteArray("POST");
        QTest::newRow("method names are case-sensitive")
            << QByteArray("get") << QByteArray("/v1/server") << "405" << QByteArray("GET, HEAD");
        QTest::newRow("not absolute")
            << QByteArray("GET") << QByteArray("v1/server") << "400" << QByteArray();
        QTest::newRow("asterisk form") << QByteArray("OPTIONS") << QByteArray("*") << "400" << QByteArray();
        QTest::newRow("invalid UTF-8")
            << QByteArray("GET") << QByteArray("/v1/tasks/%FF") << "400" << QByteArray();
    }
    void refuses() {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, path);
        QFETCH(QString, outcome);
        QFETCH(QByteArray, allow);
        const auto result = sample().match(method, path);
        if (outcome == "404")
            QVERIFY(std::holds_alternative<NoSuchPath>(result));
        if (outcome == "400")
            QVERIFY(std::holds_alternative<MalformedPath>(result));
        if (outcome == "405") {
            const auto* wrong = std::get_if<MethodNotAllowed>(&result);
            QVERIFY(wrong);
            QCOMPARE(wrong->allow, allow);
        }
    }

    void routeOptions() {
        const Router router = sample();
        const auto upload = router.match("POST", "/v1/uploads");
        QCOMPARE(std::get<RouteMatch>(upload).route->options.maxBodyBytes, qint64(1) << 30);
        QVERIFY(std::get<RouteMatch>(upload).route->options.bodyToFile);
        const auto create = router.match("POST", "/v1/tasks");
        QCOMPARE(std::get<RouteMatch>(create).route->options.maxBodyBytes, qint64(1) << 20);
        QVERIFY(!std::get<RouteMatch>(create).route->options.bodyToFile);
    }

    void queryComponents_data() {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<QString>("decoded");
        QTest::newRow("plain") << QByteArray("after_seq") << "after_seq";
        QTest::newRow("plus is a space") << QByteArray("a+b") << "a b";
        QTest::newRow("encoded plus stays") << QByteArray("a%2Bb") << "a+b";
        QTest::newRow("UTF-8") << QByteArray("%E2%9C%93") << "✓";
        QTest::newRow("invalid escape kept") << QByteArray("100%") << "100%";
    }
    void queryComponents() {
        QFETCH(QByteArray, raw);
        QFETCH(QString, decoded);
        QCOMPARE(decodeQueryComponent(raw), decoded);
    }
};

QTEST_GUILESS_MAIN(TestHttpRouter)
#include "tst_http_router.moc"
