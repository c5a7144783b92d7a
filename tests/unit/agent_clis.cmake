# agent_clis tests: the supervisor of a coding-agent CLI: its command line, environment and session (pure),
# and the translators of the CLIs' streams on streams captured from the real CLIs.
foreach(test tst_cli_command tst_cli_streams)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_clis LABELS unit)
endforeach()
# The model double the CLIs talk to, and the socket relay in front of it, over real loopback sockets.
warren_add_test(tst_cli_model_server SOURCES tst_cli_model_server.cpp LIBS warren_cli_model_double LABELS unit)
