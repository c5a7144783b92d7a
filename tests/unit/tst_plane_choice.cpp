// The desktop's choice of control plane: the file's text read and written purely (each malformed file a
// row), a round trip through a real data directory (written whole, Local when there is none), and what
// RemotePlaneChooser refuses to save.
#include "app/control/WaitFor.h"
#include "app/remote/PlaneChoice.h"
#include "app/remote/RemotePlaneChooser.h"
#include "app/secrets/SecretStore.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using warren::control::PlaneChoice;
using warren::control::PlaneKind;
using namespace warren::remote;

class TestPlaneChoice : public QObject {
    Q_OBJECT
private slots:
    void parse_data();
    void parse();
    void textRoundTrips_data();
    void textRoundTrips();
    void noFileIsLocal();
    void savedWholeAndReadBack();
    void chooserRefusesRemoteWithoutUrlOrKey();
    void chooserKeepsTheKeyOutOfTheFile();
};

void TestPlaneChoice::parse_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("remote");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("error"); // empty: it reads

    QTest::newRow("local") << R"({"plane": "local"})" << false << ""
                           << "";
    QTest::newRow("local keeps the url")
        << R"({"plane": "local", "url": "https://h:8443"})" << false << "https://h:8443"
        << "";
    QTest::newRow("remote") << R"({"plane": "remote", "url": "http://127.0.0.1:7070"})" << true
                            << "http://127.0.0.1:7070"
                            << "";
    QTest::newRow("unknown keys are ignored") << R"({"plane": "local", "theme": 1})" << false << ""
                                              << "";
    QTest::newRow("not json") << "plane=remote" << false << ""
                              << "not a JSON object";
    QTest::newRow("an array") << "[]" << false << ""
                              << "not a JSON object";
    QTest::newRow("empty") << "" << false << ""
                           << "not a JSON object";
    QTest::newRow("no plane") << R"({"url": "https://h"})" << false << ""
                              << "names no \"plane\"";
    QTest::newRow("plane not text") << R"({"plane": 1})" << false << ""
                                    << "names no \"plane\"";
    QTest::newRow("unknown plane") << R"({"plane": "cloud"})" << false << ""
                                   << "\"cloud\"";
    QTest::newRow("remote without url") << R"({"plane": "remote"})" << false << ""
                                        << "without its \"url\"";
    QTest::newRow("remote empty url") << R"({"plane": "remote", "url": ""})" << false << ""
                                      << "without its \"url\"";
    QTest::newRow("url not text") << R"({"plane": "remote", "url": 8443})" << false << ""
                                  << "not text";
}

void TestPlaneChoice::parse() {
    QFETCH(QString, text);
    QFETCH(bool, remote);
    QFETCH(QString, url);
    QFETCH(QString, error);
    auto choice = parsePlaneChoice(text.toStdString());
    if (!error.isEmpty()) {
        QVERIFY(!choice);
        QVERIFY2(QString::fromStdString(choice.error().message).contains(error),
                 choice.error().message.c_str());
        QVERIFY(QString::fromStdString(choice.error().message).contains("Settings")); // what to do
        return;
    }
    QVERIFY2(bool(choice), choice ? "" : choice.error().message.c_str());
    QCOMPARE(choice->kind == PlaneKind::Remote, remote);
    QCOMPARE(QString::fromStdString(choice->url), url);
}

void TestPlaneChoice::textRoundTrips_data() {
    QTest::addColumn<bool>("remote");
    QTest::addColumn<QString>("url");
    QTest::newRow("local") << false << "";
    QTest::newRow("local with url") << false << "https://warren.example:8443";
    QTest::newRow("remote") << true << "http://127.0.0.1:7070";
}

void TestPlaneChoice::textRoundTrips() {
    QFETCH(bool, remote);
    QFETCH(QString, url);
    const PlaneChoice choice{remote ? PlaneKind::Remote : PlaneKind::Local, url.toStdString()};
    auto back = parsePlaneChoice(planeChoiceText(choice));
    QVERIFY(bool(back));
    QVERIFY(*back == choice);
}

void TestPlaneChoice::noFileIsLocal() {
    QTemporaryDir data;
    auto choice = loadPlaneChoice(data.path().toStdString());
    QVERIFY(bool(choice));
    QVERIFY(choice->kind == PlaneKind::Local);
    QVERIFY(choice->url.empty());
}

void TestPlaneChoice::savedWholeAndReadBack() {
    QTemporaryDir data;
    const std::string dir = data.filePath("nested/warren").toStdString(); // made when missing
    const PlaneChoice choice{PlaneKind::Remote, "https://warren.example:8443"};
    QVERIFY(bool(savePlaneChoice(dir, choice)));
    auto back = loadPlaneChoice(dir);
    QVERIFY(bool(back));
    QVERIFY(*back == choice);
    // Nothing else is left behind: the temporary file was renamed into place.
    QCOMPARE(QDir(QString::fromStdString(dir)).entryList(QDir::Files | QDir::Hidden),
             QStringList{kPlaneChoiceFile});

    // A damaged file is an error saying so, not a silent Local.
    QFile file(QString::fromStdString(dir) + "/" + kPlaneChoiceFile);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write("{\"plane\": ");
    file.close();
    auto damaged = loadPlaneChoice(dir);
    QVERIFY(!damaged);
    QVERIFY(QString::fromStdString(damaged.error().message).contains(kPlaneChoiceFile));
}

void TestPlaneChoice::chooserRefusesRemoteWithoutUrlOrKey() {
    qunsetenv("WARREN_REMOTE_KEY");
    QTemporaryDir data;
    RemotePlaneChooser chooser(data.path().toStdString(), /*useKeychain=*/false);
    auto noUrl = chooser.save({PlaneKind::Remote, ""}, "wrn_x");
    QVERIFY(!noUrl);
    QVERIFY2(QString::fromStdString(noUrl.error().message).contains("URL"), noUrl.error().message.c_str());
    auto noKey = chooser.save({PlaneKind::Remote, "http://127.0.0.1:9"}, "");
    QVERIFY(!noKey);
    QVERIFY2(QString::fromStdString(noKey.error().message).contains("API key"),
             noKey.error().message.c_str());
    // Nothing was saved by either.
    QVERIFY(chooser.current()->kind == PlaneKind::Local);
    // Local saves even with a half-typed URL, which is dropped.
    QVERIFY(bool(chooser.save({PlaneKind::Local, "not a url"}, "")));
    QVERIFY(chooser.current()->url.empty());
    // A test without a key says so before asking anything.
    QObject chooserContext;
    auto tested = warren::control::waitFor<warren::control::ServerAccount>(
        [&](auto done) { chooser.test("http://127.0.0.1:9", "", &chooserContext, done); });
    QVERIFY(!tested);
    QVERIFY(QString::fromStdString(tested.error().message).contains("API key"));
}

void TestPlaneChoice::chooserKeepsTheKeyOutOfTheFile() {
    qunsetenv("WARREN_REMOTE_KEY");
    QTemporaryDir data;
    const std::string key = "wrn_plane_choice_test_5b1e0c";
    RemotePlaneChooser chooser(data.path().toStdString(), /*useKeychain=*/false);
    QCOMPARE(chooser.hasKey().value(), false);
    QVERIFY(bool(chooser.save({PlaneKind::Remote, "http://127.0.0.1:7070/"}, key)));
    QCOMPARE(chooser.hasKey().value(), true);
    auto saved = chooser.current();
    QVERIFY(bool(saved));
    QVERIFY(saved->kind == PlaneKind::Remote);
    QCOMPARE(saved->url, std::string("http://127.0.0.1:7070")); // as the client will use it
    QFile file(data.filePath(kPlaneChoiceFile));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains(QByteArray::fromStdString(key)));
    // The key is where `warren secrets set remote` puts it, and the file backend says it is a file.
    auto stored = warren::control::SecretStore::openFile(data.path().toStdString())->read("remote");
    QVERIFY(stored && *stored);
    QCOMPARE(**stored, key);
    QVERIFY(!chooser.keyStorageWarning().empty());
    // Saving again without a key keeps the stored one.
    QVERIFY(bool(chooser.save({PlaneKind::Remote, "http://127.0.0.1:7071"}, "")));
    QCOMPARE(chooser.hasKey().value(), true);
}

QTEST_GUILESS_MAIN(TestPlaneChoice)
#include "tst_plane_choice.moc"
