# Control-plane integration tests (container backend): `warren run --backend podman` end to end, and tasks moved
# between bubblewrap and podman through their checkpoints. Skip with the reason where podman or its image is missing.
warren_add_test(tst_control_container SOURCES tst_control_container.cpp
                LIBS warren_cli_test_support warren_agent_test_support Qt6::Network LABELS integration)
set_tests_properties(tst_control_container PROPERTIES TIMEOUT 900)
# The same with --backend kube: the Pod, played by podman kube play, its agent connecting to the control plane.
add_test(NAME tst_control_kube COMMAND tst_control_container)
get_test_property(tst_control_container LABELS control_container_labels)
get_test_property(tst_control_container ENVIRONMENT control_container_environment)
set_tests_properties(tst_control_kube PROPERTIES LABELS "${control_container_labels}" TIMEOUT 900
                     ENVIRONMENT "${control_container_environment};WARREN_TEST_BACKEND=kube"
                     COST 30) # among the longest: started first (tests/CMakeLists.txt, WARREN_LONG_TESTS)
# Warm podman containers: started before their task with nothing of it, claimed by the next task of their shape.
warren_add_test(tst_warm_start SOURCES tst_warm_start.cpp
                LIBS warren_control warren_agent_test_support LABELS integration)
set_tests_properties(tst_warm_start PROPERTIES TIMEOUT 600)
