# Control-plane integration tests (run): the warren CLI end to end through the real sandbox.
find_package(SQLite3 REQUIRED)
warren_add_test(tst_control_run SOURCES tst_control_run.cpp
                LIBS warren_cli_test_support warren_agent_test_support SQLite::SQLite3 LABELS integration)
set_tests_properties(tst_control_run PROPERTIES TIMEOUT 600)
