# server/replicas: which tasks a replica may take over from another, and the requests replicas pass (pure). The takeover itself, with real
# replicas killed: tst_warrend_failover (api.cmake).
warren_add_test(tst_replica_rules SOURCES tst_replica_rules.cpp LIBS warren_replicas warren_sandbox LABELS unit server)
