#pragma once
// The buttons under a call that waits for the user: Approve, Deny, and Always allow, either this call for
// the rest of the task (shell: the same command; other tools: the tool) or, for a shell call, every
// command starting with the same program and subcommand, in this and every later task (kept in Settings,
// where it can be removed). A network question (--network ask) offers its host for the rest of the task or
// always in the task's workspace (kept in Settings) instead. Shown inside the timeline's card.

#include <QString>
#include <QWidget>

class QLineEdit;

namespace warren::ui {

struct ApprovalAnswer {
    QString callId;
    bool approved = false;
    QString note;
    bool alwaysInTask = false; // this call, for the rest of the task
    QString alwaysCommands;    // a command prefix (control::commandPrefix) allowed from now on; empty: none
    bool alwaysInWorkspace = false; // a network question's host, for every task in this workspace
};

class ApprovalBar : public QWidget {
    Q_OBJECT
public:
    // commandPrefix: what "always allow commands like this" would allow; empty where it is not offered.
    // networkTarget: the host:port of a network question; empty for a tool call.
    ApprovalBar(const QString& callId, const QString& commandPrefix, const QString& networkTarget,
                QWidget* parent = nullptr);
    const QString& callId() const { return m_callId; }

signals:
    void answered(const warren::ui::ApprovalAnswer& answer);

private:
    QString m_callId;
    QLineEdit* m_note;
};

} // namespace warren::ui
