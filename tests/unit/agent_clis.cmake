# agent_clis tests: the supervisor of a coding-agent CLI: its command line, environment and session (pure),
# and the translators of the CLIs' streams on streams captured from the real CLIs.
foreach(test tst_cli_command tst_cli_streams)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_clis LABELS unit)
endforeach()
