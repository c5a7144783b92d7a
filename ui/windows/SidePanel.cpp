#include "ui/windows/SidePanel.h"

#include "ui/models/TaskListModel.h"
#include "ui/widgets/Sparkline.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemModel>
#include <QGroupBox>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace warren::ui {

// The workspace's files with the task's changes marked: bold, coloured, and the change in the tooltip.
class ChangedFilesModel : public QIdentityProxyModel {
public:
    using QIdentityProxyModel::QIdentityProxyModel;

    using FileChanges = std::map<std::string, timeline::TaskCounters::FileChange>;

    void setChanges(const QString& root, const FileChanges& files) {
        if (root == m_root && files == m_files)
            return;
        m_root = root;
        m_files = files;
        if (rowCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    }
    QString relativePath(const QModelIndex& index) const {
        const QString path = index.data(QFileSystemModel::FilePathRole).toString();
        return path.startsWith(m_root + '/') ? path.mid(m_root.size() + 1) : QString();
    }

    QVariant data(const QModelIndex& index, int role) const override {
        if (index.column() == 0 && (role == Qt::FontRole || role == Qt::ForegroundRole || role == Qt::ToolTipRole ||
                                    role == Qt::DisplayRole)) {
            const auto it = m_files.find(relativePath(index).toStdString());
            if (it != m_files.end()) {
                const timeline::TaskCounters::FileChange& change = it->second;
                if (role == Qt::FontRole) {
                    QFont font;
                    font.setBold(true);
                    return font;
                }
                if (role == Qt::ForegroundRole)
                    return change.change == "deleted" ? QColor(0xd0, 0x3b, 0x3b)
                           : change.change == "created" ? QColor(0x2e, 0x9e, 0x5b)
                                                        : QColor(0xc0, 0x7a, 0x10);
                if (role == Qt::DisplayRole)
                    return QIdentityProxyModel::data(index, role).toString() + QStringLiteral("  ●");
                return tr("%1 by this task (+%2 −%3); click for the change")
                    .arg(QString::fromStdString(change.change))
                    .arg(change.added)
                    .arg(change.removed);
            }
        }
        return QIdentityProxyModel::data(index, role);
    }

private:
    QString m_root;
    FileChanges m_files;
};

// The workspace's files without the sandbox's placeholders: a recorded path is left out while it is still an
// empty file or directory (once someone writes into it, it is theirs and shown).
class PlaceholderFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setPlaceholders(const QStringList& paths) {
        if (paths == m_paths)
            return;
        m_paths = paths;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override {
        if (m_paths.isEmpty())
            return true;
        const QString path =
            sourceModel()->index(sourceRow, 0, sourceParent).data(QFileSystemModel::FilePathRole).toString();
        if (!m_paths.contains(path))
            return true;
        const QFileInfo info(path);
        if (info.isSymLink())
            return true;
        return info.isDir() ? !QDir(path).isEmpty(QDir::AllEntries | QDir::Hidden | QDir::System |
                                                  QDir::NoDotAndDotDot)
                            : !(info.isFile() && info.size() == 0);
    }

private:
    QStringList m_paths;
};

namespace {

QString mebibytes(double bytes) { return QStringLiteral("%1 MiB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 1); }

} // namespace

SidePanel::SidePanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto* filesBox = new QGroupBox(tr("Workspace"), this);
    auto* filesLayout = new QVBoxLayout(filesBox);
    m_files = new QFileSystemModel(this);
    m_files->setReadOnly(true);
    m_files->setFilter(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
    m_placeholders = new PlaceholderFilter(this);
    m_placeholders->setSourceModel(m_files);
    m_placeholders->setRecursiveFilteringEnabled(false);
    m_marked = new ChangedFilesModel(this);
    m_marked->setSourceModel(m_placeholders);
    m_tree = new QTreeView(filesBox);
    m_tree->setObjectName("files");
    m_tree->setModel(m_marked);
    for (int column = 1; column < m_files->columnCount(); ++column)
        m_tree->hideColumn(column);
    m_tree->header()->hide();
    m_tree->hide();
    filesLayout->addWidget(m_tree);
    connect(m_tree, &QTreeView::clicked, this, [this](const QModelIndex& index) {
        const QString path = m_marked->relativePath(index);
        if (!path.isEmpty())
            emit changedFileActivated(path);
    });
    layout->addWidget(filesBox, 3);

    auto* resourcesBox = new QGroupBox(tr("Resources"), this);
    auto* resourcesLayout = new QVBoxLayout(resourcesBox);
    m_memory = new Sparkline(resourcesBox);
    m_memory->setLabel(tr("Memory"));
    m_memory->setValueFormatter(mebibytes);
    m_cpu = new Sparkline(resourcesBox);
    m_cpu->setLabel(tr("CPU"));
    m_cpu->setValueFormatter([](double percent) { return QStringLiteral("%1 %").arg(percent, 0, 'f', 0); });
    m_numbers = new QLabel(resourcesBox);
    m_numbers->setObjectName("numbers");
    m_numbers->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_numbers->setWordWrap(true);
    resourcesLayout->addWidget(m_memory);
    resourcesLayout->addWidget(m_cpu);
    resourcesLayout->addWidget(m_numbers);
    layout->addWidget(resourcesBox, 1);
}

void SidePanel::setWorkspace(const QString& workspace) {
    if (workspace == m_workspace)
        return;
    m_workspace = workspace;
    m_tree->setVisible(!workspace.isEmpty()); // no task: no files to show (not the whole file system)
    if (workspace.isEmpty())
        return;
    m_tree->setRootIndex(
        m_marked->mapFromSource(m_placeholders->mapFromSource(m_files->setRootPath(workspace))));
}

void SidePanel::setPlaceholders(const QStringList& paths) {
    m_placeholders->setPlaceholders(paths);
    if (!m_workspace.isEmpty()) // the filter may have dropped the root's mapping
        m_tree->setRootIndex(
            m_marked->mapFromSource(m_placeholders->mapFromSource(m_files->index(m_workspace))));
}

void SidePanel::setActivity(const timeline::TaskCounters& activity, qint64 elapsedMs) {
    m_marked->setChanges(m_workspace, activity.files);
    m_memory->setSamples(activity.memoryBytes);
    m_cpu->setSamples(activity.cpuPercent);
    m_numbers->setText(tr("Tokens %1 in · %2 out\nSteps %3 · model calls %4 · tool calls %5\nElapsed %6")
                           .arg(activity.tokensIn)
                           .arg(activity.tokensOut)
                           .arg(activity.steps)
                           .arg(activity.modelCalls)
                           .arg(activity.toolCalls)
                           .arg(elapsedText(elapsedMs)));
}

} // namespace warren::ui
