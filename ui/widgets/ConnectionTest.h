#pragma once
// Test connection, as a form shows it: the button, a Cancel under it while a test runs, a busy bar and the
// result beside them. One test at a time: begin() gives the context the caller runs the test in, and Cancel
// (or a new begin, or abandon when the form changes) deletes it, so whatever that call does then answers no
// one and its requests are aborted. Settings' model and its control plane both use it.

#include <QObject>
#include <QPointer>
#include <QString>

class QFormLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QWidget;

namespace warren::ui {

class ConnectionTest : public QObject {
    Q_OBJECT
public:
    // The object names tests and the forms find the parts by.
    struct Names {
        const char* test;
        const char* cancel;
        const char* progress;
        const char* result;
    };
    ConnectionTest(Names names, const QString& tip, QWidget* parent);

    // Its row of a form: the buttons in the label column, the busy bar and the result in the field's (a
    // layout, not a widget of its own: the form then gives the wrapped result the height it needs).
    void addRow(QFormLayout* form);
    QPushButton* testButton() const { return m_test; }
    QLabel* resultLabel() const { return m_result; }

    // A test starts: asking says what it asks; the context lives as long as the test.
    QObject* begin(const QString& asking);
    void end(const QString& result); // its answer
    void say(const QString& text);   // what the form says without a test (what is missing, a plane's reason)
    // The form changed under a running test: it ends without a word (its answer would be about another form).
    void abandon();
    bool running() const { return !m_context.isNull(); }
    QString result() const;
    void setTestEnabled(bool enabled); // while no test runs

signals:
    void requested(); // the Test button was clicked
    void finished();  // a test ended: answered or cancelled

private:
    void cancel();
    void showRunning(bool running);

    QWidget* m_buttons;
    QPushButton* m_test;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_result;
    QPointer<QObject> m_context;
    bool m_enabled = true;
};

} // namespace warren::ui
