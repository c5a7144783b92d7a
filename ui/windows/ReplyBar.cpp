#include "ui/windows/ReplyBar.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

namespace warren::ui {

ReplyBar::ReplyBar(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_message = new QLineEdit(this);
    m_message->setObjectName("reply");
    connect(m_message, &QLineEdit::returnPressed, this, &ReplyBar::send);
    m_send = new QPushButton(tr("Send"), this);
    m_send->setObjectName("send");
    connect(m_send, &QPushButton::clicked, this, &ReplyBar::send);
    layout->addWidget(m_message, 1);
    layout->addWidget(m_send);
    setRepliable(true);
}

void ReplyBar::setRepliable(bool repliable, const QString& whyNot) {
    const QString tip = repliable ? tr("The agent goes on from where it stopped, with your message") : whyNot;
    for (QWidget* part : {static_cast<QWidget*>(m_message), static_cast<QWidget*>(m_send)}) {
        part->setEnabled(repliable);
        part->setToolTip(tip);
    }
    setToolTip(tip); // a disabled child shows its parent's tooltip
    // Why not, in the box itself: a tooltip is found only by hovering.
    m_message->setPlaceholderText(
        repliable ? tr("Reply to the agent: what should it do next? (Enter sends it)") : whyNot);
}

void ReplyBar::clearMessage() { m_message->clear(); }

void ReplyBar::send() {
    const QString message = m_message->text().trimmed();
    if (message.isEmpty() || !m_send->isEnabled()) {
        m_message->setFocus();
        return;
    }
    emit replyRequested(message);
}

} // namespace warren::ui
