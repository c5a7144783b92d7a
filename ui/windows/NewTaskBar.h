#pragma once
// Where a task starts: the workspace (the recent ones, or browse), what to do, the presets, the model, the
// agent, the sandbox backend, the network policy and the secrets for hosts the task gets (in a second row when
// the window is narrow; the secrets only once there are some). Enter runs it. After each run the choices
// return to the defaults from Settings, so a wider network or a secret for one task never carries over to the
// next.

#include <QWidget>
#include <string>
#include <vector>

class QComboBox;
class QHBoxLayout;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace warren::ui {

class MultiChoiceButton;
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
        QStringList secrets; // TaskSpec::secrets
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
    void setSecretNames(const QStringList& names); // the plane's secrets for hosts (ControlPlane::hostSecrets)
    void clearPrompt();
    QLineEdit* promptEdit() const { return m_prompt; }

    // As narrow as its two rows can be, whichever it shows now: the window may be made that narrow, and the
    // bar then takes two rows.
    QSize minimumSizeHint() const override;

signals:
    void runRequested(const warren::ui::NewTaskBar::Request& request);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // What the workspace, the prompt and Run need beside the options for one row to do.
    static constexpr int kOneRowExtra = 640;

    void submit();

    QComboBox* m_workspace;
    QLineEdit* m_prompt;
    MultiChoiceButton* m_presets;
    MultiChoiceButton* m_secrets;
    QLineEdit* m_model;
    QComboBox* m_agent;
    QComboBox* m_backend;
    NetworkChoice* m_network;
    QPushButton* m_run;
    QWidget* m_options;        // presets, model, agent, backend, network, secrets
    QHBoxLayout* m_firstRow;   // workspace, prompt, [options,] Run
    QHBoxLayout* m_secondRow;  // [options] when the bar is narrow
};

} // namespace warren::ui
