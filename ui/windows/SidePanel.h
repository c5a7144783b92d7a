#pragma once
// Beside the timeline: the workspace's files, those the task changed marked (a click shows the change),
// and what the task used: memory and CPU over time, tokens, steps, model and tool calls, elapsed time.

#include "app/timeline/TaskCounters.h"

#include <QWidget>
#include <map>

class QFileSystemModel;
class QLabel;
class QTreeView;

namespace warren::ui {

class ChangedFilesModel;
class PlaceholderFilter;
class Sparkline;

class SidePanel : public QWidget {
    Q_OBJECT
public:
    explicit SidePanel(QWidget* parent = nullptr);

    void setWorkspace(const QString& workspace); // empty: nothing selected
    // Host paths not listed while they are an empty file or directory: the sandbox's placeholders of
    // protected paths (ControlPlane::placeholders), which are not the user's files.
    void setPlaceholders(const QStringList& paths);
    void setActivity(const timeline::TaskCounters& activity, qint64 elapsedMs);

signals:
    void changedFileActivated(const QString& relativePath);

private:
    QString m_workspace;
    QFileSystemModel* m_files;
    PlaceholderFilter* m_placeholders;
    ChangedFilesModel* m_marked;
    QTreeView* m_tree;
    Sparkline* m_memory;
    Sparkline* m_cpu;
    QLabel* m_numbers;
};

} // namespace warren::ui
