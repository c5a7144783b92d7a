#include "ui/windows/ReviewDialog.h"

#include "ui/windows/RewindDialog.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

namespace warren::ui {

namespace {
QString qs(const std::string& text) {
    return QString::fromStdString(text);
}
} // namespace

ReviewDialog::ReviewDialog(control::ControlPlane& plane, const QString& taskId, QWidget* parent)
    : QDialog(parent), m_plane(plane), m_taskId(taskId) {
    setObjectName("reviewDialog");
    setWindowTitle(tr("Review task %1").arg(taskId));
    resize(900, 600);
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setObjectName("reviewSummary");
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    auto* splitter = new QSplitter(this);
    m_files = new QListWidget(splitter);
    m_files->setObjectName("reviewFiles");
    m_diff = new QPlainTextEdit(splitter);
    m_diff->setObjectName("reviewDiff");
    m_diff->setReadOnly(true);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    splitter->addWidget(m_files);
    splitter->addWidget(m_diff);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);
    m_skipped = new QLabel(this);
    m_skipped->setObjectName("reviewSkipped");
    m_skipped->setWordWrap(true);
    layout->addWidget(m_skipped);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_revert = buttons->addButton(tr("Revert file…"), QDialogButtonBox::ActionRole);
    m_revert->setObjectName("reviewRevert");
    m_revert->setToolTip(tr("Put this file back as the task found it"));
    connect(m_revert, &QPushButton::clicked, this, &ReviewDialog::revertSelected);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    connect(m_files, &QListWidget::currentRowChanged, this, &ReviewDialog::showFile);
    reload();
}

void ReviewDialog::reload() {
    m_files->clear();
    m_diff->clear();
    m_revert->setEnabled(false);
    m_summary->setText(tr("Reading the task's changes…"));
    m_plane.taskChanges(m_taskId.toStdString(), std::nullopt,
                        control::within(this, [this](Result<control::TaskChanges> changes) { show(std::move(changes)); }));
}

void ReviewDialog::show(Result<control::TaskChanges> changes) {
    if (!changes) {
        m_changes = {};
        m_summary->setText(qs(changes.error().message));
        m_skipped->clear();
        m_revert->setEnabled(false);
        return;
    }
    m_changes = std::move(*changes);
    m_summary->setText(
        m_changes.files.empty()
            ? tr("The task changed no files (from %1 to %2).").arg(qs(m_changes.from), qs(m_changes.to))
            : tr("%n file(s) changed, from %1 to %2, by the task's tools and its shell commands.", nullptr,
                 static_cast<int>(m_changes.files.size()))
                  .arg(qs(m_changes.from), qs(m_changes.to)));
    for (const auto& file : m_changes.files)
        m_files->addItem(QStringLiteral("%1  %2").arg(qs(file.change), -8).arg(qs(file.path)));
    QString skipped;
    for (const auto& path : m_changes.skipped)
        skipped += (skipped.isEmpty() ? QString() : QStringLiteral(", ")) + qs(path);
    m_skipped->setText(skipped.isEmpty()
                           ? QString()
                           : tr("Not recorded, so not shown and left alone by a rewind: %1").arg(skipped));
    m_revert->setEnabled(!m_changes.files.empty());
    if (!m_changes.files.empty())
        m_files->setCurrentRow(0);
}

void ReviewDialog::showFile(int row) {
    if (row < 0 || row >= static_cast<int>(m_changes.files.size()))
        return m_diff->clear();
    const auto& file = m_changes.files[static_cast<std::size_t>(row)];
    m_diff->setPlainText(file.diff.empty() ? tr("(no textual difference: %1)").arg(qs(file.change))
                                           : qs(file.diff));
}

void ReviewDialog::revertSelected() {
    const int row = m_files->currentRow();
    if (row < 0 || row >= static_cast<int>(m_changes.files.size()))
        return;
    control::RewindRequest request;
    request.toStep = 1;
    request.paths = {m_changes.files[static_cast<std::size_t>(row)].path};
    m_plane.previewRewind(m_taskId.toStdString(), request, control::within(this, [this, request](Result<control::RewindSummary> preview) {
        if (!preview)
            return m_summary->setText(qs(preview.error().message));
        auto* dialog = new RewindDialog(m_taskId, *preview, false, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QDialog::accepted, this, [this, request] {
            m_plane.rewind(m_taskId.toStdString(), request, control::within(this, [this](Result<control::RewindSummary> done) {
                if (!done)
                    return m_summary->setText(qs(done.error().message));
                emit workspaceChanged(m_taskId);
                reload();
            }));
        });
        dialog->open();
    }));
}

} // namespace warren::ui
