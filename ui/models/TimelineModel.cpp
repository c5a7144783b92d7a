#include "ui/models/TimelineModel.h"

#include <algorithm>
#include <set>

namespace warren::ui {

using nlohmann::json;
using Card = timeline::TimelineCard;

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

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
    m_prompt = prompt.toStdString();
    m_fold = timeline::TimelineFold(m_prompt);
    m_items.clear();
    m_lastSeq = 0;
    m_firstSeq = 0;
    m_eventCount = 0;
    m_reachesStart = false;
    m_appendedFrom = 0;
    m_appended = {};
    m_earlier = {};
    m_earlierComplete = false;
    m_wholeStale = true;
    m_items.emplace_back();
    sync(0);
    m_committed = m_items.size();
    endResetModel();
    emit activityChanged();
}

void TimelineModel::prepend(const std::vector<json>& events, bool reachesStart) {
    m_reachesStart = m_reachesStart || reachesStart;
    const auto seqOf = [](const json& event) { return event.is_object() ? event.value("seq", std::uint64_t{0}) : 0; };
    if (events.empty() || seqOf(events.back()) < m_lastSeq || (m_firstSeq && seqOf(events.front()) >= m_firstSeq)) {
        emit activityChanged(); // nothing earlier; the counters may now be the fold's
        return;
    }
    // The cards a user opened stay open: a card is the same card when the same event made it.
    std::set<std::uint64_t> expanded;
    for (std::size_t row = 0; row < m_committed; ++row)
        if (m_items[row].expanded)
            expanded.insert(m_items[row].firstSeq);
    m_prepending = true;
    beginResetModel();
    m_fold = timeline::TimelineFold(m_prompt);
    m_items.clear();
    m_items.emplace_back();
    sync(0);
    m_lastSeq = 0;
    m_firstSeq = 0;
    m_eventCount = 0;
    for (const json& event : events)
        take(event, nullptr, nullptr);
    previewWaiting(nullptr);
    m_committed = m_items.size();
    for (std::size_t row = 1; row < m_committed; ++row)
        m_items[row].expanded = expanded.contains(m_items[row].firstSeq);
    endResetModel();
    m_prepending = false;
    emit activityChanged();
}

void TimelineModel::addEarlierCounts(const timeline::TaskCounters& page, bool complete) {
    m_earlier.prepend(page);
    m_earlierComplete = m_earlierComplete || complete;
    m_wholeStale = true;
    emit activityChanged();
}

const timeline::TaskCounters& TimelineModel::activity() const {
    // The fold has seen every event: its counters are the task's.
    if (foldHasAll() || m_appendedFrom <= 1)
        return m_fold.counters();
    if (m_wholeStale) {
        m_whole = m_appended;
        m_whole.prepend(m_earlier);
        m_wholeStale = false;
    }
    return m_whole;
}

const TimelineItem* TimelineModel::item(int row) const {
    return row >= 0 && static_cast<std::size_t>(row) < m_committed ? &m_items[static_cast<std::size_t>(row)] : nullptr;
}

int TimelineModel::lastChangeOf(const QString& path) const {
    const auto row = m_fold.lastChangeOf(path.toStdString());
    return row ? static_cast<int>(*row) : -1;
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
    case StepRole:
        return QVariant::fromValue<qulonglong>(it->step);
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

bool TimelineModel::folded(int row) const {
    const TimelineItem* at = item(row);
    if (at && at->kind == TimelineItem::Kind::Approval) // a question to the user is never out of sight
        return false;
    // An Agent card comes before its work: a walk up ends at the task's own flow.
    while (at && at->agentRow != 0) {
        const TimelineItem* agent = item(static_cast<int>(at->agentRow));
        if (!agent || !agent->expanded)
            return true;
        at = agent;
    }
    return false;
}

void TimelineModel::append(const std::vector<json>& events) {
    std::set<std::size_t> changed; // items the view already shows whose content changed
    const std::size_t before = m_committed;
    for (const json& event : events) {
        take(event, &changed, &m_appended); // the appended events' own counters: a prepend leaves them
    }
    previewWaiting(&changed);
    m_wholeStale = true;
    if (m_items.size() > m_committed) {
        beginInsertRows({}, static_cast<int>(m_committed), static_cast<int>(m_items.size()) - 1);
        m_committed = m_items.size();
        endInsertRows();
    }
    if (auto first = changed.begin(); first != changed.end() && *first < before) {
        const auto last = std::prev(changed.lower_bound(before));
        emit dataChanged(index(static_cast<int>(*first)), index(static_cast<int>(*last)));
    }
    if (!events.empty())
        emit activityChanged();
}

void TimelineModel::take(const json& event, std::set<std::size_t>* changed, timeline::TaskCounters* counters) {
    if (!event.is_object())
        return;
    const auto seq = event.value("seq", std::uint64_t{0});
    if (seq <= m_lastSeq)
        return;
    m_lastSeq = seq;
    if (m_firstSeq == 0)
        m_firstSeq = seq;
    ++m_eventCount;
    auto read = timeline::readEvent(event);
    if (!read)
        return;
    if (counters && m_appendedFrom == 0)
        m_appendedFrom = seq;
    if (counters)
        counters->add(read->payload, read->envelope.step, read->envelope.tokenUsage,
                      read->envelope.ts ? static_cast<std::int64_t>(read->envelope.ts) : -1);
    for (const std::size_t index : m_fold.apply(*read)) {
        if (index < m_items.size()) {
            sync(index);
            ++m_items[index].version;
            if (changed)
                changed->insert(index);
        }
    }
    while (m_items.size() < m_fold.cards().size()) {
        m_items.emplace_back();
        sync(m_items.size() - 1);
    }
}

void TimelineModel::previewWaiting(std::set<std::size_t>* changed) {
    for (const std::size_t index : m_fold.previewWaitingApprovals(m_readFile)) {
        if (index < m_items.size()) {
            sync(index);
            ++m_items[index].version;
            if (changed)
                changed->insert(index);
        }
    }
}

void TimelineModel::sync(std::size_t index) {
    const Card& card = m_fold.cards()[index];
    TimelineItem& item = m_items[index];
    // An approval's body changes when it is shown against the file (previewWaiting): styled again.
    if (card.kind == Card::Kind::Approval && card.body != item.approvalBody) {
        item.body = StyledText();
        item.styledBytes = 0;
        item.approvalBody = card.body;
    }
    const bool fresh = item.styledBytes == 0 && item.body.isEmpty();
    item.kind = card.kind;
    item.state = card.state;
    item.step = card.step;
    item.depth = card.depth;
    item.agentRow = card.agentCard;
    item.members = card.members;
    item.firstSeq = card.firstSeq;
    item.title = qs(card.title);
    item.detail = qs(card.detail);
    item.prose = qs(card.prose);
    item.callId = qs(card.callId);
    item.path = qs(card.path);
    item.commandPrefix = qs(card.commandPrefix);
    item.networkTarget = qs(card.networkTarget);
    switch (card.bodyKind) {
    case Card::Body::None:
        break;
    case Card::Body::Output: // grows: only what arrived since the last sync is styled
        if (card.body.size() > item.styledBytes) {
            item.body.append(item.parser.feed(std::string_view(card.body).substr(item.styledBytes)));
            item.styledBytes = card.body.size();
        }
        break;
    case Card::Body::Diff:
        if (fresh) {
            appendDiff(item.body, card.body);
            if (card.diffTruncated) {
                TextStyle quiet;
                quiet.dim = true;
                item.body.append(tr("… (the diff is longer; only its start is kept)\n"), quiet);
            }
            item.styledBytes = card.body.size() + 1;
        }
        break;
    case Card::Body::Plain:
        if (fresh) {
            item.body.append(qs(card.body));
            item.styledBytes = card.body.size() + 1;
        }
        break;
    }
}

} // namespace warren::ui
