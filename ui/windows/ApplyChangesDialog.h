#pragma once
// "Apply changes" of a task that ran on a server: what applying its change to the local workspace would do
// (ControlPlane::planChanges): the files it writes, and the files it leaves alone because they changed here
// since the upload, each with why. Accepting it is the user's go-ahead for applyChanges.

#include "app/control/ControlPlane.h"

#include <QDialog>

namespace warren::ui {

class ApplyChangesDialog : public QDialog {
    Q_OBJECT
public:
    ApplyChangesDialog(const QString& taskId, const QString& workspace, const control::ChangesPlan& plan,
                       QWidget* parent = nullptr);
};

// For the status bar after applying: how many files were applied where, and which were left and why.
QString appliedText(const QString& workspace, const control::ChangesPlan& applied);

} // namespace warren::ui
