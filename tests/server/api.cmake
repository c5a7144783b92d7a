# warrend end to end: the server process on a PostgreSQL of its own, real HTTP, real sandboxes.
function(warren_add_warrend_test name)
    cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
    warren_add_test(${name} SOURCES ${name}.cpp LIBS warren_warrend_test_support ${ARG_LIBS}
                    LABELS integration postgres)
    set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT "WARREN_WARREND=$<TARGET_FILE:warrend>")
    set_tests_properties(${name} PROPERTIES TIMEOUT 600)
endfunction()
warren_add_warrend_test(tst_warrend LIBS warren_store_postgres) # ages a task in the tasks table itself
target_compile_definitions(tst_warrend PRIVATE WARREN_OPENAPI="${CMAKE_SOURCE_DIR}/docs/openapi.json")
warren_add_warrend_test(tst_warrend_tls) # HTTPS with a self-signed certificate openssl makes
# The listener for cluster agents (--agent-address): the real warren-agent connecting over TCP, refused.
warren_add_warrend_test(tst_warrend_cluster LIBS warren_proxy warren_kubelet_double warren_cli_model_double)
add_dependencies(tst_warrend_cluster warren-agent)
warren_add_warrend_test(tst_warrend_memory LIBS warren_store_postgres) # reads the memories table itself
# Secrets bound to hosts (DESIGN §12): stored sealed, a user's own, put in at the egress for their hosts.
warren_add_warrend_test(tst_warrend_secrets LIBS warren_store_postgres)
# A tenant's MCP servers and skills (DESIGN §13): started and offered in its users' sandboxes alone, a pack
# installed mid-task offered at the next step, no header or environment value in any answer.
warren_add_warrend_test(tst_warrend_tenant_tools)
# GET /metrics: the operator's token alone, Prometheus' text format (promtool), tasks counted by status.
warren_add_warrend_test(tst_warrend_metrics)
# A user's webhooks (DESIGN §15): signed lifecycle deliveries to a receiver on loopback, retried; the URL's attacks
# refused at registration and at delivery without the operator's --allow-internal.
warren_add_warrend_test(tst_warrend_webhooks LIBS warren_wire warren_store_postgres) # reads what waits to be sent
# `--network ask` (DESIGN §12): a host outside the list waits for its owner's answer through the approvals API.
warren_add_warrend_test(tst_warrend_network_ask)
# Claude Code and Codex as a user's agent on warrend: the operator's install of the real CLI, the operator's key
# only at the model double (WARREN_TEST_CLAUDE, WARREN_TEST_CODEX; skipped without them).
warren_add_warrend_test(tst_warrend_cli_agent LIBS warren_cli_model_double)
warren_add_test(tst_serve_options SOURCES tst_serve_options.cpp LIBS warren_api LABELS unit server)
# Backpressure: a flooding agent waits while the database takes no events, and loses none.
warren_add_warrend_test(tst_warrend_backpressure LIBS warren_tasks warren_store_postgres)
add_dependencies(tst_warrend_backpressure flood-agent)
set_property(TEST tst_warrend_backpressure APPEND PROPERTY ENVIRONMENT "WARREN_FLOOD_AGENT=$<TARGET_FILE:flood-agent>")
warren_add_test(tst_provider_endpoints SOURCES tst_provider_endpoints.cpp LIBS warren_api LABELS unit server)
warren_add_test(tst_provider_key_request SOURCES tst_provider_key_request.cpp LIBS warren_api LABELS unit server)
warren_add_test(tst_answer_request SOURCES tst_answer_request.cpp LIBS warren_api LABELS unit server)
# Provider keys end to end: each user's own key or the server's, sealed at rest, in no response, event, log
# or sandbox.
warren_add_warrend_test(tst_warrend_keys LIBS warren_mock_llm warren_store_postgres)
# What a task may make warrend connect to (DESIGN.md §12): a user's provider endpoint never gets the
# server's key nor reaches inside the server's host; a sandbox's allow-list reaches inside only where
# --allow-internal says.
warren_add_warrend_test(tst_warrend_destinations LIBS warren_mock_llm)
# `warren --remote URL` end to end: the CLI against a real warrend (run, tasks, show, apply, another user's
# ids, a kill -9 of the server mid-task).
warren_add_warrend_test(tst_remote_cli)
add_dependencies(tst_remote_cli warren warrend)
# The window's RemoteControlPlane against a real warrend: calls answered while many tasks stream.
warren_add_warrend_test(tst_remote_plane LIBS warren_remote)
# One request never stalls every user: big and deep uploads, workspaces made from them, artifacts that are
# FIFOs, devices or links, a client that leaves mid-way, over-long names (issue 30 §4, §7a).
warren_add_warrend_test(tst_warrend_stalls)
# Three 50 MB uploads at a time, twice, on a loaded CI machine: more than QtTest's 300 s per function.
set_property(TEST tst_warrend_stalls APPEND PROPERTY ENVIRONMENT "QTEST_FUNCTION_TIMEOUT=590000")
# Under ASan beside other tests CI saw 324 s of test and 276 s of removing what it left (before that removal
# went a descriptor at a time): the whole may need more than the 600 s of the others.
set_tests_properties(tst_warrend_stalls PROPERTIES TIMEOUT 900)
# Sleep and wake (DESIGN §14): a task that only waits for its owner gives up its sandbox; the answer wakes it.
warren_add_warrend_test(tst_warrend_sleep)
# The database's notifications of changed tasks (TaskNotifications), heard again after a restart of PostgreSQL.
warren_add_test(tst_task_notifications SOURCES tst_task_notifications.cpp
                LIBS warren_api warren_store_postgres warren_store_contract warren_postgres_test_support
                LABELS "integration;postgres")
set_tests_properties(tst_task_notifications PROPERTIES TIMEOUT 300)
# Replicas (issue 36): an event stream on one warrend follows, live, a task another runs over the same database.
warren_add_warrend_test(tst_warrend_replicas)
# Replicas (DESIGN §15): a killed replica's tasks are taken over by another through their leases.
warren_add_warrend_test(tst_warrend_failover)
# `warren move TASK --to URL`: a task of this machine's goes on at a real warrend and its change comes home.
warren_add_warrend_test(tst_task_move)
add_dependencies(tst_task_move warren warrend)
