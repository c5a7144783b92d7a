#pragma once
// Settings' "MCP servers" page: the user's own MCP servers (DESIGN §13), which every task the window starts
// gets besides its workspace's .mcp.json (a server of the same name: this one). Listed by name with how each
// starts or where it is reached; added and edited in McpServerDialog, removed, or imported from a .mcp.json
// (Claude Code's, read off the window's thread, at most 256 KiB): the servers that pass are added or replace
// those of their names, each refused one is said with its reason. Kept when Settings are saved.

#include <QWidget>
#include <nlohmann/json.hpp>

class QLabel;
class QTreeWidget;
class QPushButton;

namespace warren::ui {

class McpServersBox : public QWidget {
    Q_OBJECT
public:
    // remotePlane: tasks run on a server, which gets the servers with each task.
    explicit McpServersBox(bool remotePlane, QWidget* parent = nullptr);

    void setServers(const nlohmann::json& servers);
    const nlohmann::json& servers() const { return m_servers; }
    // Reads the file off the window's thread and merges what passes; importFinished when done.
    void importFile(const QString& path);
    QString status() const;

signals:
    void importFinished();

private:
    void showList();
    void edit(const QString& name); // "" adds one
    void removeSelected();
    void chooseFile();
    QString selectedName() const;
    void say(const QString& message, bool problem);

    nlohmann::json m_servers = nlohmann::json::object();
    QTreeWidget* m_list;
    QPushButton* m_edit;
    QPushButton* m_remove;
    QLabel* m_status;
};

} // namespace warren::ui
