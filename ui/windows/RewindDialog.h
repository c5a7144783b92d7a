#pragma once
// The go-ahead for a rewind ("Rewind to here" on a step, "Revert file" in the review): what it will change,
// listed from ControlPlane::previewRewind before anything is touched, what a rewind cannot undo, and, for a
// step, whether the conversation goes back too (then Resume continues from that step). Accepting it runs
// ControlPlane::rewind with the same request.

#include "app/control/ControlPlane.h"

#include <QDialog>

class QCheckBox;

namespace warren::ui {

class RewindDialog : public QDialog {
    Q_OBJECT
public:
    RewindDialog(const QString& taskId, const control::RewindSummary& preview, bool offerConversation,
                 QWidget* parent = nullptr);
    bool conversationChosen() const;

private:
    QCheckBox* m_conversation = nullptr;
};

} // namespace warren::ui
