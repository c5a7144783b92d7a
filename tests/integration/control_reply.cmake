# `warren reply` end to end: a finished task continued with the user's message, through the CLI, a sandboxed
# agent and mock OpenAI-compatible and Anthropic servers in the test process; replies that cannot be taken.
warren_add_test(tst_control_reply SOURCES tst_control_reply.cpp LIBS warren_model_run_fixture LABELS integration)
set_tests_properties(tst_control_reply PROPERTIES TIMEOUT 300)
