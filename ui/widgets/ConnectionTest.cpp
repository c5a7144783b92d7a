#include "ui/widgets/ConnectionTest.h"

#include <QFormLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace warren::ui {

ConnectionTest::ConnectionTest(Names names, const QString& tip, QWidget* parent) : QObject(parent) {
    // Cancel under the button, not beside it: the result's column keeps its width while a test runs.
    m_buttons = new QWidget(parent);
    auto* buttons = new QVBoxLayout(m_buttons);
    buttons->setContentsMargins(0, 0, 0, 0);
    m_test = new QPushButton(tr("Test connection"), m_buttons);
    m_test->setObjectName(names.test);
    m_test->setToolTip(tip);
    m_cancel = new QPushButton(tr("Cancel"), m_buttons);
    m_cancel->setObjectName(names.cancel);
    m_cancel->setToolTip(tr("Stop the test now"));
    m_cancel->hide();
    buttons->addWidget(m_test);
    buttons->addWidget(m_cancel);
    m_progress = new QProgressBar(parent);
    m_progress->setObjectName(names.progress);
    m_progress->setRange(0, 0); // busy: how long the other side takes is not known
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(m_progress->fontMetrics().height() / 2 + 4);
    m_progress->hide();
    m_result = new QLabel(parent);
    m_result->setObjectName(names.result);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_test, &QPushButton::clicked, this, &ConnectionTest::requested);
    connect(m_cancel, &QPushButton::clicked, this, &ConnectionTest::cancel);
}

void ConnectionTest::addRow(QFormLayout* form) {
    auto* state = new QVBoxLayout();
    state->addWidget(m_progress);
    state->addWidget(m_result);
    form->addRow(m_buttons, state);
}

QObject* ConnectionTest::begin(const QString& asking) {
    abandon();
    m_context = new QObject(this);
    showRunning(true);
    m_result->setText(asking);
    return m_context;
}

void ConnectionTest::end(const QString& result) {
    if (m_context)
        m_context->deleteLater(); // it may be the sender of this answer
    m_context.clear();
    showRunning(false);
    m_result->setText(result);
    emit finished();
}

void ConnectionTest::say(const QString& text) {
    m_result->setText(text);
}

void ConnectionTest::abandon() {
    if (!m_context)
        return;
    delete m_context.data(); // the call's requests with it; its answer never comes
    showRunning(false);
    m_result->clear();
}

void ConnectionTest::cancel() {
    if (!m_context)
        return;
    delete m_context.data();
    showRunning(false);
    m_result->setText(tr("Test cancelled."));
    emit finished();
}

QString ConnectionTest::result() const {
    return m_result->text();
}

void ConnectionTest::setTestEnabled(bool enabled) {
    m_enabled = enabled;
    m_test->setEnabled(enabled && !running());
}

void ConnectionTest::showRunning(bool running) {
    m_test->setEnabled(m_enabled && !running);
    m_cancel->setVisible(running);
    m_progress->setVisible(running);
}

} // namespace warren::ui
