# Review and rewind through the `warren` CLI: the real agent on a scripted model in the real sandbox changes
# a user's repository through the shell; warren diff shows it, warren rewind takes it back step by step.
warren_add_test(tst_control_rewind SOURCES tst_control_rewind.cpp
                LIBS warren_cli_test_support warren_agent_test_support LABELS integration)
set_tests_properties(tst_control_rewind PROPERTIES TIMEOUT 600)
