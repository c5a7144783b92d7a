#include "ui/windows/NewTaskBar.h"

#include "ui/widgets/NetworkChoice.h"
#include "ui/windows/AgentChoices.h"
#include "ui/windows/SandboxChoices.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>

namespace warren::ui {

NewTaskBar::NewTaskBar(const std::vector<std::string>& presetNames, QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);

    m_workspace = new QComboBox(this);
    m_workspace->setObjectName("workspace");
    m_workspace->setEditable(true);
    m_workspace->setInsertPolicy(QComboBox::NoInsert);
    m_workspace->setMinimumContentsLength(18);
    m_workspace->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_workspace->setToolTip(tr("The folder the agent works in (mounted at /workspace in its sandbox)"));
    auto* browse = new QToolButton(this);
    browse->setText(tr("…"));
    browse->setToolTip(tr("Choose a workspace folder"));
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getExistingDirectory(this, tr("Workspace"), m_workspace->currentText());
        if (!chosen.isEmpty())
            m_workspace->setEditText(chosen);
    });

    m_prompt = new QLineEdit(this);
    m_prompt->setObjectName("prompt");
    m_prompt->setPlaceholderText(tr("What should the agent do? (Enter runs it)"));
    connect(m_prompt, &QLineEdit::returnPressed, this, &NewTaskBar::submit);

    m_presets = new QToolButton(this);
    m_presets->setObjectName("presets");
    m_presets->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_presets);
    for (const std::string& name : presetNames) {
        QAction* action = menu->addAction(QString::fromStdString(name));
        action->setCheckable(true);
    }
    m_presets->setMenu(menu);
    auto showPresets = [this] {
        const QStringList checked = checkedPresets();
        m_presets->setText(checked.isEmpty() ? tr("No preset") : checked.join(QStringLiteral(", ")));
    };
    connect(menu, &QMenu::triggered, this, showPresets);
    showPresets();

    m_model = new QLineEdit(this);
    m_model->setObjectName("model");
    m_model->setMaximumWidth(180);
    m_model->setToolTip(tr("The model for this task; empty uses the one in Settings"));
    connect(m_model, &QLineEdit::returnPressed, this, &NewTaskBar::submit);

    m_agent = new QComboBox(this);
    m_agent->setObjectName("agent");
    m_agent->setToolTip(tr("The agent that does this task, in its sandbox: Warren's own, or your Claude Code or "
                           "Codex (their keys stay with Warren)"));
    fillAgents(m_agent, QString::fromUtf8(protocol::agentKindName(protocol::AgentKind::Warren)));
    m_backend = new QComboBox(this);
    m_backend->setObjectName("backend");
    m_backend->setToolTip(tr("The sandbox this task runs in"));
    m_network = new NetworkChoice(this);
    m_network->setToolTip(tr("What network this task's sandbox has"));
    fillBackends(m_backend, QString::fromStdString(sandbox::backendName(sandbox::Backend::Bwrap)));

    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName("run");
    m_run->setDefault(true);
    connect(m_run, &QPushButton::clicked, this, &NewTaskBar::submit);

    layout->addWidget(m_workspace, 2);
    layout->addWidget(browse);
    layout->addWidget(m_prompt, 5);
    layout->addWidget(m_presets);
    layout->addWidget(m_model, 1);
    layout->addWidget(m_agent);
    layout->addWidget(m_backend);
    layout->addWidget(m_network);
    layout->addWidget(m_run);
}

void NewTaskBar::setRecentWorkspaces(const QStringList& workspaces) {
    const QString current = m_workspace->currentText();
    m_workspace->clear();
    m_workspace->addItems(workspaces);
    m_workspace->setEditText(!current.isEmpty() ? current : workspaces.value(0, QDir::currentPath()));
}

void NewTaskBar::setDefaults(const Defaults& defaults) {
    for (QAction* action : m_presets->menu()->actions())
        action->setChecked(defaults.presets.contains(action->text()));
    const QStringList checked = checkedPresets();
    m_presets->setText(checked.isEmpty() ? tr("No preset") : checked.join(QStringLiteral(", ")));
    m_model->setPlaceholderText(defaults.model.isEmpty() ? tr("model") : defaults.model);
    fillAgents(m_agent, defaults.agent);
    fillBackends(m_backend, defaults.backend);
    m_network->setValue(defaults.network);
}

void NewTaskBar::clearPrompt() { m_prompt->clear(); }

QStringList NewTaskBar::checkedPresets() const {
    QStringList names;
    for (const QAction* action : m_presets->menu()->actions())
        if (action->isChecked())
            names << action->text();
    return names;
}

void NewTaskBar::submit() {
    if (m_prompt->text().trimmed().isEmpty()) {
        m_prompt->setFocus();
        return;
    }
    emit runRequested({m_prompt->text().trimmed(), m_workspace->currentText().trimmed(), checkedPresets(),
                       m_model->text().trimmed(), m_agent->currentData().toString(),
                       m_backend->currentData().toString(), m_network->value()});
}

} // namespace warren::ui
