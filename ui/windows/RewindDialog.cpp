#include "ui/windows/RewindDialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace warren::ui {

RewindDialog::RewindDialog(const QString& taskId, const control::RewindSummary& preview,
                           bool offerConversation, QWidget* parent)
    : QDialog(parent) {
    setObjectName("rewindDialog");
    setWindowTitle(tr("Rewind"));
    setMinimumWidth(560);
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(this);
    intro->setWordWrap(true);
    const QString target = QString::fromStdString(preview.target);
    intro->setText(
        preview.lines.empty()
            ? tr("The workspace of task %1 is already as it was %2: no file changes.").arg(taskId, target)
            : tr("Put the workspace of task %1 back as it was %2. First it is recorded as it is now, "
                 "so this rewind can be undone. These change:")
                  .arg(taskId, target));
    layout->addWidget(intro);
    if (!preview.lines.empty()) {
        auto* list = new QListWidget(this);
        list->setObjectName("rewindChanges");
        for (const auto& line : preview.lines)
            list->addItem(QString::fromStdString(line));
        list->setFont(QFont(QStringLiteral("monospace")));
        layout->addWidget(list, 1);
    }
    if (!preview.conversation.empty()) { // an undo that takes the conversation back too
        auto* conversation =
            new QLabel(tr("Conversation: %1").arg(QString::fromStdString(preview.conversation)), this);
        conversation->setObjectName("rewindConversationNote");
        conversation->setWordWrap(true);
        layout->addWidget(conversation);
    }
    auto* limits = new QLabel(QString::fromUtf8(control::kRewindLimits), this);
    limits->setObjectName("rewindLimits");
    limits->setWordWrap(true);
    layout->addWidget(limits);
    if (offerConversation) {
        m_conversation =
            new QCheckBox(tr("Also the conversation: Resume continues the task from this step"), this);
        m_conversation->setObjectName("rewindConversation");
        layout->addWidget(m_conversation);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    auto* go = buttons->addButton(tr("Rewind"), QDialogButtonBox::AcceptRole);
    go->setObjectName("rewindGo");
    go->setEnabled(!preview.changesNothing() || offerConversation);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

bool RewindDialog::conversationChosen() const {
    return m_conversation && m_conversation->isChecked();
}

} // namespace warren::ui
