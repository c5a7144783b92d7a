// Settings: what is saved comes back after a restart, is what `warren run` uses, and the key goes to the
// keychain (a real gnome-keyring in a private D-Bus session, tests/support/with-keychain.sh), never to the
// database; "Test connection" really asks the model server.
#include "app/providers/ProviderCatalog.h"
#include "app/remote/RemotePlaneChooser.h"
#include "app/secrets/SecretStore.h"
#include "tests/gui/DesktopFixture.h"
#include "tests/support/MockLlmServer.h"
#include "ui/windows/ControlPlaneBox.h"
#include "ui/windows/McpServerDialog.h"
#include "ui/windows/McpServersBox.h"
#include "ui/windows/SettingsDialog.h"

#include <QComboBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTreeWidget>
#include <QtTest>
#include <sys/stat.h>

using warren::test::DesktopFixture;
using warren::test::MockLlmServer;
using warren::test::MockResponse;
using warren::ui::SettingsDialog;

namespace {

void choose(QComboBox* box, const QString& spec) {
    box->setCurrentIndex(box->findData(spec));
}

QListWidgetItem* preset(SettingsDialog& dialog, const QString& name) {
    auto items = dialog.findChild<QListWidget*>("presets")->findItems(name, Qt::MatchExactly);
    return items.isEmpty() ? nullptr : items.first();
}

// A model server that accepts every connection and never answers (nor closes): what a hung server or a
// port held by something else looks like to Test connection.
class SilentServer : public QTcpServer {
public:
    bool start() { return listen(QHostAddress::LocalHost); }
    QString baseUrl() const { return QString("http://127.0.0.1:%1/v1").arg(serverPort()); }
    std::vector<QTcpSocket*> accepted() {
        while (hasPendingConnections())
            m_accepted.push_back(nextPendingConnection()); // kept open, never written to
        return m_accepted;
    }

private:
    std::vector<QTcpSocket*> m_accepted;
};

// Settings shown with a compatible server's form filled in, as a user leaves it before Test connection.
std::unique_ptr<SettingsDialog> compatibleForm(DesktopFixture& desk, const QString& baseUrl,
                                               const QString& model) {
    auto dialog = std::make_unique<SettingsDialog>(desk.plane());
    dialog->show();
    choose(dialog->findChild<QComboBox*>("provider"), "openai-compatible:");
    dialog->findChild<QLineEdit*>("baseUrl")->setText(baseUrl);
    dialog->findChild<QLineEdit*>("modelName")->setText(model);
    dialog->findChild<QLineEdit*>("apiKey")->setText("sk-typed");
    return dialog;
}

// Every file of the data directory (warren.db, its WAL, tasks/...) as one blob.
QByteArray everythingStored(const QString& dataDir) {
    QByteArray all;
    QDirIterator it(dataDir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (file.open(QIODevice::ReadOnly))
            all += file.readAll();
    }
    return all;
}

} // namespace

class TestGuiSettings : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void settingsPersistAcrossRestarts();
    void keyLandsInTheKeychainNotTheDatabase();
    void testConnectionAsksTheModel();
    void setUpAModelLandsOnTheFirstFieldToFill();
    void eachProviderShowsItsAddressAndAsksForAKeyOnlyIfItNeedsOne();
    void aSilentModelServerIsReportedInSecondsOrCancelled();
    void aMissingModelIsNamedNotSent();
    void aSilentControlPlaneServerIsReportedInSecondsOrCancelled();
    void badSettingsAreRefusedWithTheReason();
    void sandboxChoicePersistsAndListsEnginesFound();
    void badImageIsRefused();
    void allowListPersistsAndBadOnesAreRefused();
    void mcpServersAreAddedEditedAndRemoved();
    void mcpServersAreImportedFromAMcpJson();
    void fitsASmallScreen();

private:
    bool m_keychain = false;
};

void TestGuiSettings::initTestCase() {
    m_keychain = qgetenv("WARREN_NO_KEYRING").isEmpty() && !qgetenv("WARREN_KEYRING_HOME").isEmpty();
}

void TestGuiSettings::settingsPersistAcrossRestarts() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    {
        SettingsDialog dialog(desk.plane());
        choose(dialog.findChild<QComboBox*>("provider"), "openai-compatible:");
        dialog.findChild<QLineEdit*>("baseUrl")->setText("http://127.0.0.1:9/v1");
        dialog.findChild<QLineEdit*>("modelName")->setText("local-model");
        preset(dialog, "safe-mode")->setCheckState(Qt::Checked);
        dialog.findChild<QSpinBox*>("maxConcurrent")->setValue(2);
        QCOMPARE(dialog.findChild<QSpinBox*>("idleSleep")->text(), QStringLiteral("never")); // the default
        dialog.findChild<QSpinBox*>("idleSleep")->setValue(5);
        QCOMPARE(dialog.findChild<QComboBox*>("network")->currentData().toString(), QStringLiteral("none"));
        choose(dialog.findChild<QComboBox*>("network"), "loopback");
        dialog.accept();
        QTRY_COMPARE(dialog.result(), int(QDialog::Accepted)); // once the keychain has the key
    }
    desk.close();
    QVERIFY(desk.open());
    SettingsDialog again(desk.plane());
    QCOMPARE(again.providerSpec(), QStringLiteral("openai-compatible:http://127.0.0.1:9/v1"));
    QCOMPARE(again.findChild<QLineEdit*>("modelName")->text(), QStringLiteral("local-model"));
    QCOMPARE(preset(again, "safe-mode")->checkState(), Qt::Checked);
    QCOMPARE(preset(again, "local-light")->checkState(), Qt::Unchecked);
    QCOMPARE(again.findChild<QSpinBox*>("maxConcurrent")->value(), 2);
    QCOMPARE(again.findChild<QSpinBox*>("idleSleep")->value(), 5);
    QCOMPARE(again.findChild<QComboBox*>("network")->currentData().toString(), QStringLiteral("loopback"));
    // The new-task bar starts from it.
    auto* barNetwork = desk.window().newTaskBar()->findChild<QComboBox*>("network");
    QCOMPARE(barNetwork->currentData().toString(), QStringLiteral("loopback"));
    // The same settings are what the control plane (and so `warren run`) starts from.
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QCOMPARE(settings->provider, std::string("openai-compatible:http://127.0.0.1:9/v1"));
    QCOMPARE(settings->presets, std::vector<std::string>{"safe-mode"});
    QCOMPARE(settings->maxConcurrent, 2u);
    QCOMPARE(settings->idleSleepSec, 300u);
    QCOMPARE(settings->network, std::string("loopback"));
}

void TestGuiSettings::keyLandsInTheKeychainNotTheDatabase() {
    if (!m_keychain)
        QSKIP("no keyring to test against: run through tests/support/with-keychain.sh (as CTest does)");
    DesktopFixture desk;
    QVERIFY(desk.open(/*useKeychain=*/true));
    const std::string key = "sk-gui-test-4f1c9a7e2b";
    {
        SettingsDialog dialog(desk.plane());
        choose(dialog.findChild<QComboBox*>("provider"), "openai");
        dialog.findChild<QLineEdit*>("modelName")->setText("gpt-test");
        dialog.findChild<QLineEdit*>("apiKey")->setText(QString::fromStdString(key));
        dialog.accept();
        QTRY_COMPARE(dialog.result(), int(QDialog::Accepted)); // once the keychain has the key
    }
    QCOMPARE(desk.plane().secrets().backend(), warren::control::SecretStore::Backend::Keychain);
    auto stored = desk.plane().secrets().read("openai");
    QVERIFY(stored && *stored);
    QCOMPARE(**stored, key);
    QVERIFY(!everythingStored(desk.dataDir()).contains(QByteArray::fromStdString(key)));

    // Shown again only as "stored", never in full.
    SettingsDialog again(desk.plane());
    QVERIFY(again.findChild<QLineEdit*>("apiKey")->text().isEmpty());
    QTRY_VERIFY(again.findChild<QLabel*>("keyState")->text().contains("is stored")); // once the keychain answered
    QVERIFY(!again.findChild<QLabel*>("keyState")->text().contains(QString::fromStdString(key)));
    desk.close();
    (void)warren::control::SecretStore::openKeychain("warren").value()->remove("openai");
}

void TestGuiSettings::testConnectionAsksTheModel() {
    MockLlmServer server;
    QVERIFY(server.listen());
    server.enqueue(MockResponse::sse(QList<QByteArray>{warren::test::openAiTextStream({"OK"})}));
    server.enqueue(MockResponse::json(401, "Unauthorized",
                                      "{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":\"invalid_request_error\"}}"));
    DesktopFixture desk;
    QVERIFY(desk.open());
    SettingsDialog dialog(desk.plane());
    choose(dialog.findChild<QComboBox*>("provider"), "openai-compatible:");
    dialog.findChild<QLineEdit*>("baseUrl")->setText(server.baseUrl() + "/v1");
    dialog.findChild<QLineEdit*>("modelName")->setText("mock-1");
    dialog.findChild<QLineEdit*>("apiKey")->setText("sk-typed-not-saved");
    QSignalSpy tested(&dialog, &SettingsDialog::testFinished);

    QTest::mouseClick(dialog.findChild<QPushButton*>("test"), Qt::LeftButton);
    QVERIFY(tested.wait(30000));
    QVERIFY2(dialog.testResult().startsWith("Connected"), qPrintable(dialog.testResult()));
    QCOMPARE(server.requests().size(), 1u);
    QCOMPARE(server.requests().front().headers.value("authorization"), QByteArray("Bearer sk-typed-not-saved"));
    QCOMPARE(server.requests().front().json().value("model", ""), std::string("mock-1"));

    QTest::mouseClick(dialog.findChild<QPushButton*>("test"), Qt::LeftButton);
    QVERIFY(tested.wait(30000));
    QVERIFY2(dialog.testResult().contains("Incorrect API key"), qPrintable(dialog.testResult()));
    QVERIFY(!dialog.testResult().contains("sk-typed-not-saved"));
}

// "Set up a model…" on the welcome page: Settings open at the model (whichever page was shown), the focus
// in the provider; once a compatible server is chosen, in its address; once that is typed, the model.
void TestGuiSettings::setUpAModelLandsOnTheFirstFieldToFill() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTest::mouseClick(desk.window().findChild<QPushButton*>("setUpModel"), Qt::LeftButton);
    SettingsDialog* dialog = desk.window().settingsDialog();
    QVERIFY(dialog);
    auto* tabs = dialog->findChild<QTabWidget*>("settingsTabs");
    QCOMPARE(tabs->currentWidget(), dialog->findChild<QWidget*>("agentsScroll"));
    QTRY_COMPARE(dialog->focusWidget(), dialog->findChild<QComboBox*>("provider"));
    // Asked again while Settings show another page (a submit without a model does): back at the model.
    tabs->setCurrentWidget(dialog->findChild<QWidget*>("mcpServersBox"));
    desk.window().showModelSettings();
    QCOMPARE(desk.window().settingsDialog(), dialog); // the one dialog, raised
    QCOMPARE(tabs->currentWidget(), dialog->findChild<QWidget*>("agentsScroll"));

    choose(dialog->findChild<QComboBox*>("provider"), "openai-compatible:");
    QLineEdit* baseUrl = dialog->findChild<QLineEdit*>("baseUrl");
    QTRY_COMPARE(dialog->focusWidget(), baseUrl);
    // Once the person types, the focus is theirs: the keychain's late answer does not move it.
    QTest::keyClicks(baseUrl, "http://127.0.0.1:9/v1");
    QTRY_VERIFY(!dialog->findChild<QLabel*>("keyState")->text().startsWith("Looking"));
    QCOMPARE(dialog->focusWidget(), baseUrl);
    dialog->reject();
}

// A named provider shows the address its tasks connect to (not editable); a compatible server's field takes
// one, with an example. The key field is open exactly where the engine will want a key, before any URL is
// typed too (it used to be greyed out for a compatible server until then, and the test then asked for a key).
void TestGuiSettings::eachProviderShowsItsAddressAndAsksForAKeyOnlyIfItNeedsOne() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    SettingsDialog dialog(desk.plane());
    auto* provider = dialog.findChild<QComboBox*>("provider");
    auto* baseUrl = dialog.findChild<QLineEdit*>("baseUrl");
    auto* key = dialog.findChild<QLineEdit*>("apiKey");
    for (const warren::control::KnownProvider& known : warren::control::knownProviders()) {
        const QString spec = QString::fromUtf8(known.spec.data(), qsizetype(known.spec.size()));
        const QString address = QString::fromUtf8(known.baseUrl.data(), qsizetype(known.baseUrl.size()));
        choose(provider, spec);
        QCOMPARE(provider->currentData().toString(), spec);
        if (known.takesUrl()) {
            QVERIFY2(baseUrl->isEnabled() && baseUrl->text().isEmpty(), qPrintable(spec));
            QCOMPARE(baseUrl->placeholderText(), address);
        } else {
            QVERIFY2(!baseUrl->isEnabled(), qPrintable(spec));
            QCOMPARE(baseUrl->text(), address);
        }
        QCOMPARE(key->isEnabled(), known.needsKey());
        QVERIFY2(dialog.findChild<QLabel*>("keyState")->text().contains("no key needed") != known.needsKey(),
                 qPrintable(spec + ": " + dialog.findChild<QLabel*>("keyState")->text()));
    }
    QCOMPARE(baseUrl->text(), QString()); // the last, an Anthropic-compatible server: nothing typed yet
    choose(provider, "ollama");
    QCOMPARE(baseUrl->text(), QStringLiteral("http://127.0.0.1:11434/v1"));
    choose(provider, "");
    QVERIFY(!baseUrl->isEnabled() && !key->isEnabled());
}

// A server that takes the connection and says nothing is reported within the test's time (10 s, not the
// two minutes a task's call waits), with what to check; meanwhile a busy bar and Cancel show.
void TestGuiSettings::aSilentModelServerIsReportedInSecondsOrCancelled() {
    SilentServer server;
    QVERIFY(server.start());
    DesktopFixture desk;
    QVERIFY(desk.open());
    auto form = compatibleForm(desk, server.baseUrl(), "mock-1");
    SettingsDialog& dialog = *form;
    auto* progress = dialog.findChild<QProgressBar*>("testProgress");
    auto* cancel = dialog.findChild<QPushButton*>("cancelTest");
    QVERIFY(!progress->isVisible() && !cancel->isVisible());

    QTest::mouseClick(dialog.findChild<QPushButton*>("test"), Qt::LeftButton);
    QVERIFY(progress->isVisible() && cancel->isVisible());
    QVERIFY(!dialog.findChild<QPushButton*>("test")->isEnabled());
    QVERIFY2(dialog.testResult().startsWith("Asking mock-1 at " + server.baseUrl()),
             qPrintable(dialog.testResult()));
    QTRY_VERIFY(!server.accepted().empty()); // it reached the server

    // At most the test's 10 s and a margin for a loaded machine; a task's own call would wait 120 s.
    QTRY_VERIFY_WITH_TIMEOUT(!progress->isVisible(), 40000);
    QVERIFY2(dialog.testResult().startsWith("no answer from the model server at " + server.baseUrl() +
                                            " within 10 s") &&
                 dialog.testResult().contains("Check that the server is running there"),
             qPrintable(dialog.testResult()));
    QVERIFY(!cancel->isVisible());
    QVERIFY(dialog.findChild<QPushButton*>("test")->isEnabled());

    // Cancel ends a test at once: the form says so, the request is dropped (the server sees the connection
    // close), and no late answer comes.
    QSignalSpy finished(&dialog, &SettingsDialog::testFinished);
    QTest::mouseClick(dialog.findChild<QPushButton*>("test"), Qt::LeftButton);
    QTRY_VERIFY(server.accepted().size() == 2);
    QTcpSocket* connection = server.accepted().back();

    QTest::mouseClick(dialog.findChild<QPushButton*>("cancelTest"), Qt::LeftButton);
    QCOMPARE(dialog.testResult(), QStringLiteral("Test cancelled."));
    QVERIFY(!dialog.findChild<QProgressBar*>("testProgress")->isVisible());
    QVERIFY(dialog.findChild<QPushButton*>("test")->isEnabled());
    QCOMPARE(finished.size(), 1);
    QTRY_COMPARE(connection->state(), QAbstractSocket::UnconnectedState);
    QCOMPARE(dialog.testResult(), QStringLiteral("Test cancelled.")); // no answer came after
    QCOMPARE(finished.size(), 1);
}

// A form without its model is not sent: the form says what is missing and puts the focus there (the
// model's own refusal would speak of --model).
void TestGuiSettings::aMissingModelIsNamedNotSent() {
    SilentServer server;
    QVERIFY(server.start());
    DesktopFixture desk;
    QVERIFY(desk.open());
    auto form = compatibleForm(desk, server.baseUrl(), QString());
    SettingsDialog& dialog = *form;
    QTest::mouseClick(dialog.findChild<QPushButton*>("test"), Qt::LeftButton);
    QCOMPARE(dialog.testResult(), QStringLiteral("Type the name of the model to use first."));
    QCOMPARE(dialog.focusWidget(), dialog.findChild<QLineEdit*>("modelName"));
    QVERIFY(!dialog.findChild<QProgressBar*>("testProgress")->isVisible());
    dialog.findChild<QLineEdit*>("baseUrl")->clear();
    QTest::mouseClick(dialog.findChild<QPushButton*>("test"), Qt::LeftButton);
    QVERIFY2(dialog.testResult().startsWith("Type the server's address in Base URL first"),
             qPrintable(dialog.testResult()));
    QCOMPARE(dialog.focusWidget(), dialog.findChild<QLineEdit*>("baseUrl"));
    QVERIFY(server.accepted().empty());
}

// The control plane's Test connection is the same kind of test: a server URL that accepts and never answers
// is reported within the test's time (not the client's 30 s a request, twice), and Cancel ends it at once.
void TestGuiSettings::aSilentControlPlaneServerIsReportedInSecondsOrCancelled() {
    SilentServer server;
    QVERIFY(server.start());
    QTemporaryDir data;
    warren::remote::RemotePlaneChooser chooser(data.path().toStdString(), /*useKeychain=*/false);
    warren::ui::ControlPlaneBox box(chooser, warren::control::PlaneChoice{});
    box.show();
    choose(box.findChild<QComboBox*>("planeKind"), "remote");
    const QString url = QString("http://127.0.0.1:%1").arg(server.serverPort());
    box.findChild<QLineEdit*>("serverUrl")->setText(url);
    box.findChild<QLineEdit*>("serverKey")->setText(QStringLiteral("wrn_") + QString(48, 'x'));
    auto* progress = box.findChild<QProgressBar*>("serverTestProgress");
    auto* cancel = box.findChild<QPushButton*>("cancelServerTest");

    QTest::mouseClick(box.findChild<QPushButton*>("testServer"), Qt::LeftButton);
    QVERIFY(progress->isVisible() && cancel->isVisible());
    QTRY_VERIFY(!server.accepted().empty());
    QTRY_VERIFY_WITH_TIMEOUT(!progress->isVisible(), 40000);
    QVERIFY2(box.testResult().startsWith("no answer from " + url) && box.testResult().contains("within 10 s"),
             qPrintable(box.testResult()));

    QTest::mouseClick(box.findChild<QPushButton*>("testServer"), Qt::LeftButton);
    QTRY_VERIFY(server.accepted().size() == 2);
    QTcpSocket* second = server.accepted().back();
    QTest::mouseClick(cancel, Qt::LeftButton);
    QCOMPARE(box.testResult(), QStringLiteral("Test cancelled."));
    QVERIFY(!progress->isVisible() && box.findChild<QPushButton*>("testServer")->isEnabled());
    QTRY_COMPARE(second->state(), QAbstractSocket::UnconnectedState);
    QCOMPARE(box.testResult(), QStringLiteral("Test cancelled."));
}

void TestGuiSettings::badSettingsAreRefusedWithTheReason() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    SettingsDialog dialog(desk.plane());
    choose(dialog.findChild<QComboBox*>("provider"), "anthropic");
    dialog.findChild<QLineEdit*>("modelName")->clear(); // a model is required
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY(dialog.findChild<QLabel*>("error")->text().contains("model"));
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QVERIFY(settings->provider.empty()); // nothing half-saved
}

void TestGuiSettings::sandboxChoicePersistsAndListsEnginesFound() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    QString engine; // an engine this machine has, if any: the choice saved and read back
    {
        SettingsDialog dialog(desk.plane());
        auto* backend = dialog.findChild<QComboBox*>("backend");
        auto* image = dialog.findChild<QLineEdit*>("image");
        QCOMPARE(backend->currentData().toString(), QStringLiteral("bwrap")); // the default
        QVERIFY(!image->isEnabled());                                       // bubblewrap takes no image
        QCOMPARE(image->text(), QStringLiteral("debian:bookworm-slim"));
        for (const QString& name : {QStringLiteral("podman"), QStringLiteral("docker")}) {
            const bool found = !QStandardPaths::findExecutable(name).isEmpty();
            QCOMPARE(backend->findData(name) >= 0, found);
            if (found && engine.isEmpty())
                engine = name;
        }
        if (!engine.isEmpty()) {
            choose(backend, engine);
            QVERIFY(image->isEnabled());
        }
        image->setText(QStringLiteral("localhost/warren-test:1"));
        dialog.accept();
        QTRY_COMPARE(dialog.result(), int(QDialog::Accepted)); // once the keychain has the key
    }
    desk.close();
    QVERIFY(desk.open());
    SettingsDialog again(desk.plane());
    const QString expected = engine.isEmpty() ? QStringLiteral("bwrap") : engine;
    QCOMPARE(again.findChild<QComboBox*>("backend")->currentData().toString(), expected);
    QCOMPARE(again.findChild<QLineEdit*>("image")->text(), QStringLiteral("localhost/warren-test:1"));
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QCOMPARE(QString::fromStdString(warren::sandbox::backendName(settings->backend)), expected);
    QCOMPARE(settings->image, std::string("localhost/warren-test:1"));
}

void TestGuiSettings::badImageIsRefused() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    SettingsDialog dialog(desk.plane());
    dialog.findChild<QLineEdit*>("image")->setText(QStringLiteral("--privileged"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY(dialog.findChild<QLabel*>("error")->text().contains("image"));
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QCOMPARE(settings->image, std::string("debian:bookworm-slim")); // nothing half-saved
}

// Listed hosts: typed with commas or spaces, saved as the allow-list `warren run` reads, shown again as
// typed; one that is too broad is refused with the reason and nothing is saved.
void TestGuiSettings::allowListPersistsAndBadOnesAreRefused() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    {
        SettingsDialog dialog(desk.plane());
        auto* hosts = dialog.findChild<QLineEdit*>("hosts");
        QVERIFY(hosts->isHidden()); // only with "Listed hosts"
        choose(dialog.findChild<QComboBox*>("network"), "allow");
        QVERIFY(!hosts->isHidden());
        hosts->setText(QStringLiteral(" pypi.org  *.pythonhosted.org,127.0.0.1:8080 "));
        dialog.accept();
        QTRY_COMPARE(dialog.result(), int(QDialog::Accepted)); // once the keychain has the key
    }
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QCOMPARE(settings->network, std::string("allow:pypi.org,*.pythonhosted.org,127.0.0.1:8080"));
    {
        SettingsDialog dialog(desk.plane());
        QCOMPARE(dialog.findChild<QComboBox*>("network")->currentData().toString(), QStringLiteral("allow"));
        QCOMPARE(dialog.findChild<QLineEdit*>("hosts")->text(),
                 QStringLiteral("pypi.org, *.pythonhosted.org, 127.0.0.1:8080"));
        dialog.findChild<QLineEdit*>("hosts")->setText(QStringLiteral("*.com"));
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
        QVERIFY2(dialog.findChild<QLabel*>("error")->text().contains("*.com"),
                 qPrintable(dialog.findChild<QLabel*>("error")->text()));
    }
    settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QCOMPARE(settings->network, std::string("allow:pypi.org,*.pythonhosted.org,127.0.0.1:8080"));
    // The new-task bar of a window opened now starts from it.
    desk.close();
    QVERIFY(desk.open());
    auto* bar = desk.window().newTaskBar();
    QCOMPARE(bar->findChild<QComboBox*>("network")->currentData().toString(), QStringLiteral("allow"));
    QCOMPARE(bar->findChild<QLineEdit*>("hosts")->text(), QStringLiteral("pypi.org, *.pythonhosted.org, 127.0.0.1:8080"));
}

namespace {

// The server dialog Add or Edit opened (window-modal, there as soon as the click returns).
warren::ui::McpServerDialog* serverDialog(SettingsDialog& dialog) {
    return dialog.findChild<warren::ui::McpServerDialog*>("mcpServerDialog");
}

QStringList listedServers(SettingsDialog& dialog) {
    auto* list = dialog.findChild<QTreeWidget*>("mcpServers");
    QStringList names;
    for (int i = 0; i < list->topLevelItemCount(); ++i)
        names << list->topLevelItem(i)->text(0) + " | " + list->topLevelItem(i)->text(1);
    return names;
}

} // namespace

// The user's MCP servers: one added through the form (refused with the agent's reason while it has no
// command), edited, another removed; what Save keeps is what every task gets (Settings::mcpServers).
void TestGuiSettings::mcpServersAreAddedEditedAndRemoved() {
    using nlohmann::json;
    DesktopFixture desk;
    QVERIFY(desk.open());
    {
        SettingsDialog dialog(desk.plane());
        QTest::mouseClick(dialog.findChild<QPushButton*>("mcpAdd"), Qt::LeftButton);
        auto* server = serverDialog(dialog);
        QVERIFY(server);
        server->findChild<QLineEdit*>("mcpName")->setText("github");
        server->accept();
        QVERIFY2(server->error().contains("MCP server \"github\": \"command\" is empty"), qPrintable(server->error()));
        QVERIFY(server->isVisible()); // still open, nothing kept
        server->findChild<QLineEdit*>("mcpCommand")->setText("npx");
        server->findChild<QPlainTextEdit*>("mcpArgs")->setPlainText("-y\n@modelcontextprotocol/server-github\n");
        server->findChild<QPlainTextEdit*>("mcpEnv")->setPlainText("GITHUB_TOKEN\n");
        server->accept();
        QVERIFY2(server->error().contains("Environment, line 1: expected NAME=VALUE"), qPrintable(server->error()));
        server->findChild<QPlainTextEdit*>("mcpEnv")->setPlainText("GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_TOKEN}");
        server->accept();
        QTRY_VERIFY(!dialog.findChild<warren::ui::McpServerDialog*>("mcpServerDialog")); // closed and gone
        QCOMPARE(listedServers(dialog),
                 QStringList{"github | stdio \u00b7 npx -y @modelcontextprotocol/server-github"});

        // A remote one; its name may not be taken twice.
        QTest::mouseClick(dialog.findChild<QPushButton*>("mcpAdd"), Qt::LeftButton);
        server = serverDialog(dialog);
        QVERIFY(server);
        server->findChild<QLineEdit*>("mcpName")->setText("github");
        auto* kind = server->findChild<QComboBox*>("mcpKind");
        kind->setCurrentIndex(kind->findData("http"));
        QVERIFY(server->findChild<QLineEdit*>("mcpUrl")->isVisible());
        QVERIFY(!server->findChild<QLineEdit*>("mcpCommand")->isVisible());
        server->findChild<QLineEdit*>("mcpUrl")->setText("ftp://docs.example/mcp");
        server->accept();
        QVERIFY2(server->error().contains("There is a server named github already"), qPrintable(server->error()));
        server->findChild<QLineEdit*>("mcpName")->setText("docs");
        server->accept();
        QVERIFY2(server->error().contains("only http:// and https:// are supported"), qPrintable(server->error()));
        server->findChild<QLineEdit*>("mcpUrl")->setText("https://docs.example/mcp");
        server->findChild<QPlainTextEdit*>("mcpHeaders")->setPlainText("Authorization: Bearer ${DOCS_TOKEN}");
        server->accept();
        QTRY_VERIFY(!dialog.findChild<warren::ui::McpServerDialog*>("mcpServerDialog"));
        dialog.accept();
        QTRY_COMPARE(dialog.result(), int(QDialog::Accepted));
    }
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QCOMPARE(settings->mcpServers,
             (json{{"github", {{"command", "npx"}, {"args", {"-y", "@modelcontextprotocol/server-github"}},
                               {"env", {{"GITHUB_PERSONAL_ACCESS_TOKEN", "${GITHUB_TOKEN}"}}}}},
                   {"docs", {{"type", "http"}, {"url", "https://docs.example/mcp"},
                             {"headers", {{"Authorization", "Bearer ${DOCS_TOKEN}"}}}}}}));

    // Edited and removed in a dialog opened again; Cancel keeps nothing of it, Save keeps all.
    SettingsDialog dialog(desk.plane());
    QCOMPARE(listedServers(dialog).size(), 2);
    auto* list = dialog.findChild<QTreeWidget*>("mcpServers");
    list->setCurrentItem(list->findItems("github", Qt::MatchExactly).first());
    QTest::mouseClick(dialog.findChild<QPushButton*>("mcpEdit"), Qt::LeftButton);
    auto* server = serverDialog(dialog);
    QVERIFY(server);
    QCOMPARE(server->findChild<QLineEdit*>("mcpCommand")->text(), QStringLiteral("npx"));
    QCOMPARE(server->findChild<QPlainTextEdit*>("mcpEnv")->toPlainText(),
             QStringLiteral("GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_TOKEN}"));
    server->findChild<QLineEdit*>("mcpName")->setText("gh");
    server->findChild<QLineEdit*>("mcpCommand")->setText("/opt/tools/github-mcp");
    server->findChild<QPlainTextEdit*>("mcpArgs")->clear();
    server->accept();
    QTRY_VERIFY(!dialog.findChild<warren::ui::McpServerDialog*>("mcpServerDialog"));
    list->setCurrentItem(list->findItems("docs", Qt::MatchExactly).first());
    QTest::mouseClick(dialog.findChild<QPushButton*>("mcpRemove"), Qt::LeftButton);
    QCOMPARE(listedServers(dialog), QStringList{"gh | stdio \u00b7 /opt/tools/github-mcp"});
    dialog.accept();
    QTRY_COMPARE(dialog.result(), int(QDialog::Accepted));
    settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QCOMPARE(settings->mcpServers, (json{{"gh", {{"command", "/opt/tools/github-mcp"},
                                                 {"env", {{"GITHUB_PERSONAL_ACCESS_TOKEN", "${GITHUB_TOKEN}"}}}}}}));
}

// A .mcp.json imported: what the agent would use is added (one of a name replacing the user's), what it would
// leave out is said with why; a file that is no .mcp.json, or a FIFO, imports nothing and says so.
void TestGuiSettings::mcpServersAreImportedFromAMcpJson() {
    using nlohmann::json;
    DesktopFixture desk;
    QVERIFY(desk.open());
    QTemporaryDir files;
    const QString good = files.filePath(".mcp.json");
    {
        QFile file(good);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/workspace"]},
                                      "broken": {"args": ["x"]},
                                      "docs": {"type": "sse", "url": "https://docs.example/sse"}}})");
    }
    SettingsDialog dialog(desk.plane());
    auto* box = dialog.mcpServersBox();
    box->setServers(json{{"fs", {{"command", "old-fs"}}}, {"mine", {{"command", "mine"}}}});
    QSignalSpy finished(box, &warren::ui::McpServersBox::importFinished);
    box->importFile(good);
    QVERIFY(finished.wait(5000));
    QVERIFY2(box->status().contains("Imported docs, fs"), qPrintable(box->status()));
    QVERIFY2(box->status().contains("Left out: MCP server \"broken\": no \"command\""), qPrintable(box->status()));
    QCOMPARE(box->servers().at("fs").at("command"), json("npx"));
    QCOMPARE(box->servers().size(), std::size_t(3));

    const QString notMcp = files.filePath("package.json");
    {
        QFile file(notMcp);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"name": "x"})");
    }
    box->importFile(notMcp);
    QVERIFY(finished.wait(5000));
    QVERIFY2(box->status().contains("Nothing imported") && box->status().contains("has no \"mcpServers\""),
             qPrintable(box->status()));
    const QString fifo = files.filePath("fifo");
    QCOMPARE(mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    box->importFile(fifo);
    QVERIFY(finished.wait(5000));
    QVERIFY2(box->status().contains("not a regular file"), qPrintable(box->status()));
    QCOMPARE(box->servers().size(), std::size_t(3));
    dialog.accept();
    QTRY_COMPARE(dialog.result(), int(QDialog::Accepted));
    auto settings = desk.plane().settings();
    QVERIFY(bool(settings));
    QCOMPARE(settings->mcpServers.size(), std::size_t(3));
}

// On an 800x600 screen Settings can be made small enough that Save stays in view: the Agents page scrolls.
void TestGuiSettings::fitsASmallScreen() {
    DesktopFixture desk;
    QVERIFY(desk.open());
    SettingsDialog dialog(desk.plane());
    QVERIFY2(dialog.minimumSizeHint().width() <= 800 && dialog.minimumSizeHint().height() <= 560,
             qPrintable(QString("%1x%2").arg(dialog.minimumSizeHint().width()).arg(dialog.minimumSizeHint().height())));
    dialog.show();
    QVERIFY(dialog.findChild<QWidget*>("agentsScroll"));
}

QTEST_MAIN(TestGuiSettings)
#include "tst_gui_settings.moc"
