#pragma once
// Under the selected task's timeline: a reply to it. A task whose run ended (finished, waiting for the
// user's reply, failed, stopped, paused) goes on with the message, in its workspace and conversation (ControlPlane::reply); while it runs
// or waits for a slot the bar is disabled and says why. Enter sends, as in the new-task bar.

#include <QWidget>

class QLineEdit;
class QPushButton;

namespace warren::ui {

class ReplyBar : public QWidget {
    Q_OBJECT
public:
    explicit ReplyBar(QWidget* parent = nullptr);

    // Whether the selected task takes a reply; why (a tooltip) when it does not.
    void setRepliable(bool repliable, const QString& whyNot = {});
    void clearMessage();
    QLineEdit* messageEdit() const { return m_message; }
    QPushButton* sendButton() const { return m_send; }

signals:
    void replyRequested(const QString& message);

private:
    void send();

    QLineEdit* m_message;
    QPushButton* m_send;
};

} // namespace warren::ui
