// update_plan: the plan read from the model's arguments (every mistake named so the model can correct
// it), handed to the loop whole to become a plan_updated event, and the tally the model reads back.

#include "agent_core/tools/UpdatePlanTool.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;
using protocol::PlanStatus;

class TestUpdatePlan : public QObject {
    Q_OBJECT

private slots:
    void reportsThePlan() {
        std::vector<protocol::PlanUpdatedData> seen;
        ToolEnv env;
        env.onPlanUpdated = [&](const protocol::PlanUpdatedData& plan) { seen.push_back(plan); };
        UpdatePlanTool tool;
        const auto outcome = tool.run(json::parse(R"({"explanation": "found the cause",
            "plan": [{"step": "Read the parser", "status": "completed"},
                     {"step": "Fix the off-by-one", "status": "in_progress"},
                     {"step": "Run the tests", "status": "pending"}]})"),
                                      env);
        QVERIFY(outcome.ok);
        QCOMPARE(outcome.output,
                 std::string("plan updated: 1 of 3 steps completed; in progress: Fix the off-by-one"));
        QCOMPARE(seen.size(), std::size_t(1));
        const protocol::PlanUpdatedData expected{{{"Read the parser", PlanStatus::Completed},
                                                  {"Fix the off-by-one", PlanStatus::InProgress},
                                                  {"Run the tests", PlanStatus::Pending}},
                                                 "found the cause"};
        QVERIFY(seen.front() == expected);
    }

    void refusesBadPlans_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no plan") << "{}" << "update_plan: missing required argument \"plan\"";
        QTest::newRow("plan not an array") << R"({"plan": "do it"})"
                                           << "update_plan: argument \"plan\" must be an array of {step, status}";
        QTest::newRow("empty plan") << R"({"plan": []})" << "update_plan: the plan has no steps; give at least one";
        QTest::newRow("unknown argument") << R"({"plan": [], "steps": []})"
                                          << "update_plan: unknown argument \"steps\" (allowed: plan, explanation)";
        QTest::newRow("step as a string") << R"({"plan": ["read"]})"
                                          << "update_plan: plan[0] must be an object with exactly \"step\" and "
                                             "\"status\"";
        QTest::newRow("extra key in a step")
            << R"({"plan": [{"step": "a", "status": "pending", "note": "x"}]})"
            << "update_plan: plan[0] must be an object with exactly \"step\" and \"status\"";
        QTest::newRow("empty step") << R"({"plan": [{"step": "", "status": "pending"}]})"
                                    << "update_plan: plan[0].step must be a non-empty string";
        QTest::newRow("unknown status") << R"({"plan": [{"step": "a", "status": "done"}]})"
                                        << "update_plan: plan[0].status must be \"pending\", \"in_progress\" or "
                                           "\"completed\", got \"done\"";
        QTest::newRow("two in progress")
            << R"({"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]})"
            << "update_plan: 2 steps are in_progress; at most one step is in progress at a time";
        QTest::newRow("explanation not a string") << R"({"plan": [{"step": "a", "status": "pending"}], "explanation": 1})"
                                                  << "update_plan: argument \"explanation\" must be a string, got the "
                                                     "integer 1";
    }

    void refusesBadPlans() {
        QFETCH(QString, arguments);
        QFETCH(QString, message);
        bool reported = false;
        ToolEnv env;
        env.onPlanUpdated = [&](const protocol::PlanUpdatedData&) { reported = true; };
        UpdatePlanTool tool;
        const auto outcome = tool.run(json::parse(arguments.toStdString()), env);
        QVERIFY(!outcome.ok);
        QCOMPARE(QString::fromStdString(outcome.output), message);
        QVERIFY(!reported);
    }

    void refusesOverlongPlans() {
        json plan = json::array();
        for (int i = 0; i < 51; ++i)
            plan.push_back({{"step", "s" + std::to_string(i)}, {"status", "pending"}});
        const auto read = readPlan({{"plan", plan}});
        QVERIFY(!read.ok());
        QCOMPARE(read.error().message, std::string("update_plan: the plan has 51 steps; keep it to 50 or fewer"));
    }
};

QTEST_APPLESS_MAIN(TestUpdatePlan)
#include "tst_update_plan.moc"
