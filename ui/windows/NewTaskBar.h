#pragma once
// Where a task starts: the workspace (the recent ones, or browse), what to do, the presets and the model.
// Enter runs it.

#include <QWidget>

class QComboBox;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace warren::ui {

class NewTaskBar : public QWidget {
    Q_OBJECT
public:
    struct Request {
        QString prompt;
        QString workspace;
        QStringList presets;
        QString model; // empty: the configured one
    };

    explicit NewTaskBar(QWidget* parent = nullptr);

    void setRecentWorkspaces(const QStringList& workspaces);
    void setDefaults(const QStringList& presets, const QString& model); // from Settings
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
    QPushButton* m_run;
};

} // namespace warren::ui
