#pragma once
// A task's network policy as the user picks it: no network, the sandbox's own loopback, listed hosts only
// (through the egress proxy), or listed hosts and a question about any other, with the hosts typed beside
// it. value() is the TaskSpec::network text.

#include <QWidget>

class QComboBox;
class QLineEdit;

namespace warren::ui {

class NetworkChoice : public QWidget {
    Q_OBJECT
public:
    explicit NetworkChoice(QWidget* parent = nullptr);

    // "none", "loopback", "allow:HOST,HOST", "ask" or "ask:HOST,HOST"; the hosts as typed, separated by commas
    // or spaces.
    QString value() const;
    void setValue(const QString& network);

private:
    void updateHosts();

    QComboBox* m_kind;
    QLineEdit* m_hosts;
};

} // namespace warren::ui
