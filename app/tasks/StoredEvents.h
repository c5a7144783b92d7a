#pragma once
// Every task's events from the writer to whoever listens, on one path: the EventWriter commits them on its
// own thread; here, on the event loop, each commit goes to its task's EventSequencer (which holds the event
// until then) and the event is emitted once, as eventStored, in commit order. Nothing is told before the
// database has it (a crash can lose what is queued, never what was shown).

#include "app/store/EventWriter.h"
#include "common/Result.h"

#include <QObject>
#include <QString>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace warren::control {

class EngineMetrics;
class EventSequencer;

class StoredEvents : public QObject {
    Q_OBJECT
public:
    // The writer's own connection comes from openStore (EventWriter::open); metrics, when given, counts what
    // it commits and the lag of each (from its writer's thread).
    static Result<std::unique_ptr<StoredEvents>> open(StoreOpener openStore, EngineMetrics* metrics = nullptr,
                                                      QObject* parent = nullptr);
    ~StoredEvents() override; // the writer flushes and stops first

    EventWriter& writer() { return *m_writer; }

    // The sequencer of the task's current run takes its commits from now on; remove: only while it is still
    // the task's (a task's next run may have registered its own already).
    void add(const std::string& taskId, EventSequencer* sequencer);
    void remove(const std::string& taskId, const EventSequencer* sequencer);

signals:
    void eventStored(const std::string& taskId, const nlohmann::json& event);
    // Events could not be stored: what failed (the writer keeps them and retries, or says it dropped them).
    void problem(const QString& message);

private:
    StoredEvents() = default;
    void deliver(); // what the writer has committed, one event at a time

    std::unique_ptr<EventWriter> m_writer;
    std::map<std::string, EventSequencer*> m_sequencers;
    std::deque<CommittedEvent> m_committed; // taken from the writer, not yet handed on
};

} // namespace warren::control
