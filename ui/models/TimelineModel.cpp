#include "TimelineModel.h"

#include "ApprovalRules.h"

#include <set>

namespace warren::ui {

using nlohmann::json;
using Kind = TimelineItem::Kind;
using State = TimelineItem::State;

class TimelineModel::Batch {
public:
    std::set<std::size_t> changed; // items the view already shows whose content changed
};

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

std::string stringField(const json& object, const char* name) {
    const auto it = object.find(name);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

QString firstLine(const std::string& text) {
    const auto end = text.find('\n');
    return end == std::string::npos ? qs(text) : qs(text.substr(0, end)) + QStringLiteral(" …");
}

// The card's title for a call: what it does, as a developer would write it.
QString describeCall(const std::string& tool, const json& arguments) {
    const std::string path = stringField(arguments, "path");
    if (tool == "shell")
        return QStringLiteral("$ ") + firstLine(stringField(arguments, "command"));
    if (tool == "write_file")
        return QStringLiteral("write ") + qs(path);
    if (tool == "edit_file")
        return QStringLiteral("edit ") + qs(path);
    if (tool == "read_file")
        return QStringLiteral("read ") + qs(path);
    if (tool == "list_files")
        return QStringLiteral("list ") + (path.empty() ? QStringLiteral(".") : qs(path));
    if (tool == "search")
        return QStringLiteral("search ") + qs(stringField(arguments, "pattern")) +
               (path.empty() ? QString() : QStringLiteral(" in ") + qs(path));
    if (tool == "memory_save")
        return QStringLiteral("remember ") + qs(stringField(arguments, "key"));
    if (tool == "memory_load")
        return QStringLiteral("recall ") + qs(stringField(arguments, "key"));
    if (tool == "memory_search")
        return QStringLiteral("search memory for ") + qs(stringField(arguments, "query"));
    return qs(tool) + QLatin1Char(' ') + firstLine(arguments.dump());
}

QString duration(std::uint64_t ms) {
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    if (ms < 60000)
        return QStringLiteral("%1 s").arg(static_cast<double>(ms) / 1000.0, 0, 'f', 1);
    return QStringLiteral("%1 min %2 s").arg(ms / 60000).arg((ms % 60000) / 1000);
}

// Colours of a unified diff's lines, as palette indices of the ANSI parser's styles.
void appendDiff(StyledText& body, const std::string& diff) {
    std::size_t start = 0;
    while (start < diff.size()) {
        std::size_t end = diff.find('\n', start);
        end = end == std::string::npos ? diff.size() : end + 1;
        const std::string line = diff.substr(start, end - start);
        TextStyle style;
        if (line.starts_with("+++") || line.starts_with("---"))
            style.bold = true;
        else if (line.starts_with('+'))
            style.fg = 2; // green
        else if (line.starts_with('-'))
            style.fg = 1; // red
        else if (line.starts_with("@@"))
            style.fg = 6; // cyan
        body.append(qs(line), style);
        start = end;
    }
}

} // namespace

void TimelineModel::reset(const QString& taskId, const QString& prompt) {
    beginResetModel();
    m_taskId = taskId;
    m_items.clear();
    m_calls.clear();
    m_approvals.clear();
    m_lastChange.clear();
    m_streaming.reset();
    m_lastSeq = 0;
    m_activity = {};
    TimelineItem& task = m_items.emplace_back();
    task.kind = Kind::Task;
    task.title = tr("Task");
    task.prose = prompt;
    m_committed = m_items.size();
    endResetModel();
    emit activityChanged();
}

const TimelineItem* TimelineModel::item(int row) const {
    return row >= 0 && static_cast<std::size_t>(row) < m_committed ? &m_items[static_cast<std::size_t>(row)] : nullptr;
}

int TimelineModel::lastChangeOf(const QString& path) const {
    const auto it = m_lastChange.find(path);
    return it == m_lastChange.end() ? -1 : static_cast<int>(it->second);
}

int TimelineModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_committed);
}

QVariant TimelineModel::data(const QModelIndex& index, int role) const {
    const TimelineItem* it = item(index.row());
    if (!it)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return it->title;
    case Qt::ToolTipRole:
        return it->detail;
    case KindRole:
        return static_cast<int>(it->kind);
    case StateRole:
        return static_cast<int>(it->state);
    case CallIdRole:
        return it->callId;
    default:
        return {};
    }
}

void TimelineModel::setExpanded(int row, bool expanded) {
    if (row < 0 || static_cast<std::size_t>(row) >= m_committed)
        return;
    m_items[static_cast<std::size_t>(row)].expanded = expanded;
    ++m_items[static_cast<std::size_t>(row)].version;
    emit dataChanged(index(row), index(row));
}

void TimelineModel::append(const std::vector<json>& events) {
    Batch batch;
    const std::size_t before = m_committed;
    for (const json& event : events) {
        if (!event.is_object())
            continue;
        const auto seq = event.value("seq", std::uint64_t{0});
        if (seq <= m_lastSeq)
            continue;
        m_lastSeq = seq;
        m_activity.add(event);
        take(event, batch);
    }
    if (m_items.size() > m_committed) {
        beginInsertRows({}, static_cast<int>(m_committed), static_cast<int>(m_items.size()) - 1);
        m_committed = m_items.size();
        endInsertRows();
    }
    if (auto first = batch.changed.begin(); first != batch.changed.end() && *first < before) {
        const auto last = std::prev(batch.changed.lower_bound(before));
        emit dataChanged(index(static_cast<int>(*first)), index(static_cast<int>(*last)));
    }
    if (!events.empty())
        emit activityChanged();
}

TimelineItem& TimelineModel::newItem(Kind kind, std::uint64_t step, std::uint64_t seq) {
    TimelineItem& created = m_items.emplace_back();
    created.kind = kind;
    created.step = step;
    created.firstSeq = seq;
    return created;
}

void TimelineModel::take(const json& event, Batch& batch) {
    const std::string type = event.value("type", "");
    const auto step = event.value("step", std::uint64_t{0});
    const auto seq = event.value("seq", std::uint64_t{0});
    static const json kNoData = json::object();
    const auto found = event.find("data");
    const json& data = found != event.end() && found->is_object() ? *found : kNoData; // not copied: 100,000s of them
    const std::string tool = stringField(event, "tool");
    auto touch = [&](std::size_t index) {
        ++m_items[index].version;
        batch.changed.insert(index);
    };
    auto notice = [&](State state, QString title, QString detail = {}) -> TimelineItem& {
        TimelineItem& item = newItem(Kind::Notice, step, seq);
        item.state = state;
        item.title = std::move(title);
        item.detail = std::move(detail);
        return item;
    };
    auto callItem = [&](const std::string& id) -> std::optional<std::size_t> {
        const auto it = m_calls.find(qs(id));
        if (it == m_calls.end())
            return std::nullopt;
        return it->second;
    };

    if (type == "step_started") {
        m_streaming.reset();
        TimelineItem& item = newItem(Kind::Step, step, seq);
        item.title = tr("Step %1").arg(step);
    } else if (type == "model_delta") {
        if (!m_streaming) {
            newItem(Kind::ModelText, step, seq).state = State::Running;
            m_streaming = m_items.size() - 1;
        }
        m_items[*m_streaming].prose += qs(stringField(data, "text"));
        touch(*m_streaming);
    } else if (type == "model_response") {
        const QString content = qs(stringField(data, "content"));
        std::optional<std::size_t> target = m_streaming;
        if (!target && !content.trimmed().isEmpty()) {
            newItem(Kind::ModelText, step, seq);
            target = m_items.size() - 1;
        }
        if (target) {
            TimelineItem& item = m_items[*target];
            if (!content.isEmpty())
                item.prose = content; // the whole reply is the authority over its streamed pieces
            item.state = State::Plain;
            const auto usage = event.find("token_usage");
            if (usage != event.end() && usage->is_object() && usage->value("input", std::uint64_t{0}) > 0)
                item.detail = tr("%1 tokens in, %2 out")
                                  .arg(usage->value("input", std::uint64_t{0}))
                                  .arg(usage->value("output", std::uint64_t{0}));
            touch(*target);
        }
        m_streaming.reset();
    } else if (type == "tool_call") {
        const std::string id = stringField(data, "id");
        const json arguments = data.contains("arguments") ? data["arguments"] : json::object();
        TimelineItem& item = newItem(Kind::ToolCall, step, seq);
        item.state = State::Running;
        item.callId = qs(id);
        item.title = tool == "finish" ? tr("finish") : describeCall(tool, arguments);
        if (tool == "shell") {
            const std::string command = stringField(arguments, "command");
            if (command.find('\n') != std::string::npos)
                item.detail = qs(command);
        }
        m_calls[item.callId] = m_items.size() - 1;
    } else if (type == "tool_output") {
        if (const auto index = callItem(stringField(data, "id"))) {
            TimelineItem& item = m_items[*index];
            item.body.append(item.parser.feed(stringField(data, "text")));
            touch(*index);
        }
    } else if (type == "tool_result") {
        if (const auto index = callItem(stringField(data, "id"))) {
            TimelineItem& item = m_items[*index];
            const bool ran = data.contains("exit_code") && data["exit_code"].is_number_integer();
            const int exitCode = ran ? data["exit_code"].get<int>() : -1;
            QStringList facts;
            if (data.value("denied", false))
                facts << tr("denied");
            else if (data.value("interrupted", false))
                facts << tr("interrupted");
            else if (data.value("timed_out", false))
                facts << tr("timed out");
            else if (ran)
                facts << tr("exit %1").arg(exitCode);
            if (data.value("cached", false))
                facts << tr("cached");
            if (const auto ms = event.find("duration_ms"); ms != event.end() && ms->is_number_unsigned())
                facts << duration(ms->get<std::uint64_t>());
            item.detail = facts.join(QStringLiteral(" · "));
            item.state = ran && exitCode == 0 && !data.value("denied", false) ? State::Succeeded : State::Failed;
            // Tools that print nothing while they run (read_file, search, ...) show what the model read.
            if (item.body.isEmpty())
                item.body.append(item.parser.feed(stringField(data, "output")));
            touch(*index);
        }
    } else if (type == "file_changed") {
        const QString path = qs(stringField(data, "path"));
        const std::string change = stringField(data, "change");
        TimelineItem& item = newItem(Kind::FileChange, step, seq);
        item.path = path;
        item.title = (change == "created"   ? tr("created %1")
                      : change == "deleted" ? tr("deleted %1")
                                            : tr("changed %1"))
                         .arg(path);
        if (data.contains("added") || data.contains("removed"))
            item.detail = QStringLiteral("+%1 −%2").arg(data.value("added", 0)).arg(data.value("removed", 0));
        if (data.value("binary", false))
            item.detail = tr("binary file");
        const std::string diff = stringField(data, "diff");
        appendDiff(item.body, diff);
        if (data.value("diff_truncated", false)) {
            TextStyle quiet;
            quiet.dim = true;
            item.body.append(tr("… (the diff is longer; only its start is kept)\n"), quiet);
        }
        m_lastChange[path] = m_items.size() - 1;
    } else if (type == "approval_requested") {
        const std::string id = stringField(data, "id");
        TimelineItem& item = newItem(Kind::Approval, step, seq);
        item.state = State::Waiting;
        item.callId = qs(id);
        const json arguments = data.contains("arguments") ? data["arguments"] : json::object();
        item.title = describeCall(tool, arguments);
        item.detail = qs(stringField(data, "reason"));
        if (tool == "shell")
            item.body.append(qs(stringField(arguments, "command")));
        item.commandPrefix = qs(control::callCommandPrefix(tool, arguments).value_or(""));
        m_approvals[item.callId] = m_items.size() - 1;
    } else if (type == "approval_resolved") {
        if (const auto it = m_approvals.find(qs(stringField(data, "id"))); it != m_approvals.end()) {
            TimelineItem& item = m_items[it->second];
            const bool approved = data.value("approved", false);
            item.state = approved ? State::Approved : State::Denied;
            const QString note = qs(stringField(data, "note"));
            item.detail = (approved ? tr("approved") : tr("denied")) + (note.isEmpty() ? QString() : " — " + note);
            touch(it->second);
        }
    } else if (type == "task_resumed") {
        notice(State::Plain, tr("Resumed from its checkpoint at step %1").arg(data.value("from_step", std::uint64_t{0})),
               data.contains("interrupted_tool_call") && data["interrupted_tool_call"].is_string()
                   ? tr("the call that was running (%1) is reported to the model as interrupted")
                         .arg(qs(data["interrupted_tool_call"].get<std::string>()))
                   : QString());
    } else if (type == "checkpoint") {
        notice(State::Plain, tr("checkpoint saved"), tr("%1 bytes").arg(data.value("bytes", std::uint64_t{0})));
    } else if (type == "hook") {
        TimelineItem& item = notice(State::Plain, tr("hook %1").arg(qs(stringField(data, "name"))),
                                    qs(stringField(data, "detail")));
        item.body.append(item.parser.feed(stringField(data, "output")));
    } else if (type == "guard") {
        notice(State::Warning,
               tr("guard %1: %2").arg(qs(stringField(data, "guard")), qs(stringField(data, "action"))),
               qs(stringField(data, "detail")));
    } else if (type == "error") {
        notice(data.value("fatal", false) ? State::Failed : State::Warning, qs(stringField(data, "message")));
    } else if (type == "log") {
        const std::string level = stringField(data, "level");
        if (level == "warn" || level == "warning" || level == "error")
            notice(State::Warning, qs(stringField(data, "message")));
    } else if (type == "network_request") {
        const QString target = tr("%1 %2:%3")
                                   .arg(qs(stringField(data, "method")), qs(stringField(data, "host")))
                                   .arg(data.value("port", std::uint64_t{0}));
        if (data.value("allowed", false))
            notice(State::Plain, tr("network: %1").arg(target), qs(stringField(data, "address")));
        else
            notice(State::Warning, tr("network refused: %1").arg(target), qs(stringField(data, "reason")));
    } else if (type == "task_finished") {
        m_streaming.reset();
        const std::string reason = stringField(data, "reason");
        TimelineItem& item = newItem(Kind::Finished, step, seq);
        item.state = reason == "finished" ? State::Succeeded : reason == "paused" ? State::Plain : State::Failed;
        item.title = reason == "finished"    ? tr("Finished")
                     : reason == "paused"    ? tr("Paused")
                     : reason == "cancelled" ? tr("Cancelled")
                                             : tr("Stopped: %1").arg(qs(reason));
        item.prose = qs(stringField(data, "summary"));
        // A call still marked running when its task ended did not come back.
        for (auto& [id, index] : m_calls) {
            if (m_items[index].state == State::Running) {
                m_items[index].state = State::Failed;
                m_items[index].detail = tr("did not finish");
                touch(index);
            }
        }
    }
}

} // namespace warren::ui
