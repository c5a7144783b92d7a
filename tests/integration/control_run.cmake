# Control-plane integration tests (run): the warren CLI end to end through the real sandbox.
find_package(SQLite3 REQUIRED)
warren_add_test(tst_control_run SOURCES tst_control_run.cpp
                LIBS warren_cli_test_support warren_agent_test_support SQLite::SQLite3 LABELS integration)
set_tests_properties(tst_control_run PROPERTIES TIMEOUT 600)
# Sub-agents through `warren run`: nested in the terminal, their events stored with their agent.
warren_add_test(tst_control_subagents SOURCES tst_control_subagents.cpp
                LIBS warren_cli_test_support warren_agent_test_support LABELS integration)
set_tests_properties(tst_control_subagents PROPERTIES TIMEOUT 300)
# Claude Code and Codex under `warren run --agent`: the real CLIs in the real sandbox, their model only through
# the task's model proxy (WARREN_TEST_CLAUDE, WARREN_TEST_CODEX; skipped without them).
warren_add_test(tst_control_cli_agent SOURCES tst_control_cli_agent.cpp
                LIBS warren_cli_test_support warren_cli_model_double LABELS integration)
set_tests_properties(tst_control_cli_agent PROPERTIES TIMEOUT 300)
