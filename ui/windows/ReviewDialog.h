#pragma once
// Review of a task (ControlPlane::taskChanges): every file the task changed, the shell's changes included,
// with its diff, from before its first step to its end (or now, while it runs); "Revert file" puts one file
// back as the task found it, after RewindDialog listed what that does.

#include "app/control/ControlPlane.h"

#include <QDialog>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace warren::ui {

class ReviewDialog : public QDialog {
    Q_OBJECT
public:
    ReviewDialog(control::ControlPlane& plane, const QString& taskId, QWidget* parent = nullptr);

    void reload();
    void show(Result<control::TaskChanges> changes);
    void revertSelected(); // asks with a RewindDialog (opened, not run modally), then rewinds the file

signals:
    void workspaceChanged(const QString& taskId);

private:
    void showFile(int row);

    control::ControlPlane& m_plane;
    QString m_taskId;
    control::TaskChanges m_changes;
    QLabel* m_summary;
    QListWidget* m_files;
    QPlainTextEdit* m_diff;
    QLabel* m_skipped;
    QPushButton* m_revert;
};

} // namespace warren::ui
