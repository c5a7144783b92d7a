# Control-plane integration tests (container backend): `warren run --backend podman` end to end, and tasks moved
# between bubblewrap and podman through their checkpoints. Skip with the reason where podman or its image is missing.
warren_add_test(tst_control_container SOURCES tst_control_container.cpp
                LIBS warren_cli_test_support warren_agent_test_support Qt6::Network LABELS integration)
set_tests_properties(tst_control_container PROPERTIES TIMEOUT 900)
