#pragma once
// The go-ahead for "Fork from here" on a step: what a fork is (a new task that continues from before that
// step, in a workspace of its own holding the files as they were then; this task and its workspace stay as
// they are), what it cannot take back, and where the new workspace goes (empty: in Warren's data folder).
// Accepting it runs ControlPlane::fork.

#include <QDialog>

class QLineEdit;

namespace warren::ui {

class ForkDialog : public QDialog {
    Q_OBJECT
public:
    ForkDialog(const QString& taskId, std::uint64_t step, QWidget* parent = nullptr);
    QString workspace() const; // empty: the default, in the data folder

private:
    QLineEdit* m_workspace = nullptr;
};

} // namespace warren::ui
