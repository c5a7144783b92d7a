#include "ui/widgets/NetworkChoice.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QRegularExpression>

namespace warren::ui {

namespace {
const QString kAllow = QStringLiteral("allow");
const QString kAsk = QStringLiteral("ask");
}

NetworkChoice::NetworkChoice(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_kind = new QComboBox(this);
    m_kind->setObjectName("network");
    const struct {
        QString label, value, tip;
    } kinds[] = {
        {tr("No network"), "none", tr("The agent cannot open internet sockets at all")},
        {tr("Loopback only"), "loopback", tr("The sandbox's own 127.0.0.1, so test servers run; nothing outside it")},
        {tr("Listed hosts"), kAllow,
         tr("Only the hosts listed, through Warren's egress proxy (HTTP and HTTPS); every request is in the "
            "timeline")},
        {tr("Ask for others"), kAsk,
         tr("The hosts listed, and a question in the timeline about any other the agent tries to reach: allow "
            "it once, for the task, or always in this workspace")},
    };
    for (const auto& kind : kinds) {
        m_kind->addItem(kind.label, kind.value);
        m_kind->setItemData(m_kind->count() - 1, kind.tip, Qt::ToolTipRole);
    }
    m_hosts = new QLineEdit(this);
    m_hosts->setObjectName("hosts");
    m_hosts->setToolTip(tr("Host names, *.domain for its subdomains, or an address; :port for a port other than "
                           "80 and 443"));
    layout->addWidget(m_kind);
    layout->addWidget(m_hosts, 1);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &NetworkChoice::updateHosts);
    updateHosts();
}

QString NetworkChoice::value() const {
    const QString kind = m_kind->currentData().toString();
    if (kind != kAllow && kind != kAsk)
        return kind;
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    const QString hosts = m_hosts->text().split(separators, Qt::SkipEmptyParts).join(',');
    return kind == kAsk && hosts.isEmpty() ? kAsk : kind + ':' + hosts;
}

void NetworkChoice::setValue(const QString& network) {
    const QString kind = network.section(':', 0, 0);
    const bool listed = kind == kAllow || kind == kAsk;
    m_kind->setCurrentIndex(std::max(0, m_kind->findData(listed ? kind : network)));
    m_hosts->setText(listed ? network.section(':', 1).replace(',', QStringLiteral(", ")) : QString());
    updateHosts();
}

void NetworkChoice::updateHosts() {
    const QString kind = m_kind->currentData().toString();
    m_hosts->setVisible(kind == kAllow || kind == kAsk);
    m_hosts->setPlaceholderText(kind == kAsk ? tr("none: ask about every host") : tr("pypi.org, *.pythonhosted.org"));
}

} // namespace warren::ui
