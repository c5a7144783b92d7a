#include "ui/windows/McpServerDialog.h"

#include "app/control/McpServerSettings.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace warren::ui {

namespace {

using nlohmann::json;

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

// The text's lines, blank ones left out (a trailing newline is no argument).
QStringList lines(const QPlainTextEdit* edit) {
    QStringList out;
    for (const QString& line : edit->toPlainText().split('\n'))
        if (!line.trimmed().isEmpty())
            out << line;
    return out;
}

// "NAME=VALUE" (env) or "Name: value" (headers) lines into an object; the first line that is neither, said.
bool pairs(const QPlainTextEdit* edit, QChar separator, const QString& what, json& out, QString& error) {
    out = json::object();
    int number = 0;
    for (const QString& line : edit->toPlainText().split('\n')) {
        ++number;
        if (line.trimmed().isEmpty())
            continue;
        const qsizetype at = line.indexOf(separator);
        const QString key = at < 0 ? QString() : line.left(at).trimmed();
        if (key.isEmpty()) {
            error = QObject::tr("%1, line %2: expected %3")
                        .arg(what)
                        .arg(number)
                        .arg(separator == '=' ? QStringLiteral("NAME=VALUE") : QStringLiteral("Name: value"));
            return false;
        }
        QString value = line.mid(at + 1);
        if (separator == ':')
            value = value.trimmed();
        out[key.toStdString()] = value.toStdString();
    }
    return true;
}

void showPairs(QPlainTextEdit* edit, const json& entry, const char* key, const QString& separator) {
    const auto it = entry.find(key);
    if (it == entry.end() || !it->is_object())
        return;
    QStringList out;
    for (const auto& [name, value] : it->items())
        out << qs(name) + separator + (value.is_string() ? qs(value.get<std::string>()) : qs(value.dump()));
    edit->setPlainText(out.join('\n'));
}

QString stringOf(const json& entry, const char* key) {
    const auto it = entry.find(key);
    return it != entry.end() && it->is_string() ? qs(it->get<std::string>()) : QString();
}

QPlainTextEdit* linesEdit(QWidget* parent, const QString& objectName, const QString& placeholder) {
    auto* edit = new QPlainTextEdit(parent);
    edit->setObjectName(objectName);
    edit->setPlaceholderText(placeholder);
    edit->setTabChangesFocus(true);
    edit->setLineWrapMode(QPlainTextEdit::NoWrap); // a line is one argument or variable
    edit->setFixedHeight(edit->fontMetrics().lineSpacing() * 4 + 12);
    return edit;
}

} // namespace

McpServerDialog::McpServerDialog(const QString& name, const json& entry, QStringList taken, QWidget* parent)
    : QDialog(parent), m_taken(std::move(taken)) {
    setWindowTitle(name.isEmpty() ? tr("Add an MCP server") : tr("MCP server %1").arg(name));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout();
    m_name = new QLineEdit(name, this);
    m_name->setObjectName("mcpName");
    m_name->setPlaceholderText(tr("github"));
    m_name->setToolTip(tr("Letters, digits, '_' and '-': the model calls its tools mcp__NAME__TOOL"));
    m_kind = new QComboBox(this);
    m_kind->setObjectName("mcpKind");
    m_kind->addItem(tr("Started in the task's sandbox (stdio)"), QStringLiteral("stdio"));
    m_kind->addItem(tr("Remote, streamable HTTP (http)"), QStringLiteral("http"));
    m_kind->addItem(tr("Remote, server-sent events (sse)"), QStringLiteral("sse"));
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Kind"), m_kind);
    layout->addLayout(form);

    // One form for both kinds, the other kind's rows hidden: the fields line up.
    m_command = new QLineEdit(this);
    m_command->setObjectName("mcpCommand");
    m_command->setPlaceholderText(QStringLiteral("npx"));
    m_args =
        linesEdit(this, "mcpArgs", tr("one argument a line, e.g.\n-y\n@modelcontextprotocol/server-github"));
    m_env = linesEdit(this, "mcpEnv",
                      tr("NAME=VALUE, one a line; ${NAME} is the task's own:\n"
                         "TOKEN=${GITHUB_TOKEN}"));
    m_url = new QLineEdit(this);
    m_url->setObjectName("mcpUrl");
    m_url->setPlaceholderText(QStringLiteral("https://mcp.example.com/mcp"));
    m_headers =
        linesEdit(this, "mcpHeaders", tr("Name: value, one a line, e.g.\nAuthorization: Bearer ${TOKEN}"));
    m_remoteNote =
        new QLabel(tr("The agent reaches it through the task's egress proxy: the task's network must "
                      "allow its host (or ask). A token in a header belongs in a secret for that host."),
                   this);
    m_remoteNote->setObjectName("mcpRemoteNote");
    m_remoteNote->setWordWrap(true);
    form->addRow(tr("Command"), m_command);
    form->addRow(tr("Arguments"), m_args);
    form->addRow(tr("Environment"), m_env);
    form->addRow(tr("URL"), m_url);
    form->addRow(tr("Headers"), m_headers);
    form->addRow(m_remoteNote);
    m_form = form;

    m_error = new QLabel(this);
    m_error->setObjectName("mcpError");
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #d03b3b"));
    m_error->hide();
    layout->addWidget(m_error);
    layout->addStretch(1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &McpServerDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &McpServerDialog::reject);
    layout->addWidget(buttons);

    // What the entry holds, shown in its fields (every kept entry passed the agent's reader: its type is one
    // of the three).
    const QString type = stringOf(entry, "type");
    const int kind = m_kind->findData(type.isEmpty() ? QStringLiteral("stdio") : type);
    m_kind->setCurrentIndex(kind < 0 ? 0 : kind);
    m_command->setText(stringOf(entry, "command"));
    if (const auto args = entry.find("args"); args != entry.end() && args->is_array()) {
        QStringList shown;
        for (const auto& arg : *args)
            shown << (arg.is_string() ? qs(arg.get<std::string>()) : qs(arg.dump()));
        m_args->setPlainText(shown.join('\n'));
    }
    showPairs(m_env, entry, "env", QStringLiteral("="));
    m_url->setText(stringOf(entry, "url"));
    showPairs(m_headers, entry, "headers", QStringLiteral(": "));
    connect(m_kind, &QComboBox::currentIndexChanged, this, &McpServerDialog::updateKind);
    updateKind();
    setMinimumWidth(fontMetrics().averageCharWidth() * 70);
}

QString McpServerDialog::name() const {
    return m_name->text().trimmed();
}

QString McpServerDialog::error() const {
    return m_error->isHidden() ? QString() : m_error->text();
}

void McpServerDialog::updateKind() {
    const bool stdio = m_kind->currentData().toString() == QLatin1String("stdio");
    for (QWidget* field :
         {static_cast<QWidget*>(m_command), static_cast<QWidget*>(m_args), static_cast<QWidget*>(m_env)})
        m_form->setRowVisible(field, stdio);
    for (QWidget* field : {static_cast<QWidget*>(m_url), static_cast<QWidget*>(m_headers),
                           static_cast<QWidget*>(m_remoteNote)})
        m_form->setRowVisible(field, !stdio);
}

void McpServerDialog::fail(const QString& message) {
    m_error->setText(message);
    m_error->show();
}

void McpServerDialog::accept() {
    const QString server = name();
    if (server.isEmpty())
        return fail(tr("Give the server a name: the model calls its tools mcp__NAME__TOOL."));
    if (m_taken.contains(server))
        return fail(
            tr("There is a server named %1 already: choose another name, or edit that one.").arg(server));
    json entry = json::object();
    QString problem;
    const QString kind = m_kind->currentData().toString();
    if (kind == QLatin1String("stdio")) {
        entry["command"] = m_command->text().trimmed().toStdString();
        json args = json::array();
        for (const QString& arg : lines(m_args))
            args.push_back(arg.toStdString());
        if (!args.empty())
            entry["args"] = std::move(args);
        json env;
        if (!pairs(m_env, '=', tr("Environment"), env, problem))
            return fail(problem);
        if (!env.empty())
            entry["env"] = std::move(env);
    } else {
        entry["type"] = kind.toStdString();
        entry["url"] = m_url->text().trimmed().toStdString();
        json headers;
        if (!pairs(m_headers, ':', tr("Headers"), headers, problem))
            return fail(problem);
        if (!headers.empty())
            entry["headers"] = std::move(headers);
    }
    if (auto valid = control::checkMcpServer(server.toStdString(), entry); !valid)
        return fail(qs(valid.error().message));
    m_entry = std::move(entry);
    QDialog::accept();
}

} // namespace warren::ui
