#pragma once
// Where a task starts: the workspace (the recent ones, or browse), what to do, the presets, the model, the
// agent, the sandbox backend and the network policy. Enter runs it. After each run the choices return to the defaults
// from Settings, so a wider network for one task never carries over to the next.

#include <QWidget>
#include <string>
#include <vector>

class QComboBox;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace warren::ui {

class NetworkChoice;

class NewTaskBar : public QWidget {
    Q_OBJECT
public:
    struct Request {
        QString prompt;
        QString workspace;
        QStringList presets;
        QString model;   // empty: the configured one
        QString agent;   // TaskSpec::agent
        QString backend; // TaskSpec::backend
        QString network; // TaskSpec::network
    };

    // presetNames: the presets a task may name (ControlPlane::presetNames).
    explicit NewTaskBar(const std::vector<std::string>& presetNames, QWidget* parent = nullptr);

    void setRecentWorkspaces(const QStringList& workspaces);
    struct Defaults {
        QStringList presets;
        QString model;
        QString agent;
        QString backend;
        QString network;
    };
    void setDefaults(const Defaults& defaults); // from Settings
    void clearPrompt();
    QLineEdit* promptEdit() const { return m_prompt; }

signals:
    void runRequested(const warren::ui::NewTaskBar::Request& request);

private:
    void submit();
    QStringList checkedPresets() const;

    QComboBox* m_workspace;
    QLineEdit* m_prompt;
    QToolButton* m_presets;
    QLineEdit* m_model;
    QComboBox* m_agent;
    QComboBox* m_backend;
    NetworkChoice* m_network;
    QPushButton* m_run;
};

} // namespace warren::ui
