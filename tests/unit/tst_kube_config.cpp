// KubeConfig: the current context of a kubeconfig in YAML (as kubectl writes it) or JSON, credentials inline
// (base64) or in files beside it, and the pod's own service account; every error names the field and file.
#include "sandbox/cluster/client/KubeConfig.h"

#include <QtTest>
#include <map>

using namespace warren;
using namespace warren::kube;

namespace {

const std::string kPath = "/home/u/.kube/config";

// "Y2EtcGVt" is base64 of "ca-pem"; "Y2VydA==" of "cert"; "a2V5" of "key".
const char* kKubectlYaml = R"(apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: Y2EtcGVt
    server: https://203.0.113.7:6443
  name: prod
- cluster:
    server: http://127.0.0.1:8080
  name: local
contexts:
- context:
    cluster: prod
    user: admin
    namespace: agents
  name: prod-admin
- context:
    cluster: local
    user: ""
  name: local
current-context: prod-admin
preferences: {}
users:
- name: admin
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
)";

FileReader files(std::map<std::string, std::string> contents) {
    return [contents](const std::string& path) -> Result<std::string> {
        if (auto found = contents.find(path); found != contents.end())
            return found->second;
        return makeError(ErrorCode::NotFound, "cannot read " + path);
    };
}

} // namespace

class TestKubeConfig : public QObject {
    Q_OBJECT
private slots:
    void readsTheCurrentContext_data();
    void readsTheCurrentContext();
    void refusesWithTheFieldAndFile_data();
    void refusesWithTheFieldAndFile();
    void readsThePodsServiceAccount();
    void outsideAPodSaysSo();
};

void TestKubeConfig::readsTheCurrentContext_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("server");
    QTest::addColumn<QString>("ca");
    QTest::addColumn<QString>("cert");
    QTest::addColumn<QString>("token");
    QTest::addColumn<QString>("ns");

    QTest::newRow("kubectl's YAML, current context, inline data")
        << kKubectlYaml << "" << "https://203.0.113.7:6443" << "ca-pem" << "cert" << "" << "agents";
    QTest::newRow("another context, no user, default namespace")
        << kKubectlYaml << "local" << "http://127.0.0.1:8080" << "" << "" << "" << "default";
    QTest::newRow("JSON, files relative to the kubeconfig, token file")
        << R"({"clusters":[{"name":"c","cluster":{"server":"https://k.example:443/","certificate-authority":"ca.crt"}}],
              "users":[{"name":"u","user":{"tokenFile":"/var/tok"}}],
              "contexts":[{"name":"x","context":{"cluster":"c","user":"u","namespace":"n1"}}],
              "current-context":"x"})"
        << "" << "https://k.example:443" << "CA FROM FILE" << "" << "tok-from-file" << "n1";
    QTest::newRow("bearer token inline, quoted strings")
        << "clusters:\n- name: c\n  cluster:\n    server: \"https://[2001:db8::1]:6443\"\n"
           "users:\n- name: u\n  user:\n    token: 'abc.def'\n"
           "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"
        << "" << "https://[2001:db8::1]:6443" << "" << "" << "abc.def" << "default";
}

void TestKubeConfig::readsTheCurrentContext() {
    QFETCH(QString, text);
    QFETCH(QString, context);
    const auto read = files({{"/home/u/.kube/ca.crt", "CA FROM FILE"}, {"/var/tok", "tok-from-file\n"}});
    auto config = parseKubeConfig(text.toStdString(), kPath,
                                  context.isEmpty() ? std::nullopt : std::optional(context.toStdString()), read);
    QVERIFY2(config.ok(), config.ok() ? "" : config.error().message.c_str());
    QTEST(QString::fromStdString(config->server), "server");
    QTEST(QString::fromStdString(config->caPem), "ca");
    QTEST(QString::fromStdString(config->clientCertPem), "cert");
    QTEST(QString::fromStdString(config->token), "token");
    QTEST(QString::fromStdString(config->namespaceName), "ns");
    QCOMPARE(config->source, kPath);
}

void TestKubeConfig::refusesWithTheFieldAndFile_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    const QString tail = "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n";
    QTest::newRow("no current context") << "clusters: []\n" << "has no current-context";
    QTest::newRow("context names a missing cluster")
        << "clusters: []\nusers: []\n" + tail << "names cluster \"c\" but its \"clusters\" list has no such entry";
    QTest::newRow("server not a URL")
        << "clusters:\n- name: c\n  cluster: {server: \"k:6443\"}\nusers:\n- name: u\n  user: {}\n" + tail
        << "cluster \"c\".server must be an https:// or http:// URL";
    QTest::newRow("CA data not base64")
        << "clusters:\n- name: c\n  cluster: {server: \"https://k\", certificate-authority-data: \"%%%\"}\n"
           "users:\n- name: u\n  user: {}\n" + tail
        << "cluster \"c\".certificate-authority-data is not base64";
    QTest::newRow("CA file missing")
        << "clusters:\n- name: c\n  cluster: {server: \"https://k\", certificate-authority: /nope/ca}\n"
           "users:\n- name: u\n  user: {}\n" + tail
        << "cluster \"c\".certificate-authority: cannot read /nope/ca";
    QTest::newRow("exec plugin")
        << "clusters:\n- name: c\n  cluster: {server: \"https://k\"}\nusers:\n- name: u\n  user:\n    exec: {command: aws}\n" + tail
        << "user \"u\" authenticates with \"exec\"";
    QTest::newRow("certificate without key")
        << "clusters:\n- name: c\n  cluster: {server: \"https://k\"}\nusers:\n- name: u\n  user: {client-certificate-data: Y2VydA==}\n" + tail
        << "a client certificate without its key";
    QTest::newRow("not YAML") << "clusters: [\n" << "YAML at line";
    QTest::newRow("alias refused")
        << "a: &x {b: 1}\nc: *x\n" << "anchors (&name) are not accepted";
}

void TestKubeConfig::refusesWithTheFieldAndFile() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    auto config = parseKubeConfig(text.toStdString(), kPath, std::nullopt, files({}));
    QVERIFY(!config.ok());
    const QString message = QString::fromStdString(config.error().message);
    QVERIFY2(message.startsWith(QString::fromStdString(kPath) + ": "), qPrintable(message));
    QVERIFY2(message.contains(expected), qPrintable(message));
}

void TestKubeConfig::readsThePodsServiceAccount() {
    const std::string dir = "/sa";
    auto config = inClusterConfig({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}, dir,
                                  files({{"/sa/token", "eyJ.tok\n"}, {"/sa/ca.crt", "CA"}, {"/sa/namespace", "warren"}}));
    QVERIFY2(config.ok(), config.ok() ? "" : config.error().message.c_str());
    QCOMPARE(config->server, std::string("https://10.96.0.1:443"));
    QCOMPARE(config->token, std::string("eyJ.tok"));
    QCOMPARE(config->caPem, std::string("CA"));
    QCOMPARE(config->namespaceName, std::string("warren"));
}

void TestKubeConfig::outsideAPodSaysSo() {
    auto config = inClusterConfig({}, "/sa", files({}));
    QVERIFY(!config.ok());
    QVERIFY(QString::fromStdString(config.error().message).contains("KUBERNETES_SERVICE_HOST"));
    auto noToken = inClusterConfig({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}}, "/sa", files({}));
    QVERIFY(!noToken.ok());
    QVERIFY(QString::fromStdString(noToken.error().message).contains("automountServiceAccountToken"));
}

QTEST_APPLESS_MAIN(TestKubeConfig)
#include "tst_kube_config.moc"
