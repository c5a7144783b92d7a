#include "ui/windows/ForkDialog.h"

#include "app/control/ControlPlane.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace warren::ui {

ForkDialog::ForkDialog(const QString& taskId, std::uint64_t step, QWidget* parent) : QDialog(parent) {
    setObjectName("forkDialog");
    setWindowTitle(tr("Fork"));
    setMinimumWidth(560);
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("A new task continues from before step %1 of task %2: its agent from the conversation as it was "
           "then, in a workspace of its own holding the files as they were then. Task %2 and its workspace "
           "stay as they are.")
            .arg(step)
            .arg(taskId),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* limits = new QLabel(QString::fromUtf8(control::kForkLimits), this);
    limits->setObjectName("forkLimits");
    limits->setWordWrap(true);
    layout->addWidget(limits);

    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Workspace:"), this));
    m_workspace = new QLineEdit(this);
    m_workspace->setObjectName("forkWorkspace");
    m_workspace->setPlaceholderText(tr("a new folder in Warren's data folder"));
    m_workspace->setToolTip(tr("A new or empty folder for the fork's files"));
    row->addWidget(m_workspace, 1);
    auto* browse = new QPushButton(tr("Choose…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getExistingDirectory(this, tr("An empty folder for the fork"));
        if (!chosen.isEmpty())
            m_workspace->setText(chosen);
    });
    row->addWidget(browse);
    layout->addLayout(row);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    buttons->addButton(tr("Fork"), QDialogButtonBox::AcceptRole)->setObjectName("forkGo");
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QString ForkDialog::workspace() const {
    return m_workspace->text().trimmed();
}

} // namespace warren::ui
