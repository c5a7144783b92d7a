#include "ui/windows/ApplyChangesDialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace warren::ui {

namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

QString files(std::size_t count) {
    return count == 1 ? ApplyChangesDialog::tr("1 file") : ApplyChangesDialog::tr("%1 files").arg(count);
}

QListWidget* listOf(const QStringList& lines, const char* name, QWidget* parent) {
    auto* list = new QListWidget(parent);
    list->setObjectName(name);
    list->addItems(lines);
    list->setMaximumHeight(
        list->fontMetrics().height() * static_cast<int>(std::min<qsizetype>(lines.size(), 10) + 1) + 8);
    return list;
}

} // namespace

ApplyChangesDialog::ApplyChangesDialog(const QString& taskId, const QString& workspace,
                                       const control::ChangesPlan& plan, QWidget* parent)
    : QDialog(parent) {
    setObjectName("applyChanges");
    setWindowTitle(tr("Apply changes"));
    setMinimumWidth(560);
    auto* layout = new QVBoxLayout(this);
    QStringList applied;
    for (const auto& path : plan.applied)
        applied << qs(path);
    QStringList conflicts;
    for (const auto& conflict : plan.conflicts)
        conflicts << tr("%1 — %2").arg(qs(conflict.path), qs(conflict.reason));

    auto* intro = new QLabel(this);
    intro->setWordWrap(true);
    intro->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (applied.isEmpty() && conflicts.isEmpty())
        intro->setText(
            tr("Task %1 changed no files: there is nothing to bring into %2.").arg(taskId, workspace));
    else
        intro->setText(tr("Task %1 ran on the server on a copy of %2. Applying its change writes these files "
                          "there:")
                           .arg(taskId, workspace));
    layout->addWidget(intro);
    if (!applied.isEmpty())
        layout->addWidget(listOf(applied, "toApply", this));
    if (!conflicts.isEmpty()) {
        auto* left = new QLabel(tr("These stay as they are, since they changed here after the upload; "
                                   "the task's version of them is not applied:"),
                                this);
        left->setWordWrap(true);
        layout->addWidget(left);
        layout->addWidget(listOf(conflicts, "conflicts", this));
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    if (!applied.isEmpty()) {
        QPushButton* apply =
            buttons->addButton(tr("Apply %1").arg(files(plan.applied.size())), QDialogButtonBox::AcceptRole);
        apply->setObjectName("confirmApply");
        apply->setDefault(true);
    }
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QString appliedText(const QString& workspace, const control::ChangesPlan& applied) {
    QString text = ApplyChangesDialog::tr("Applied %1 to %2").arg(files(applied.applied.size()), workspace);
    if (!applied.conflicts.empty()) {
        QStringList left;
        for (const auto& conflict : applied.conflicts)
            left << qs(conflict.path);
        text += ApplyChangesDialog::tr("; left as they are (changed here since the upload): %1")
                    .arg(left.join(", "));
    }
    return text;
}

} // namespace warren::ui
