#pragma once
// Settings' "Control plane" section: this computer, or a warrend (its URL and the API key `warrend admin
// add-user` printed, which goes to the keychain and is shown afterwards only as "stored"), and Test
// connection, which shows the server's version, who the key makes us, and our quotas and usage, or the
// clear reason it failed. Everything goes through the PlaneChooser interface.

#include "app/control/PlaneChooser.h"

#include <QGroupBox>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace warren::ui {

class ConnectionTest;

// One line per fact, for a person: the server, the account, what runs and what is left of the month.
QString accountText(const control::ServerAccount& account);

class ControlPlaneBox : public QGroupBox {
    Q_OBJECT
public:
    // opened: the plane the window has now (which may differ from the saved choice when the server could
    // not be reached at start).
    ControlPlaneBox(control::PlaneChooser& chooser, control::PlaneChoice opened, QWidget* parent = nullptr);

    control::PlaneChoice choice() const;
    // The choice on screen is another plane than the window has: saving it closes this one.
    bool switches() const;
    QString testResult() const;
    // Puts the cursor in the key field with why a new key is needed (the server refused the old one).
    void askForKey(const QString& why);
    // Saves the choice and a typed key; true in *reopen when the window must open the plane again.
    Status save(bool* reopen);

signals:
    void testFinished();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitLabels();
    void updateForm();
    void testConnection();

    control::PlaneChooser& m_chooser;
    control::PlaneChoice m_opened;
    QComboBox* m_kind;
    QLineEdit* m_url;
    QLineEdit* m_key;
    QLabel* m_keyState;
    ConnectionTest* m_test;
    QLabel* m_result;
};

} // namespace warren::ui
