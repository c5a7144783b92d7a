# server/http tests: the router, pure; the server over real loopback sockets (plain and TLS, with a
# certificate the test makes with openssl), hostile clients included.
find_package(Qt6 6.4 REQUIRED COMPONENTS Network Test)
warren_add_test(tst_http_router SOURCES tst_http_router.cpp LIBS warren_http LABELS unit)
warren_add_test(tst_http_server SOURCES tst_http_server.cpp LIBS warren_http Qt6::Network LABELS integration)
set_tests_properties(tst_http_server PROPERTIES TIMEOUT 300)
warren_add_test(tst_http_request_head SOURCES tst_http_request_head.cpp LIBS warren_http_rules LABELS unit)
warren_add_test(tst_http_client_connections SOURCES tst_http_client_connections.cpp LIBS warren_http_rules
                LABELS unit)
