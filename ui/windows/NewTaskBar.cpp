#include "ui/windows/NewTaskBar.h"

#include "app/tasks/WorkspaceScope.h"
#include "ui/widgets/MultiChoiceButton.h"
#include "ui/widgets/NetworkChoice.h"
#include "ui/windows/AgentChoices.h"
#include "ui/windows/SandboxChoices.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <algorithm>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>

namespace warren::ui {

NewTaskBar::NewTaskBar(const std::vector<std::string>& presetNames, QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);

    m_workspace = new QComboBox(this);
    m_workspace->setObjectName("workspace");
    m_workspace->setEditable(true);
    m_workspace->setInsertPolicy(QComboBox::NoInsert);
    m_workspace->setMinimumContentsLength(18);
    m_workspace->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_workspace->setToolTip(tr("The folder the agent works in (mounted at /workspace in its sandbox)"));
    m_workspace->lineEdit()->setPlaceholderText(tr("the project's folder"));
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

    m_presets = new MultiChoiceButton(tr("No preset"), this);
    m_presets->setObjectName("presets");
    QStringList presets;
    for (const std::string& name : presetNames)
        presets << QString::fromStdString(name);
    m_presets->setChoices(presets);
    m_secrets = new MultiChoiceButton(tr("No secrets"), this);
    m_secrets->setObjectName("secrets");
    m_secrets->setToolTip(tr("Secrets for hosts this task may use (Warren menu, Secrets): its sandbox holds a "
                             "placeholder, the real value is put in on the way to their hosts"));
    m_secrets->hide(); // until there are some

    m_model = new QLineEdit(this);
    m_model->setObjectName("model");
    m_model->setMinimumWidth(110);
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

    // The combos as wide as their current choice, not their longest item.
    for (QComboBox* box : {m_agent, m_backend}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(10);
    }

    // How the task runs, in a row of its own under the prompt when one row is too narrow for both.
    m_options = new QWidget(this);
    auto* options = new QHBoxLayout(m_options);
    options->setContentsMargins(0, 0, 0, 0);
    options->addWidget(m_presets);
    options->addWidget(m_model, 1);
    options->addWidget(m_agent);
    options->addWidget(m_backend);
    options->addWidget(m_network);
    options->addWidget(m_secrets);

    m_firstRow = new QHBoxLayout;
    m_firstRow->addWidget(m_workspace, 2);
    m_firstRow->addWidget(browse);
    m_firstRow->addWidget(m_prompt, 5);
    m_firstRow->addWidget(m_options, 3);
    m_firstRow->addWidget(m_run);
    m_secondRow = new QHBoxLayout;
    layout->addLayout(m_firstRow);
    layout->addLayout(m_secondRow);
}

QSize NewTaskBar::minimumSizeHint() const {
    const int options = m_options->minimumSizeHint().width();
    int firstRow = m_firstRow->minimumSize().width();
    if (m_firstRow->indexOf(m_options) >= 0)
        firstRow -= options + m_firstRow->spacing();
    const QMargins margins = layout()->contentsMargins();
    return {std::max(firstRow, options) + margins.left() + margins.right(), QWidget::minimumSizeHint().height()};
}

void NewTaskBar::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // One row while the prompt keeps room to read what is typed beside the options.
    const bool twoRows = width() < m_options->sizeHint().width() + kOneRowExtra;
    if (twoRows == (m_secondRow->indexOf(m_options) >= 0))
        return;
    (twoRows ? m_firstRow : m_secondRow)->removeWidget(m_options);
    if (twoRows)
        m_secondRow->addWidget(m_options);
    else
        m_firstRow->insertWidget(m_firstRow->indexOf(m_run), m_options, 3);
}

void NewTaskBar::setRecentWorkspaces(const QStringList& workspaces) {
    const QString current = m_workspace->currentText();
    m_workspace->clear();
    m_workspace->addItems(workspaces);
    // Started from a menu, the current folder is the home: never offered, a project is chosen instead.
    const QString here = QDir::currentPath();
    const bool hereIsAProject = !control::tooBroadWorkspace(here.toStdString(), control::userHome());
    m_workspace->setEditText(!current.isEmpty() ? current : workspaces.value(0, hereIsAProject ? here : QString()));
}

void NewTaskBar::setDefaults(const Defaults& defaults) {
    m_presets->setChecked(defaults.presets);
    m_secrets->setChecked({});
    m_model->setPlaceholderText(defaults.model.isEmpty() ? tr("model") : defaults.model);
    fillAgents(m_agent, defaults.agent);
    fillBackends(m_backend, defaults.backend);
    m_network->setValue(defaults.network);
}

void NewTaskBar::setSecretNames(const QStringList& names) {
    m_secrets->setChoices(names);
    m_secrets->setVisible(!names.isEmpty());
}

void NewTaskBar::clearPrompt() { m_prompt->clear(); }

void NewTaskBar::submit() {
    if (m_prompt->text().trimmed().isEmpty()) {
        m_prompt->setFocus();
        return;
    }
    emit runRequested({m_prompt->text().trimmed(), m_workspace->currentText().trimmed(), m_presets->checked(),
                       m_model->text().trimmed(), m_agent->currentData().toString(),
                       m_backend->currentData().toString(), m_network->value(), m_secrets->checked()});
}

} // namespace warren::ui
