#pragma once
// The secrets bound to hosts (DESIGN §12) of the control plane the window drives: this machine's (the value
// in the keychain), or the user's own on a warrend. Each is listed by name, hosts and header, never its
// value; one is added with its value typed into a password field (sent to the plane, then cleared), or
// removed. A task gets one from the new-task bar's Secrets.

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace warren::control {
class ControlPlane;
}

namespace warren::ui {

class SecretsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SecretsDialog(control::ControlPlane& plane, QWidget* parent = nullptr);

signals:
    void changed(const QStringList& names); // after a secret was added or removed: the names now

private:
    void reload();
    void add();
    void removeSelected();
    void showError(const QString& message);

    control::ControlPlane& m_plane;
    QTableWidget* m_table;
    QPushButton* m_remove;
    QLineEdit* m_name;
    QLineEdit* m_hosts;
    QLineEdit* m_header;
    QCheckBox* m_inBody;
    QLineEdit* m_value;
    QPushButton* m_add;
    QLabel* m_error;
};

} // namespace warren::ui
