# Tests of agent_core/net/: the forwarder against a real Unix-socket server and real TCP clients.
warren_add_test(tst_egress_forwarder SOURCES tst_egress_forwarder.cpp LIBS warren_agent_net LABELS unit)
# serve --connect: the address, the token file, the hello, and a real connection to a socket that appears late.
warren_add_test(tst_control_connection SOURCES tst_control_connection.cpp LIBS warren_agent_net warren_protocol LABELS unit)
