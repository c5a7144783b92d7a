#include "app/tasks/StoredEvents.h"

#include "app/metrics/EngineMetrics.h"
#include "app/tasks/EventSequencer.h"

#include <iterator>

namespace warren::control {

Result<std::unique_ptr<StoredEvents>> StoredEvents::open(StoreOpener openStore, EngineMetrics* metrics,
                                                         QObject* parent) {
    std::unique_ptr<StoredEvents> events(new StoredEvents());
    events->setParent(parent);
    // The writer reports from its own thread; its owner hears it on this one.
    StoredEvents* self = events.get();
    const auto onError = [self](std::string message) {
        QMetaObject::invokeMethod(
            self, [self, message] { emit self->problem(QString::fromStdString(message)); }, Qt::QueuedConnection);
    };
    const auto onCommitted = [self] {
        QMetaObject::invokeMethod(self, [self] { self->deliver(); }, Qt::QueuedConnection);
    };
    EventWriter::OnStored onStored;
    if (metrics)
        onStored = [metrics](const std::vector<double>& lagSeconds) {
            metrics->eventsCommitted(lagSeconds);
        };
    auto writer = EventWriter::open(std::move(openStore), onError, onCommitted, std::move(onStored));
    if (!writer)
        return writer.error();
    events->m_writer = std::move(*writer);
    return events;
}

StoredEvents::~StoredEvents() {
    // Before anything else of this object goes: the writer's last reports are posted to it, and dropped
    // with its posted events.
    m_writer.reset();
}

void StoredEvents::add(const std::string& taskId, EventSequencer* sequencer) { m_sequencers[taskId] = sequencer; }

void StoredEvents::remove(const std::string& taskId, const EventSequencer* sequencer) {
    if (auto found = m_sequencers.find(taskId); found != m_sequencers.end() && found->second == sequencer)
        m_sequencers.erase(found);
}

void StoredEvents::deliver() {
    auto taken = m_writer->takeCommitted();
    m_committed.insert(m_committed.end(), std::make_move_iterator(taken.begin()),
                       std::make_move_iterator(taken.end()));
    // One at a time from the front: what a handler does (end a task, record one more event) may bring more.
    while (!m_committed.empty()) {
        const CommittedEvent event = std::move(m_committed.front());
        m_committed.pop_front();
        const auto found = m_sequencers.find(event.taskId);
        if (found == m_sequencers.end())
            continue;
        EventSequencer* sequencer = found->second; // a runner's: deleted later, never during this call
        if (auto body = sequencer->committed(event.seq, event.dropped))
            emit eventStored(event.taskId, *body);
        sequencer->settle(); // what waited for this event runs once a face has it
    }
}

} // namespace warren::control
