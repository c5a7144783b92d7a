# server/replicas: which tasks a replica may take over from another (pure). The takeover itself, with real
# replicas killed: tst_warrend_failover (api.cmake).
warren_add_test(tst_task_leases SOURCES tst_task_leases.cpp LIBS warren_replicas warren_sandbox LABELS unit server)
