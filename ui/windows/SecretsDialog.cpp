#include "ui/windows/SecretsDialog.h"

#include "app/control/ControlPlane.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFont>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace warren::ui {

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

} // namespace

SecretsDialog::SecretsDialog(control::ControlPlane& plane, QWidget* parent) : QDialog(parent), m_plane(plane) {
    setWindowTitle(tr("Secrets for hosts"));
    auto* layout = new QVBoxLayout(this);
    auto* about = new QLabel(tr("A task given a secret holds only a placeholder for it; Warren puts the real value "
                                "into its requests to the secret's hosts, and nowhere else."),
                             this);
    about->setWordWrap(true);
    layout->addWidget(about);

    m_table = new QTableWidget(0, 4, this);
    m_table->setObjectName("secrets");
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Hosts"), tr("Header"), tr("Bodies")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_table, 1);
    m_remove = new QPushButton(tr("Remove"), this);
    m_remove->setObjectName("remove");
    m_remove->setEnabled(false);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_remove->setEnabled(!m_table->selectedItems().isEmpty()); });
    connect(m_remove, &QPushButton::clicked, this, &SecretsDialog::removeSelected);
    layout->addWidget(m_remove, 0, Qt::AlignLeft);

    auto* addBox = new QGroupBox(tr("Add or replace a secret"), this);
    auto* form = new QFormLayout(addBox);
    m_name = new QLineEdit(addBox);
    m_name->setObjectName("name");
    m_name->setPlaceholderText(QStringLiteral("GH_TOKEN"));
    m_name->setToolTip(tr("The variable the sandbox sees, holding the placeholder"));
    m_hosts = new QLineEdit(addBox);
    m_hosts->setObjectName("hosts");
    m_hosts->setPlaceholderText(QStringLiteral("api.github.com, *.example.com"));
    m_header = new QLineEdit(addBox);
    m_header->setObjectName("header");
    m_header->setPlaceholderText(QStringLiteral("Authorization: Bearer {}"));
    m_header->setToolTip(tr("Optional: a header set on every request to those hosts, {} standing for the value. "
                            "Without one, the placeholder is replaced wherever the agent's headers hold it."));
    m_inBody = new QCheckBox(tr("Also in request bodies (JSON and forms get it escaped)"), addBox);
    m_inBody->setObjectName("inBody");
    m_value = new QLineEdit(addBox);
    m_value->setObjectName("value");
    m_value->setEchoMode(QLineEdit::Password);
    m_add = new QPushButton(tr("Add"), addBox);
    m_add->setObjectName("add");
    connect(m_add, &QPushButton::clicked, this, &SecretsDialog::add);
    connect(m_value, &QLineEdit::returnPressed, this, &SecretsDialog::add);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Hosts"), m_hosts);
    form->addRow(tr("Header"), m_header);
    form->addRow(QString(), m_inBody);
    form->addRow(tr("Value"), m_value);
    form->addRow(QString(), m_add);
    layout->addWidget(addBox);

    m_error = new QLabel(this);
    m_error->setObjectName("error");
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->hide();
    layout->addWidget(m_error);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(640, 460);
    reload();
}

void SecretsDialog::reload() {
    m_plane.hostSecrets(control::within(this, [this](Result<std::vector<wire::HostSecretEntry>> listed) {
        if (!listed)
            return showError(qs(listed.error().message));
        m_table->setRowCount(0);
        QStringList names;
        for (const auto& entry : *listed) {
            const int row = m_table->rowCount();
            m_table->insertRow(row);
            m_table->setItem(row, 0, new QTableWidgetItem(qs(entry.name)));
            m_table->setItem(row, 1, new QTableWidgetItem(qs(entry.hosts)));
            m_table->setItem(row, 2, new QTableWidgetItem(qs(entry.header)));
            m_table->setItem(row, 3, new QTableWidgetItem(entry.inBody ? tr("yes") : QString()));
            if (entry.scope == wire::SecretScope::Tenant) // the operator's: shown, used, never removed here
                for (int column = 0; column < m_table->columnCount(); ++column) {
                    QTableWidgetItem* item = m_table->item(row, column);
                    item->setFlags(Qt::ItemIsEnabled);
                    QFont font = item->font();
                    font.setItalic(true);
                    item->setFont(font);
                    item->setToolTip(tr("Set by the server's operator for everyone in your team; a secret of "
                                        "yours with this name is used before it."));
                }
            if (!names.contains(qs(entry.name)))
                names << qs(entry.name);
        }
        m_table->resizeColumnsToContents();
        emit changed(names);
    }));
}

void SecretsDialog::add() {
    const wire::HostSecretEntry binding{m_name->text().trimmed().toStdString(), m_hosts->text().trimmed().toStdString(),
                                        m_header->text().trimmed().toStdString(), {}, m_inBody->isChecked()};
    const std::string value = m_value->text().toStdString();
    if (binding.name.empty() || binding.hosts.empty() || value.empty())
        return showError(tr("A secret needs a name, its hosts and its value."));
    m_add->setEnabled(false);
    m_plane.setHostSecret(binding, value, control::within(this, [this](Status stored) {
        m_add->setEnabled(true);
        if (!stored)
            return showError(qs(stored.error().message));
        m_error->hide();
        for (QLineEdit* field : {m_name, m_hosts, m_header, m_value})
            field->clear();
        m_inBody->setChecked(false);
        reload();
    }));
}

void SecretsDialog::removeSelected() {
    const auto selected = m_table->selectedItems();
    if (selected.isEmpty())
        return;
    const std::string name = m_table->item(selected.front()->row(), 0)->text().toStdString();
    m_plane.deleteHostSecret(name, control::within(this, [this](Status removed) {
        if (!removed)
            return showError(qs(removed.error().message));
        m_error->hide();
        reload();
    }));
}

void SecretsDialog::showError(const QString& message) {
    m_error->setText(message);
    m_error->show();
}

} // namespace warren::ui
