#include "ui/windows/SettingsDialog.h"

#include "app/providers/ProviderCatalog.h"
#include "app/tasks/TaskRetention.h"
#include "ui/widgets/ConnectionTest.h"
#include "ui/widgets/NetworkChoice.h"
#include "ui/windows/AgentChoices.h"
#include "ui/windows/ControlPlaneBox.h"
#include "ui/windows/McpServersBox.h"
#include "ui/windows/SandboxChoices.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <unistd.h>

namespace warren::ui {

namespace {

// The idle time as the form shows it: whole minutes, rounded up (a second set elsewhere is not never).
int idleMinutes(std::uint64_t seconds) {
    return static_cast<int>((seconds + 59) / 60);
}

// A scroll area that asks for its page whole (QScrollArea's hint stops at 24 lines), so the dialog opens
// unscrolled wherever the screen has room; it still shrinks below that where the screen does not.
class WholeScrollArea : public QScrollArea {
public:
    using QScrollArea::QScrollArea;
    QSize sizeHint() const override {
        if (!widget())
            return QScrollArea::sizeHint();
        const int frame = 2 * frameWidth();
        return widget()->sizeHint() + QSize(frame + verticalScrollBar()->sizeHint().width(), frame);
    }
};

} // namespace

SettingsDialog::SettingsDialog(control::ControlPlane& plane, QWidget* parent, PlaneContext context)
    : QDialog(parent), m_plane(plane), m_remotePlane(context.opened.kind == control::PlaneKind::Remote) {
    setWindowTitle(tr("Warren Settings"));
    auto* layout = new QVBoxLayout(this);
    // With the choice of control plane, two tabs: where tasks run, and how they run; a dialog holding both
    // would be taller than a laptop's screen.
    // The user's MCP servers have a page of their own: a list wants the height.
    auto* tabs = m_tabs = new QTabWidget(this);
    tabs->setObjectName("settingsTabs");
    auto* agents = new QWidget(tabs);
    auto* agentsLayout = new QVBoxLayout(agents);
    if (context.chooser) {
        m_planeBox = new ControlPlaneBox(*context.chooser, context.opened, tabs);
        auto* planePage = new QWidget(tabs);
        auto* planeLayout = new QVBoxLayout(planePage);
        planeLayout->addWidget(m_planeBox);
        planeLayout->addStretch(1);
        tabs->addTab(planePage, tr("Control plane"));
    }
    // The Agents page scrolls where the screen is smaller than it (800x600): Save stays in view.
    auto* agentsScroll = new WholeScrollArea(tabs);
    m_agentsScroll = agentsScroll;
    agentsScroll->setObjectName("agentsScroll");
    agentsScroll->setFrameShape(QFrame::NoFrame);
    agentsScroll->setWidgetResizable(true);
    agentsScroll->setWidget(agents);
    tabs->addTab(agentsScroll, tr("Agents"));
    m_mcp = new McpServersBox(m_remotePlane, tabs);
    m_mcp->setObjectName("mcpServersBox");
    tabs->addTab(m_mcp, tr("MCP servers"));
    layout->addWidget(tabs);

    auto* modelBox = new QGroupBox(tr("Model"), this);
    auto* form = new QFormLayout(modelBox);
    m_provider = new QComboBox(modelBox);
    m_provider->setObjectName("provider");
    m_provider->addItem(tr("None: the scripted demo"), QString());
    for (const control::KnownProvider& known : control::knownProviders())
        m_provider->addItem(QString::fromUtf8(known.label.data(), qsizetype(known.label.size())),
                            QString::fromUtf8(known.spec.data(), qsizetype(known.spec.size())));
    m_baseUrl = new QLineEdit(modelBox);
    m_baseUrl->setObjectName("baseUrl");
    m_model = new QLineEdit(modelBox);
    m_model->setObjectName("modelName");
    m_key = new QLineEdit(modelBox);
    m_key->setObjectName("apiKey");
    m_key->setEchoMode(QLineEdit::Password);
    m_keyState = new QLabel(modelBox);
    m_keyState->setObjectName("keyState");
    m_keyState->setWordWrap(true);
    m_connectionTest =
        new ConnectionTest({"test", "cancelTest", "testProgress", "testResult"},
                           tr("One short question to the model with this form's provider, "
                              "address, model and key; it gives up after %1 s")
                               .arg(std::chrono::seconds(control::kConnectionTestTimeout).count()),
                           modelBox);
    form->addRow(tr("Provider"), m_provider);
    form->addRow(tr("Base URL"), m_baseUrl);
    form->addRow(tr("Model"), m_model);
    form->addRow(tr("API key"), m_key);
    form->addRow(QString(), m_keyState);
    m_connectionTest->addRow(form);
    agentsLayout->addWidget(modelBox);

    auto* tasksBox = new QGroupBox(tr("New tasks"), this);
    auto* tasksForm = new QFormLayout(tasksBox);
    m_presets = new QListWidget(tasksBox);
    m_presets->setObjectName("presets");
    for (const std::string& name : m_plane.presetNames()) {
        auto* item = new QListWidgetItem(QString::fromStdString(name), m_presets);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_presets->setMaximumHeight(m_presets->sizeHintForRow(0) * (m_presets->count() + 1));
    m_maxConcurrent = new QSpinBox(tasksBox);
    m_maxConcurrent->setObjectName("maxConcurrent");
    m_maxConcurrent->setRange(1, 64);
    m_agent = new QComboBox(tasksBox);
    m_agent->setObjectName("agent");
    m_agent->setToolTip(tr("The agent new tasks run: Warren's own, or your Claude Code or Codex, run in the task's "
                           "sandbox with its key kept outside (Claude Code needs an Anthropic model, Codex an "
                           "OpenAI one)"));
    tasksForm->addRow(tr("Agent"), m_agent);
    tasksForm->addRow(tr("Presets"), m_presets);
    tasksForm->addRow(tr("Tasks at a time"), m_maxConcurrent);
    // In minutes here; the setting is seconds, so a value set in seconds elsewhere is kept unless changed here (accept).
    m_idleSleep = new QSpinBox(tasksBox);
    m_idleSleep->setObjectName("idleSleep");
    m_idleSleep->setRange(0, 7 * 24 * 60);
    m_idleSleep->setSuffix(tr(" min"));
    m_idleSleep->setSpecialValueText(tr("never"));
    m_idleSleep->setToolTip(tr("A task of Warren's agent that has only waited for your answer this long releases its "
                               "sandbox and sleeps; your answer wakes it where it stopped."));
    tasksForm->addRow(tr("Release a waiting sandbox after"), m_idleSleep);
    m_retention = new QSpinBox(tasksBox);
    m_retention->setObjectName("retentionDays");
    m_retention->setRange(0, static_cast<int>(control::kMaxRetentionDays));
    m_retention->setSuffix(tr(" days"));
    m_retention->setSpecialValueText(tr("for ever"));
    m_retention->setToolTip(
        tr("A finished task's checkpoints, step snapshots and artifacts are removed this long after "
           "it ends (while this window is open); its record and timeline stay. Your project's files are never touched."));
    tasksForm->addRow(tr("Keep finished tasks' files"), m_retention);
    agentsLayout->addWidget(tasksBox);

    auto* sandboxBox = new QGroupBox(tr("Sandbox"), this);
    auto* sandboxForm = new QFormLayout(sandboxBox);
    m_backend = new QComboBox(sandboxBox);
    m_backend->setObjectName("backend");
    m_image = new QLineEdit(sandboxBox);
    m_image->setObjectName("image");
    m_image->setPlaceholderText(QString::fromUtf8(control::kDefaultAgentImage));
    m_image->setToolTip(tr("The image the agent runs on. It must be present locally: Warren never pulls it."));
    m_network = new NetworkChoice(sandboxBox);
    m_network->setToolTip(tr("The network new tasks start with; the new-task bar can change it for one task"));
    sandboxForm->addRow(tr("Backend"), m_backend);
    sandboxForm->addRow(tr("Image"), m_image);
    sandboxForm->addRow(tr("Network"), m_network);
    m_warm = new QSpinBox(sandboxBox);
    m_warm->setObjectName("warmContainers");
    m_warm->setRange(0, static_cast<int>(control::Settings::kMaxWarmContainers));
    m_warm->setSpecialValueText(tr("none"));
    m_warm->setToolTip(
        tr("Podman containers started ahead, holding nothing of any task's, so that the next "
           "podman task of the same kind starts in milliseconds instead of waiting for podman"));
    // Only a root Warren mounts a task's files into a container already running (rootful podman).
    if (::geteuid() == 0)
        sandboxForm->addRow(tr("Warm podman containers"), m_warm);
    else
        m_warm->hide();
    agentsLayout->addWidget(sandboxBox);

    auto* approvalsBox = new QGroupBox(tr("Always allowed commands"), this);
    auto* approvalsLayout = new QHBoxLayout(approvalsBox);
    m_allowedCommands = new QListWidget(approvalsBox);
    m_allowedCommands->setObjectName("allowedCommands");
    m_allowedCommands->setToolTip(tr("Shell commands starting with these run without asking, unless a rule denies "
                                     "or asks. \u201cAlways allow\u201d on an approval adds one."));
    m_allowedCommands->setMaximumHeight(m_allowedCommands->fontMetrics().height() * 5);
    auto* remove = new QPushButton(tr("Remove"), approvalsBox);
    remove->setObjectName("removeAllowed");
    connect(remove, &QPushButton::clicked, this, [this] { delete m_allowedCommands->currentItem(); });
    approvalsLayout->addWidget(m_allowedCommands, 1);
    approvalsLayout->addWidget(remove, 0, Qt::AlignTop);
    agentsLayout->addWidget(approvalsBox);

    if (m_remotePlane) {
        // The server decides these for its tasks (its sandbox, its quotas, its rules): shown, not offered.
        const QString onServer = tr("Tasks run on the server: it chooses this for them.");
        for (QWidget* local : {static_cast<QWidget*>(sandboxBox), static_cast<QWidget*>(approvalsBox)}) {
            local->setEnabled(false);
            local->setToolTip(onServer);
        }
        m_maxConcurrent->setEnabled(false);
        m_maxConcurrent->setToolTip(tr("The server's quota decides how many of your tasks run at once."));
        m_idleSleep->setEnabled(false);
        m_idleSleep->setToolTip(tr("The server decides when a task that waits for you releases its sandbox."));
        m_retention->setEnabled(false);
        m_retention->setToolTip(
            tr("The server's retention period decides how long its tasks' files are kept."));
        m_connectionTest->testButton()->setToolTip(
            tr("The server calls the model, not this computer: run a small task to try it."));
    }

    m_error = new QLabel(this);
    m_error->setObjectName("error");
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #d03b3b"));
    m_error->hide();
    layout->addWidget(m_error);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    layout->addWidget(buttons);

    connect(m_provider, &QComboBox::currentIndexChanged, this, &SettingsDialog::updateForm);
    connect(m_provider, &QComboBox::activated, this, [this] { m_landing = false; });
    connect(m_baseUrl, &QLineEdit::textEdited, this, [this](const QString& text) {
        m_typedUrl = text; // only a compatible server's field is editable
        m_landing = false;
    });
    for (QLineEdit* typed : {m_model, m_key})
        connect(typed, &QLineEdit::textEdited, this, [this] { m_landing = false; });
    connect(m_connectionTest, &ConnectionTest::requested, this, &SettingsDialog::testConnection);
    connect(m_connectionTest, &ConnectionTest::finished, this, &SettingsDialog::testFinished);
    connect(m_backend, &QComboBox::currentIndexChanged, this, &SettingsDialog::updateSandbox);
    load();
}

void SettingsDialog::showEvent(QShowEvent* event) {
    // Its natural size (the Agents page whole) where the screen has room, else the screen's: the page
    // scrolls and Save stays in view. Measured now, when every part is polished. (The layout's sizeHint, not
    // the dialog's: that one is a height for the width, where the tabs count only their pages with wrapped
    // text, and the scroll area has none.)
    if (!m_sized) {
        m_sized = true;
        QSize natural = layout()->sizeHint();
        if (const QScreen* shown = screen())
            natural = natural.boundedTo(shown->availableGeometry().size());
        resize(natural);
    }
    QDialog::showEvent(event);
}

void SettingsDialog::load() {
    auto settings = m_plane.settings();
    if (!settings) {
        m_error->setText(QString::fromStdString(settings.error().message));
        m_error->show();
        return;
    }
    m_settings = *settings;
    const QString spec = QString::fromStdString(m_settings.provider);
    int chosen = 0;
    for (int i = 0; i < m_provider->count(); ++i) {
        const QString choice = m_provider->itemData(i).toString();
        if (spec == choice || (choice.endsWith(':') && spec.startsWith(choice))) {
            chosen = i;
            if (choice.endsWith(':'))
                m_typedUrl = spec.mid(choice.size());
            break;
        }
    }
    m_provider->setCurrentIndex(chosen);
    m_model->setText(QString::fromStdString(m_settings.model));
    for (int i = 0; i < m_presets->count(); ++i) {
        QListWidgetItem* item = m_presets->item(i);
        const bool on = std::find(m_settings.presets.begin(), m_settings.presets.end(), item->text().toStdString()) !=
                        m_settings.presets.end();
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    m_maxConcurrent->setValue(static_cast<int>(m_settings.maxConcurrent));
    m_idleSleep->setValue(idleMinutes(m_settings.idleSleepSec));
    m_retention->setValue(static_cast<int>(std::min(m_settings.retentionDays, control::kMaxRetentionDays)));
    m_warm->setValue(
        static_cast<int>(std::min(m_settings.warmContainers, control::Settings::kMaxWarmContainers)));
    fillAgents(m_agent, QString::fromUtf8(protocol::agentKindName(m_settings.agent)));
    fillBackends(m_backend, QString::fromStdString(sandbox::backendName(m_settings.backend)));
    m_network->setValue(QString::fromStdString(m_settings.network));
    m_image->setText(QString::fromStdString(m_settings.image));
    m_allowedCommands->clear();
    for (const auto& prefix : m_settings.allowedCommands)
        m_allowedCommands->addItem(QString::fromStdString(prefix));
    m_mcp->setServers(m_settings.mcpServers);
    updateForm();
    updateSandbox();
}

void SettingsDialog::updateSandbox() { m_image->setEnabled(sandbox::containerEngine(chosenBackend(m_backend)).has_value()); }

QString SettingsDialog::providerSpec() const {
    const QString choice = m_provider->currentData().toString();
    return choice.endsWith(':') ? choice + m_baseUrl->text().trimmed() : choice;
}

QString SettingsDialog::keyName() const {
    auto name = m_plane.providerKeyName(providerSpec().toStdString());
    return name ? QString::fromStdString(*name) : QString();
}

QString SettingsDialog::testResult() const {
    return m_connectionTest->result();
}

void SettingsDialog::updateForm() {
    m_connectionTest->abandon(); // a test of the provider shown before: its answer would be about another
    m_connectionTest->say({});
    const control::KnownProvider* known =
        control::findProvider(m_provider->currentData().toString().toStdString());
    const bool none = m_provider->currentData().toString().isEmpty();
    // The address a task connects to: a named provider's own (shown, not editable: another address is a
    // compatible server's), or the one typed for a compatible server.
    const auto text = [](std::string_view view) {
        return QString::fromUtf8(view.data(), qsizetype(view.size()));
    };
    m_baseUrl->setEnabled(known && known->takesUrl());
    m_baseUrl->setText(!known ? QString() : known->takesUrl() ? m_typedUrl : text(known->baseUrl));
    m_baseUrl->setPlaceholderText(known && known->takesUrl() ? text(known->baseUrl) : QString());
    m_baseUrl->setToolTip(!known ? QString()
                          : known->takesUrl()
                              ? tr("The server's address, e.g. %1").arg(text(known->baseUrl))
                              : tr("Where %1 is reached; for another address choose a compatible server")
                                    .arg(m_provider->currentText()));
    m_model->setEnabled(!none);
    m_connectionTest->setTestEnabled(!none && !m_remotePlane);
    m_key->setEnabled(known && known->needsKey());
    m_key->clear();
    m_keyStored.reset();
    if (none) {
        m_keyState->setText(tr("Without a model, Warren offers the scripted demo."));
    } else if (!known || !known->needsKey()) {
        m_keyState->setText(tr("A local server: no key needed."));
    } else {
        const QString name = keyName();
        const QString warning = QString::fromStdString(m_plane.keyStorageWarning());
        const QString where = m_remotePlane ? tr("Your key is kept on the server, sealed, for your tasks only.")
                              : warning.isEmpty() ? tr("Keys are kept in the system keychain.")
                                                  : warning;
        m_keyState->setText(tr("Looking for a stored key…"));
        const QString shownFor = m_provider->currentData().toString();
        m_plane.hasKey(
            name.toStdString(), control::within(this, [this, name, where, shownFor](Result<bool> stored) {
                if (m_provider->currentData().toString() != shownFor)
                    return; // another provider was chosen meanwhile: its own answer follows
                if (stored)
                    m_keyStored = *stored;
                QString state = !stored ? QString::fromStdString(stored.error().message)
                                : *stored
                                    ? tr("A key for %1 is stored; type a new one to replace it.").arg(name)
                                : m_remotePlane ? tr("No key of yours for %1 on the server: its tasks use "
                                                     "the server's own, if it has one.")
                                                      .arg(name)
                                                : tr("No key stored for %1 yet.").arg(name);
                m_keyState->setText(state + ' ' + where);
                if (m_landing)
                    focusFirstToFill();
            }));
    }
    m_key->setPlaceholderText(m_key->isEnabled() ? tr("paste the API key") : QString());
    if (m_landing)
        focusFirstToFill();
}

ModelFormState SettingsDialog::formState() const {
    const control::KnownProvider* known =
        control::findProvider(m_provider->currentData().toString().toStdString());
    ModelFormState state;
    state.providerChosen = known != nullptr;
    state.takesUrl = known && known->takesUrl();
    state.urlGiven = !m_baseUrl->text().trimmed().isEmpty();
    state.modelGiven = !m_model->text().trimmed().isEmpty();
    state.needsKey = known && known->needsKey() && !m_remotePlane; // a server may have its own key
    state.keyTyped = !m_key->text().isEmpty();
    state.keyStored = m_keyStored;
    return state;
}

QWidget* SettingsDialog::field(ModelField which) const {
    switch (which) {
    case ModelField::Provider:
        return m_provider;
    case ModelField::BaseUrl:
        return m_baseUrl;
    case ModelField::Model:
        return m_model;
    case ModelField::Key:
        return m_key;
    case ModelField::None:
        break;
    }
    QPushButton* test = m_connectionTest->testButton();
    return test->isEnabled() ? static_cast<QWidget*>(test) : m_model;
}

void SettingsDialog::showModelSection() {
    m_tabs->setCurrentWidget(m_agentsScroll);
    m_landing = true;
    focusFirstToFill();
}

void SettingsDialog::focusFirstToFill() {
    QWidget* first = field(firstToFill(formState()));
    m_agentsScroll->ensureWidgetVisible(first);
    first->setFocus(Qt::OtherFocusReason);
}

void SettingsDialog::testConnection() {
    // A form still missing a part is named here: the model's own answer would speak of --model and the like.
    switch (firstToFill(formState())) {
    case ModelField::BaseUrl:
        m_connectionTest->say(
            tr("Type the server's address in Base URL first, e.g. %1.").arg(m_baseUrl->placeholderText()));
        return focusFirstToFill();
    case ModelField::Model:
        m_connectionTest->say(tr("Type the name of the model to use first."));
        return focusFirstToFill();
    case ModelField::Provider: // the button is disabled without a provider
    case ModelField::Key:      // a key in the environment counts too: the plane says if none is found
    case ModelField::None:
        break;
    }
    const QString address = m_baseUrl->text().trimmed();
    QObject* testing =
        m_connectionTest->begin(tr("Asking %1 at %2… (gives up after %3 s)")
                                    .arg(m_model->text().trimmed(), address)
                                    .arg(std::chrono::seconds(control::kConnectionTestTimeout).count()));
    m_plane.testModel(
        providerSpec().toStdString(), m_model->text().trimmed().toStdString(), m_key->text().toStdString(),
        testing, [this](Status status) {
            if (status)
                return m_connectionTest->end(tr("Connected: the model answered."));
            if (status.error().code == ErrorCode::NotFound && m_key->isEnabled() && m_key->text().isEmpty()) {
                // No key stored nor in the environment: the field for it is right here.
                m_key->setFocus(Qt::OtherFocusReason);
                return m_connectionTest->end(
                    tr("No API key for %1 yet: paste it in API key above and test again; Save keeps it.")
                        .arg(m_provider->currentText()));
            }
            m_connectionTest->end(QString::fromStdString(status.error().message));
        });
}

void SettingsDialog::accept() {
    control::Settings settings = m_settings;
    settings.provider = providerSpec().toStdString();
    settings.model = settings.provider.empty() ? std::string() : m_model->text().trimmed().toStdString();
    settings.presets.clear();
    for (int i = 0; i < m_presets->count(); ++i)
        if (m_presets->item(i)->checkState() == Qt::Checked)
            settings.presets.push_back(m_presets->item(i)->text().toStdString());
    settings.maxConcurrent = static_cast<std::size_t>(m_maxConcurrent->value());
    if (m_idleSleep->value() != idleMinutes(m_settings.idleSleepSec))
        settings.idleSleepSec = static_cast<std::uint64_t>(m_idleSleep->value()) * 60;
    settings.retentionDays = static_cast<std::uint64_t>(m_retention->value());
    settings.warmContainers = static_cast<std::uint64_t>(m_warm->value());
    settings.agent = chosenAgent(m_agent);
    settings.backend = chosenBackend(m_backend);
    const QString image = m_image->text().trimmed();
    settings.image = image.isEmpty() ? std::string(control::kDefaultAgentImage) : image.toStdString();
    settings.network = m_network->value().toStdString();
    settings.allowedCommands.clear();
    for (int i = 0; i < m_allowedCommands->count(); ++i)
        settings.allowedCommands.push_back(m_allowedCommands->item(i)->text().toStdString());
    settings.mcpServers = m_mcp->servers();
    if (auto valid = control::validateSettings(settings); !valid)
        return fail(valid.error().message);
    if (!(m_planeBox && m_planeBox->switches() && !m_remotePlane))
        return save(settings);
    // Closing this computer's plane stops its running agents (they resume later from a checkpoint).
    m_plane.tasks(control::within(this, [this, settings](Result<std::vector<control::TaskRecord>> tasks) {
        std::size_t active = 0;
        if (tasks)
            for (const auto& task : *tasks)
                active += task.status == control::TaskStatus::Running || task.status == control::TaskStatus::Queued;
        if (active == 0)
            return save(settings);
        auto* question = new QMessageBox(
            QMessageBox::Question, tr("Switch the control plane?"),
            (active == 1 ? tr("A task running on this computer will be stopped")
                         : tr("%1 tasks running on this computer will be stopped").arg(active)) +
                tr("; stopped tasks can be resumed when you switch back. Switch anyway?"),
            QMessageBox::Yes | QMessageBox::No, this);
        question->setAttribute(Qt::WA_DeleteOnClose);
        connect(question, &QMessageBox::finished, this, [this, settings](int answer) {
            if (answer == QMessageBox::Yes)
                save(settings);
        });
        question->open(); // window-modal, no loop of its own
    }));
}

void SettingsDialog::fail(const std::string& message) {
    m_error->setText(QString::fromStdString(message));
    m_error->show();
}

void SettingsDialog::save(const control::Settings& settings) {
    if (m_planeBox) {
        if (auto saved = m_planeBox->save(&m_reopen); !saved)
            return fail(saved.error().message);
    }
    auto close = [this, settings] {
        if (auto saved = m_plane.saveSettings(settings); !saved)
            return fail(saved.error().message);
        QDialog::accept();
    };
    if (m_key->text().isEmpty())
        return close();
    m_plane.storeKey(keyName().toStdString(), m_key->text().toStdString(),
                     control::within(this, [this, close](Status stored) {
                         if (!stored)
                             return fail(stored.error().message);
                         m_key->clear();
                         close();
                     }));
}

} // namespace warren::ui
