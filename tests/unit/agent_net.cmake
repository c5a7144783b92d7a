# Tests of agent_core/net/: the forwarder against a real Unix-socket server and real TCP clients.
warren_add_test(tst_egress_forwarder SOURCES tst_egress_forwarder.cpp LIBS warren_agent_net LABELS unit)
