#include "ui/views/ApprovalBar.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>

namespace warren::ui {

ApprovalBar::ApprovalBar(const QString& callId, const QString& commandPrefix, const QString& networkTarget,
                         QWidget* parent)
    : QWidget(parent), m_callId(callId) {
    const bool network = !networkTarget.isEmpty();
    setAutoFillBackground(false);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* approve = new QPushButton(network ? tr("Allow once") : tr("Approve"), this);
    approve->setObjectName("approve");
    auto* deny = new QPushButton(tr("Deny"), this);
    deny->setObjectName("deny");
    auto* always = new QToolButton(this);
    always->setObjectName("always");
    always->setText(tr("Always allow"));
    always->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(always);
    QAction* inTask = menu->addAction(network                 ? tr("%1, for the rest of this task").arg(networkTarget)
                                      : commandPrefix.isEmpty() ? tr("This call, for the rest of this task")
                                                                : tr("This command, for the rest of this task"));
    inTask->setObjectName("alwaysInTask");
    QAction* workspace = nullptr;
    if (network) {
        workspace = menu->addAction(tr("%1, in every task of this workspace").arg(networkTarget));
        workspace->setObjectName("alwaysInWorkspace");
        workspace->setToolTip(tr("Kept in Settings: later tasks here with \u201cask\u201d reach it without asking."));
    }
    QAction* commands = nullptr;
    if (!commandPrefix.isEmpty()) {
        commands = menu->addAction(tr("Commands starting with \u201c%1\u201d, in every task").arg(commandPrefix));
        commands->setObjectName("alwaysCommands");
        commands->setToolTip(tr("Kept in Settings, where it can be removed. Rules that deny or ask still apply."));
    }
    always->setMenu(menu);
    m_note = new QLineEdit(this);
    m_note->setObjectName("note");
    m_note->setPlaceholderText(tr("Note for the agent (optional)"));
    layout->addWidget(approve);
    layout->addWidget(deny);
    layout->addWidget(always);
    layout->addWidget(m_note, 1);
    auto answer = [this](bool approved, bool forTask, const QString& prefix, bool forWorkspace = false) {
        setEnabled(false); // one answer per request
        emit answered({m_callId, approved, m_note->text(), forTask, prefix, forWorkspace});
    };
    connect(approve, &QPushButton::clicked, this, [answer] { answer(true, false, {}); });
    connect(deny, &QPushButton::clicked, this, [answer] { answer(false, false, {}); });
    connect(inTask, &QAction::triggered, this, [answer] { answer(true, true, {}); });
    if (workspace)
        connect(workspace, &QAction::triggered, this, [answer] { answer(true, true, {}, true); });
    if (commands)
        connect(commands, &QAction::triggered, this, [answer, commandPrefix] { answer(true, false, commandPrefix); });
    connect(m_note, &QLineEdit::returnPressed, this, [answer] { answer(false, false, {}); });
}

} // namespace warren::ui
