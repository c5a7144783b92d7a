# Tests of app/secretproxy/: the binding and the header rewriting (pure), then the task's authority and the
# TLS session against OpenSSL's own client.
warren_add_test(tst_host_secret SOURCES tst_host_secret.cpp LIBS warren_secret_proxy LABELS unit)
find_package(OpenSSL REQUIRED)
warren_add_test(tst_task_authority SOURCES tst_task_authority.cpp LIBS warren_secret_proxy OpenSSL::SSL OpenSSL::Crypto
                LABELS unit)
