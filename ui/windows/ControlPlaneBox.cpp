#include "ui/windows/ControlPlaneBox.h"

#include "app/control/ControlPlane.h"
#include "ui/widgets/ConnectionTest.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QResizeEvent>
#include <QUrl>
#include <algorithm>

namespace warren::ui {

using control::PlaneChoice;
using control::PlaneKind;
using nlohmann::json;

namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

// A quota binds at the lower of the user's and the tenant's level (docs/SERVER.md); unset binds nowhere.
std::optional<std::uint64_t> effectiveLimit(const json& quotas, const char* name) {
    std::optional<std::uint64_t> limit;
    for (const char* level : {"user", "tenant"}) {
        const json value = quotas.value(level, json::object()).value(name, json());
        if (value.is_number_unsigned())
            limit = limit ? std::min(*limit, value.get<std::uint64_t>()) : value.get<std::uint64_t>();
    }
    return limit;
}

QString number(std::uint64_t value) {
    return QLocale().toString(static_cast<qulonglong>(value));
}

QString ofLimit(std::uint64_t used, std::optional<std::uint64_t> limit) {
    return limit ? ControlPlaneBox::tr("%1 of %2").arg(number(used), number(*limit))
                 : ControlPlaneBox::tr("%1 (no limit)").arg(number(used));
}

} // namespace

QString accountText(const control::ServerAccount& account) {
    QStringList lines;
    QString server =
        ControlPlaneBox::tr("Connected to warrend %1 at %2").arg(qs(account.version), qs(account.server));
    if (!account.sandbox.empty())
        server += ControlPlaneBox::tr(" (its sandboxes: %1)").arg(qs(account.sandbox));
    lines << server;
    lines << ControlPlaneBox::tr("You are %1, tenant %2").arg(qs(account.user), qs(account.tenant));
    lines << ControlPlaneBox::tr("Tasks running: %1 · Tokens this month: %2")
                 .arg(ofLimit(account.activeTasks, effectiveLimit(account.quotas, "max_concurrent")),
                      ofLimit(account.tokensThisMonth, effectiveLimit(account.quotas, "tokens_per_month")));
    QStringList sandbox;
    const std::pair<const char*, QString> limits[] = {
        {"memory_mb", ControlPlaneBox::tr("memory %1 MiB")},
        {"cpu_seconds", ControlPlaneBox::tr("CPU %1 s")},
        {"timeout_sec", ControlPlaneBox::tr("wall time %1 s")},
        {"pids", ControlPlaneBox::tr("%1 processes")},
        {"file_size_mb", ControlPlaneBox::tr("files up to %1 MiB")}};
    for (const auto& [name, text] : limits)
        if (auto limit = effectiveLimit(account.quotas, name))
            sandbox << text.arg(number(*limit));
    lines << (sandbox.isEmpty()
                  ? ControlPlaneBox::tr("Each task's sandbox: the server's own limits")
                  : ControlPlaneBox::tr("Each task's sandbox at most: %1").arg(sandbox.join(", ")));
    return lines.join('\n');
}

ControlPlaneBox::ControlPlaneBox(control::PlaneChooser& chooser, PlaneChoice opened, QWidget* parent)
    : QGroupBox(tr("Control plane"), parent), m_chooser(chooser), m_opened(std::move(opened)) {
    setObjectName("controlPlane");
    setMinimumWidth(560); // room for a URL and the account's lines
    auto* form = new QFormLayout(this);
    m_kind = new QComboBox(this);
    m_kind->setObjectName("planeKind");
    m_kind->addItem(tr("Local: agents run on this computer"), QStringLiteral("local"));
    m_kind->addItem(tr("Remote: agents run on a warrend server"), QStringLiteral("remote"));
    m_url = new QLineEdit(this);
    m_url->setObjectName("serverUrl");
    m_url->setPlaceholderText(QStringLiteral("https://warren.example.com:8443"));
    m_key = new QLineEdit(this);
    m_key->setObjectName("serverKey");
    m_key->setEchoMode(QLineEdit::Password);
    m_keyState = new QLabel(this);
    m_keyState->setObjectName("serverKeyState");
    m_keyState->setWordWrap(true);
    m_test =
        new ConnectionTest({"testServer", "cancelServerTest", "serverTestProgress", "serverResult"},
                           tr("Asks the server who it is and who the key makes you; it gives up after %1 s")
                               .arg(std::chrono::seconds(control::kConnectionTestTimeout).count()),
                           this);
    m_result = m_test->resultLabel(); // fitted to its text's height with the form's other labels
    form->addRow(tr("Run tasks"), m_kind);
    form->addRow(tr("Server URL"), m_url);
    form->addRow(tr("API key"), m_key);
    form->addRow(QString(), m_keyState);
    m_test->addRow(form);

    auto saved = m_chooser.current();
    const PlaneChoice shown = saved ? *saved : m_opened;
    if (!saved)
        m_result->setText(qs(saved.error().message));
    m_kind->setCurrentIndex(shown.kind == PlaneKind::Remote ? 1 : 0);
    m_url->setText(qs(shown.url));
    connect(m_kind, &QComboBox::currentIndexChanged, this, &ControlPlaneBox::updateForm);
    connect(m_test, &ConnectionTest::requested, this, &ControlPlaneBox::testConnection);
    connect(m_test, &ConnectionTest::finished, this, [this] {
        fitLabels();
        emit testFinished();
    });
    updateForm();
}

PlaneChoice ControlPlaneBox::choice() const {
    return PlaneChoice{m_kind->currentData().toString() == "remote" ? PlaneKind::Remote : PlaneKind::Local,
                       m_url->text().trimmed().toStdString()};
}

bool ControlPlaneBox::switches() const {
    const PlaneChoice wanted = choice();
    if (wanted.kind != m_opened.kind)
        return true;
    if (wanted.kind == PlaneKind::Local)
        return false;
    auto base = QUrl::fromUserInput(QString::fromStdString(wanted.url));
    return base.toString(QUrl::StripTrailingSlash).toStdString() != m_opened.url;
}

QString ControlPlaneBox::testResult() const {
    return m_result->text();
}

// A form row does not grow for a wrapped label's height on its own (QFormLayout asks its sizeHint, one
// line): each label is given the height its text needs at its width, again whenever the width changes.
void ControlPlaneBox::fitLabels() {
    for (QLabel* label : {m_keyState, m_result})
        label->setMinimumHeight(label->width() > 0 ? std::max(0, label->heightForWidth(label->width())) : 0);
}

void ControlPlaneBox::resizeEvent(QResizeEvent* event) {
    QGroupBox::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        fitLabels();
}

void ControlPlaneBox::updateForm() {
    const bool remote = choice().kind == PlaneKind::Remote;
    m_url->setEnabled(remote);
    m_key->setEnabled(remote);
    m_test->abandon(); // a test of the form before: its answer would be about another
    m_test->setTestEnabled(remote);
    if (!remote) {
        m_keyState->setText(tr("Tasks, their events and your keys stay on this computer."));
        return fitLabels();
    }
    auto stored = m_chooser.hasKey();
    QString state = !stored   ? qs(stored.error().message)
                    : *stored ? tr("A key is stored; type a new one to replace it.")
                              : tr("No key stored yet: paste the one `warrend admin add-user` printed.");
    const QString warning = qs(m_chooser.keyStorageWarning());
    m_keyState->setText(state + ' ' +
                        (warning.isEmpty() ? tr("It is kept in the system keychain.") : warning));
    m_key->setPlaceholderText(tr("wrn_…"));
    fitLabels();
}

void ControlPlaneBox::askForKey(const QString& why) {
    m_kind->setCurrentIndex(1);
    m_result->setText(why);
    m_key->setFocus();
    fitLabels();
}

void ControlPlaneBox::testConnection() {
    QObject* testing = m_test->begin(tr("Asking the server… (gives up after %1 s)")
                                         .arg(std::chrono::seconds(control::kConnectionTestTimeout).count()));
    fitLabels();
    m_chooser.test(choice().url, m_key->text().trimmed().toStdString(), testing,
                   [this](Result<control::ServerAccount> account) {
                       m_test->end(account ? accountText(*account) : qs(account.error().message));
                   });
}

Status ControlPlaneBox::save(bool* reopen) {
    *reopen = false;
    const std::string key = m_key->text().trimmed().toStdString();
    auto before = m_chooser.current();
    const PlaneChoice wanted = choice();
    if (before && *before == wanted && key.empty() && wanted == m_opened)
        return Ok{}; // nothing changed
    if (auto saved = m_chooser.save(wanted, key); !saved)
        return saved.error();
    m_key->clear();
    auto now = m_chooser.current();
    if (!now)
        return now.error();
    // Another plane than the window has, or a new key for the server it has: the window opens it again.
    const bool otherPlane =
        now->kind != m_opened.kind || (now->kind == PlaneKind::Remote && now->url != m_opened.url);
    *reopen = otherPlane || (now->kind == PlaneKind::Remote && !key.empty());
    return Ok{};
}

} // namespace warren::ui
