# Control-plane integration test (egress): `warren run --network allow:HOSTS` through the real sandbox, the
# agent's forwarder and the egress proxy, against an HTTP server in the test.
warren_add_test(tst_control_egress SOURCES tst_control_egress.cpp
                LIBS warren_cli_test_support warren_agent_test_support Qt6::Network LABELS integration)
set_tests_properties(tst_control_egress PROPERTIES TIMEOUT 300)
# Secrets bound to hosts (DESIGN §12): `warren run --secret` through the egress proxy's TLS, against HTTPS
# servers in the test.
warren_add_test(tst_control_secrets SOURCES tst_control_secrets.cpp
                LIBS warren_cli_test_support warren_agent_test_support Qt6::Network LABELS integration)
set_tests_properties(tst_control_secrets PROPERTIES TIMEOUT 300)
# `--network ask` (DESIGN §12): a host outside the list waits for the user's answer on the terminal.
warren_add_test(tst_control_network_ask SOURCES tst_control_network_ask.cpp
                LIBS warren_cli_test_support warren_agent_test_support Qt6::Network LABELS integration)
set_tests_properties(tst_control_network_ask PROPERTIES TIMEOUT 300)
# MCP servers (DESIGN §13): a workspace's .mcp.json under `warren run`, its servers inside the real sandbox.
warren_add_test(tst_control_mcp SOURCES tst_control_mcp.cpp
                LIBS warren_cli_test_support warren_agent_test_support warren_control warren_store_sqlite Qt6::Network
                LABELS integration)
set_tests_properties(tst_control_mcp PROPERTIES TIMEOUT 300)
# Skills (DESIGN §13): the user's skills folder and the workspace's under `warren run`, in the real sandbox.
warren_add_test(tst_control_skills SOURCES tst_control_skills.cpp
                LIBS warren_cli_test_support warren_agent_test_support LABELS integration)
set_tests_properties(tst_control_skills PROPERTIES TIMEOUT 300)
