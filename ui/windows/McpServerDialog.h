#pragma once
// One of the user's MCP servers, added or edited (Settings, "MCP servers"): its name, and either what starts
// it inside the task's sandbox (stdio: the command, its arguments one a line, NAME=VALUE environment lines)
// or where it is reached (http or sse: the URL, "Name: value" header lines). Save builds the entry as
// .mcp.json writes it and checks it with the agent's own reader (control::checkMcpServer); a server the
// agent would leave out stays open with the reason, and nothing is kept.

#include <QDialog>
#include <QStringList>
#include <nlohmann/json.hpp>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QWidget;

namespace warren::ui {

class McpServerDialog : public QDialog {
    Q_OBJECT
public:
    // name and entry: the server edited; empty name: a new one. taken: the names of the others, which a
    // new or renamed server may not have.
    McpServerDialog(const QString& name, const nlohmann::json& entry, QStringList taken,
                    QWidget* parent = nullptr);

    QString name() const;
    const nlohmann::json& entry() const { return m_entry; } // after Save: the server as .mcp.json holds it
    QString error() const;

    void accept() override;

private:
    void updateKind();
    void fail(const QString& message);

    QStringList m_taken;
    nlohmann::json m_entry = nlohmann::json::object();
    QLineEdit* m_name;
    QComboBox* m_kind;
    QFormLayout* m_form;
    QLineEdit* m_command;
    QPlainTextEdit* m_args;
    QPlainTextEdit* m_env;
    QLineEdit* m_url;
    QPlainTextEdit* m_headers;
    QLabel* m_remoteNote;
    QLabel* m_error;
};

} // namespace warren::ui
