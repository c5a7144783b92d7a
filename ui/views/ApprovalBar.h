#pragma once
// The buttons under a call that waits for the user: Approve, Deny, and Always allow (the same command,
// or the same tool on the same path, for the rest of this task). Shown inside the timeline's card.

#include <QWidget>

class QLineEdit;

namespace warren::ui {

class ApprovalBar : public QWidget {
    Q_OBJECT
public:
    explicit ApprovalBar(const QString& callId, QWidget* parent = nullptr);
    const QString& callId() const { return m_callId; }

signals:
    void answered(const QString& callId, bool approved, const QString& note, bool always);

private:
    QString m_callId;
    QLineEdit* m_note;
};

} // namespace warren::ui
