#pragma once
// The Store contract: what every implementation (SQLite, PostgreSQL) must do, as QtTest slots that a test
// class inherits. The derived class says how to open a store on an empty database; every test here then
// runs against it, so both stores answer the same questions with the same answers.

#include "app/store/Store.h"

#include <QObject>
#include <QStringList>
#include <memory>
#include <string>
#include <vector>

namespace warren::test {

control::TaskRecord sampleTask(const std::string& id, const std::string& createdAt);
control::EventRow sampleEvent(const std::string& taskId, std::uint64_t seq);
std::vector<std::uint64_t> seqsOf(const std::vector<control::EventRow>& events);
QStringList keysOf(const std::vector<control::MemoryRow>& rows);

class StoreContract : public QObject {
    Q_OBJECT

protected:
    // Empties the test's database (before every test, the derived class's own included).
    virtual void emptyDatabase() = 0;
    // A store on it; fails the test run when it cannot be opened.
    virtual std::unique_ptr<control::Store> openStore() = 0;
    virtual int latestSchemaVersion() const = 0;

private slots:
    void init() { emptyDatabase(); }

    void reopeningIsIdempotent();
    void tasksRoundTrip();
    void everyStatusRoundTrips();
    void tasksAreCountedByStatus();
    void taskErrorsNameTheTask();
    void eventsComeBackInSeqOrder();
    void eventsBeforePageBackFromTheEnd();
    void aRepeatedSeqRefusesTheWholeBatch();
    void eventsOfAnUnknownTaskAreRefused();
    void approvalsRoundTrip();
    void artifactsRoundTrip();
    void settingsRoundTrip();
    void memoriesAreConfinedToTheirPrefix();
    void memoryPutReplacesAndKeepsTheIndexInStep();
    void memorySearch_data();
    void memorySearch();
    void integrityCheckIsOkAfterUse();
};

} // namespace warren::test
