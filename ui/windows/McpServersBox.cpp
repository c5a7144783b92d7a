#include "ui/windows/McpServersBox.h"

#include "app/control/McpServerSettings.h"
#include "app/control/OffThread.h"
#include "ui/windows/McpServerDialog.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace warren::ui {

namespace {

using nlohmann::json;

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

// The file's text, refused when it is not a regular file or is larger than an import takes (a FIFO or a
// device would never end). Runs off the window's thread.
Result<std::string> readImport(const QString& path) {
    const QFileInfo info(path);
    if (!info.exists())
        return makeError(ErrorCode::NotFound, path.toStdString() + ": no such file");
    if (!info.isFile())
        return makeError(ErrorCode::InvalidArgument, path.toStdString() + ": not a regular file");
    if (info.size() > qint64(control::kMaxMcpServerSettingsBytes))
        return makeError(ErrorCode::InvalidArgument,
                         path.toStdString() + ": larger than " +
                             std::to_string(control::kMaxMcpServerSettingsBytes / 1024) + " KiB");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::System, path.toStdString() + ": " + file.errorString().toStdString());
    const QByteArray bytes = file.read(qint64(control::kMaxMcpServerSettingsBytes) + 1);
    return bytes.toStdString();
}

} // namespace

McpServersBox::McpServersBox(bool remotePlane, QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* about = new QLabel(
        (remotePlane
             ? tr("Every task you start gets these servers, sent with it to the server: a stdio one is "
                  "started inside the task's sandbox there, a remote one reached through its egress proxy. ")
             : tr("Every task the window and <tt>warren run</tt> start gets these servers: a stdio one is "
                  "started inside the task's sandbox, a remote one reached through its egress proxy. ")) +
            tr("A workspace's own <tt>.mcp.json</tt> is read too; a server of the same name there is left "
               "out "
               "for yours. The model calls their tools <tt>mcp__NAME__TOOL</tt>. A token belongs in a "
               "secret: "
               "write <tt>${NAME}</tt> and choose the secret NAME for the task."),
        this);
    about->setObjectName("mcpAbout");
    about->setWordWrap(true);
    about->setTextFormat(Qt::RichText);
    layout->addWidget(about);

    auto* row = new QHBoxLayout();
    m_list = new QTreeWidget(this);
    m_list->setObjectName("mcpServers");
    m_list->setRootIsDecorated(false);
    m_list->setAlternatingRowColors(true);
    m_list->setHeaderLabels({tr("Server"), tr("How it runs")});
    m_list->header()->setStretchLastSection(true);
    m_list->setTextElideMode(Qt::ElideMiddle);
    row->addWidget(m_list, 1);
    auto* buttons = new QVBoxLayout();
    auto* add = new QPushButton(tr("Add…"), this);
    add->setObjectName("mcpAdd");
    m_edit = new QPushButton(tr("Edit…"), this);
    m_edit->setObjectName("mcpEdit");
    m_remove = new QPushButton(tr("Remove"), this);
    m_remove->setObjectName("mcpRemove");
    auto* import = new QPushButton(tr("Import .mcp.json…"), this);
    import->setObjectName("mcpImport");
    import->setToolTip(
        tr("Add the servers of a .mcp.json file, as Claude Code reads it ({\"mcpServers\": {...}}); "
           "one of a name you have replaces yours"));
    for (QPushButton* button : {add, m_edit, m_remove, import})
        buttons->addWidget(button);
    buttons->addStretch(1);
    row->addLayout(buttons);
    layout->addLayout(row, 1);

    m_status = new QLabel(this);
    m_status->setObjectName("mcpStatus");
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->hide();
    layout->addWidget(m_status);

    connect(add, &QPushButton::clicked, this, [this] { edit(QString()); });
    connect(m_edit, &QPushButton::clicked, this, [this] { edit(selectedName()); });
    connect(m_list, &QTreeWidget::itemDoubleClicked, this, [this] { edit(selectedName()); });
    connect(m_remove, &QPushButton::clicked, this, &McpServersBox::removeSelected);
    connect(import, &QPushButton::clicked, this, &McpServersBox::chooseFile);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] {
        m_edit->setEnabled(!selectedName().isEmpty());
        m_remove->setEnabled(!selectedName().isEmpty());
    });
    showList();
}

void McpServersBox::setServers(const json& servers) {
    m_servers = servers.is_object() ? servers : json::object();
    showList();
}

void McpServersBox::showList() {
    const QString selected = selectedName();
    m_list->clear();
    for (const auto& [name, entry] : m_servers.items()) {
        auto* item = new QTreeWidgetItem(m_list, {qs(name), qs(control::describeMcpServer(entry))});
        item->setData(0, Qt::UserRole, qs(name));
        item->setToolTip(1, qs(entry.dump(2)));
        if (qs(name) == selected)
            m_list->setCurrentItem(item);
    }
    if (m_servers.empty()) {
        auto* item = new QTreeWidgetItem(m_list, {tr("None yet"), tr("Add one, or import a .mcp.json")});
        item->setFlags(Qt::NoItemFlags);
    }
    m_list->resizeColumnToContents(0);
    m_edit->setEnabled(!selectedName().isEmpty());
    m_remove->setEnabled(!selectedName().isEmpty());
}

QString McpServersBox::selectedName() const {
    const QTreeWidgetItem* item = m_list->currentItem();
    return item ? item->data(0, Qt::UserRole).toString() : QString();
}

void McpServersBox::edit(const QString& name) {
    if (!name.isEmpty() && !m_servers.contains(name.toStdString()))
        return;
    QStringList taken;
    for (const auto& [other, entry] : m_servers.items())
        if (qs(other) != name)
            taken << qs(other);
    auto* dialog = new McpServerDialog(
        name, name.isEmpty() ? json::object() : m_servers.at(name.toStdString()), taken, this);
    dialog->setObjectName("mcpServerDialog");
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, name] {
        if (!name.isEmpty())
            m_servers.erase(name.toStdString());
        m_servers[dialog->name().toStdString()] = dialog->entry();
        showList();
        for (int i = 0; i < m_list->topLevelItemCount(); ++i)
            if (m_list->topLevelItem(i)->data(0, Qt::UserRole).toString() == dialog->name())
                m_list->setCurrentItem(m_list->topLevelItem(i));
        m_status->hide();
    });
    dialog->open(); // window-modal, no loop of its own
}

void McpServersBox::removeSelected() {
    const QString name = selectedName();
    if (name.isEmpty())
        return;
    m_servers.erase(name.toStdString());
    showList();
    say(tr("%1 removed; Save keeps the change.").arg(name), false);
}

void McpServersBox::chooseFile() {
    auto* dialog = new QFileDialog(this, tr("Import MCP servers"), QString(),
                                   tr("MCP configuration (*.json);;All files (*)"));
    dialog->setObjectName("mcpImportFile");
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &McpServersBox::importFile);
    dialog->open();
}

void McpServersBox::importFile(const QString& path) {
    say(tr("Reading %1…").arg(path), false);
    control::offThread<std::string>(
        this, [path] { return readImport(path); },
        control::Done<std::string>([this, path](Result<std::string> text) {
            auto imported = text ? control::readMcpImport(*text) : Result<control::McpImport>(text.error());
            if (!imported) {
                say(tr("Nothing imported from %1: %2").arg(path, qs(imported.error().message)), true);
                emit importFinished();
                return;
            }
            QStringList names;
            for (const auto& [name, entry] : imported->servers.items()) {
                m_servers[name] = entry;
                names << qs(name);
            }
            showList();
            QString message = names.isEmpty()
                                  ? tr("No server of %1 could be used.").arg(path)
                                  : tr("Imported %1; Save keeps them.").arg(names.join(QStringLiteral(", ")));
            for (const std::string& refused : imported->refused)
                message += QStringLiteral("\n") + tr("Left out: %1").arg(qs(refused));
            say(message, !imported->refused.empty() || names.isEmpty());
            emit importFinished();
        }));
}

QString McpServersBox::status() const {
    return m_status->isHidden() ? QString() : m_status->text();
}

void McpServersBox::say(const QString& message, bool problem) {
    m_status->setText(message);
    m_status->setStyleSheet(problem ? QStringLiteral("color: #b8741a") : QString());
    m_status->show();
}

} // namespace warren::ui
