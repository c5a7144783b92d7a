#pragma once
// Settings: the model (provider, base URL for a compatible server, model name, the API key, which goes to
// the keychain and is never shown again), a test of that connection, the presets new tasks start with,
// how many tasks run at a time, and the sandbox (bubblewrap, or Podman/Docker where found, with the image;
// the default network policy), and the shell commands always allowed (remove only: they are added from an
// approval); on a page of its own, the user's MCP servers (McpServersBox), which every task started here gets.
// Everything is saved through the control plane, so it is the same for `warren run`. Given a PlaneChooser,
// the dialog starts with the choice of control plane (ControlPlaneBox). Over a server's plane, the provider's
// key is stored on the server for the user's own tasks, and what only this computer's plane uses (the
// sandbox, tasks at a time, always-allowed commands, trying the model from here) is shown as such.

#include "app/control/ControlPlane.h"
#include "app/control/PlaneChooser.h"
#include "ui/windows/ModelFields.h"

#include <QDialog>
#include <optional>

class QComboBox;
class QLabel;
class QGroupBox;
class QLineEdit;
class QPushButton;
class QScrollArea;
class QTabWidget;
class QSpinBox;
class QListWidget;

namespace warren::ui {

class ConnectionTest;
class ControlPlaneBox;
class McpServersBox;
class NetworkChoice;

// What the dialog needs to offer the choice of control plane; no chooser: no choice offered.
struct PlaneContext {
    control::PlaneChooser* chooser = nullptr;
    control::PlaneChoice opened; // the plane the window has now
};

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    SettingsDialog(control::ControlPlane& plane, QWidget* parent = nullptr, PlaneContext context = {});

    // The --provider value the form describes ("" for none), e.g. "openai-compatible:http://host:8080/v1".
    QString providerSpec() const;
    QString testResult() const;
    ControlPlaneBox* controlPlaneBox() const { return m_planeBox; }
    // "Set up a model…": the model section in view, the focus in the first field still to fill (again when
    // the keychain answers whether a key is stored, unless the person has typed meanwhile).
    void showModelSection();
    McpServersBox* mcpServersBox() const { return m_mcp; }
    // After Save: the saved choice of control plane (or its key) differs from the plane the window has.
    bool reopenNeeded() const { return m_reopen; }

    void accept() override;

protected:
    void showEvent(QShowEvent* event) override;

signals:
    void testFinished();

private:
    void load();
    // Saves the choices (the control plane, the key, the settings), then closes; or says what failed.
    void save(const control::Settings& settings);
    void fail(const std::string& message);
    void updateForm();
    void updateSandbox();
    void testConnection();
    ModelFormState formState() const;
    QWidget* field(ModelField which) const;
    void focusFirstToFill();
    QString keyName() const;

    control::ControlPlane& m_plane;
    bool m_remotePlane; // the plane the dialog saves to is a server's
    control::Settings m_settings;
    ControlPlaneBox* m_planeBox = nullptr;
    bool m_reopen = false;
    bool m_sized = false; // sized to fit its screen, once
    QTabWidget* m_tabs;
    QScrollArea* m_agentsScroll;
    QComboBox* m_provider;
    QLineEdit* m_baseUrl;
    QString m_typedUrl; // a compatible server's address as typed, kept while a named provider shows its own
    QLineEdit* m_model;
    QLineEdit* m_key;
    QLabel* m_keyState;
    std::optional<bool> m_keyStored; // for the provider shown; nullopt until the keychain answers
    bool m_landing = false;          // showModelSection's focus, until the person types
    ConnectionTest* m_connectionTest;
    QListWidget* m_presets;
    QSpinBox* m_maxConcurrent;
    QSpinBox* m_idleSleep; // minutes; 0: never
    QSpinBox* m_retention; // days a finished task keeps its files; 0: for ever
    QSpinBox* m_warm;      // warm podman containers per kind of task (shown to a root Warren only)
    QComboBox* m_agent;
    QComboBox* m_backend;
    QLineEdit* m_image;
    NetworkChoice* m_network;
    QListWidget* m_allowedCommands;
    McpServersBox* m_mcp;
    QLabel* m_error;
};

} // namespace warren::ui
