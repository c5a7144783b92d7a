# `warren reply` end to end: a finished task continued with the user's message, through the CLI, a sandboxed
# agent and mock OpenAI-compatible and Anthropic servers in the test process; replies that cannot be taken.
warren_add_test(tst_control_reply SOURCES tst_control_reply.cpp LIBS warren_model_run_fixture LABELS integration)
set_tests_properties(tst_control_reply PROPERTIES TIMEOUT 300)

# A finished task's files removed after the retention period of the settings, by the window's plane; what
# must stay (other tasks, the workspace, what a link names), and what is refused after.
warren_add_test(tst_control_retention SOURCES tst_control_retention.cpp LIBS warren_control LABELS integration)
