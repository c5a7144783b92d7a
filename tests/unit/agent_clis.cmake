# agent_clis tests: the supervisor of a coding-agent CLI: its command line, environment and session (pure),
# and the translators of the CLIs' streams on streams captured from the real CLIs.
warren_add_test(tst_cli_command SOURCES tst_cli_command.cpp LIBS warren_agent_clis LABELS unit)
# Codex's file changes are asked as patches: the test reads them back with the patch format's reader.
warren_add_test(tst_cli_streams SOURCES tst_cli_streams.cpp LIBS warren_agent_clis warren_patch_format LABELS unit)
# The model double the CLIs talk to, and the socket relay in front of it, over real loopback sockets.
warren_add_test(tst_cli_model_server SOURCES tst_cli_model_server.cpp LIBS warren_cli_model_double LABELS unit)
