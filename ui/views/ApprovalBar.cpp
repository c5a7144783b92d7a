#include "ApprovalBar.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

namespace warren::ui {

ApprovalBar::ApprovalBar(const QString& callId, QWidget* parent) : QWidget(parent), m_callId(callId) {
    setAutoFillBackground(false);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* approve = new QPushButton(tr("Approve"), this);
    approve->setObjectName("approve");
    auto* deny = new QPushButton(tr("Deny"), this);
    deny->setObjectName("deny");
    auto* always = new QPushButton(tr("Always allow in this task"), this);
    always->setObjectName("always");
    m_note = new QLineEdit(this);
    m_note->setObjectName("note");
    m_note->setPlaceholderText(tr("Note for the agent (optional)"));
    layout->addWidget(approve);
    layout->addWidget(deny);
    layout->addWidget(always);
    layout->addWidget(m_note, 1);
    auto answer = [this](bool approved, bool forTask) {
        setEnabled(false); // one answer per request
        emit answered(m_callId, approved, m_note->text(), forTask);
    };
    connect(approve, &QPushButton::clicked, this, [answer] { answer(true, false); });
    connect(deny, &QPushButton::clicked, this, [answer] { answer(false, false); });
    connect(always, &QPushButton::clicked, this, [answer] { answer(true, true); });
    connect(m_note, &QLineEdit::returnPressed, this, [answer] { answer(false, false); });
}

} // namespace warren::ui
