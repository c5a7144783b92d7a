# Control-plane integration tests (run): the warren CLI end to end through the real sandbox.
find_package(SQLite3 REQUIRED)
warren_add_test(tst_control_run SOURCES tst_control_run.cpp
                LIBS warren_cli_test_support warren_agent_test_support SQLite::SQLite3 LABELS integration)
set_tests_properties(tst_control_run PROPERTIES TIMEOUT 600)
# Sub-agents through `warren run`: nested in the terminal, their events stored with their agent.
warren_add_test(tst_control_subagents SOURCES tst_control_subagents.cpp
                LIBS warren_cli_test_support warren_agent_test_support LABELS integration)
set_tests_properties(tst_control_subagents PROPERTIES TIMEOUT 300)
