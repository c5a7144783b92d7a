# Tests of app/remote/'s pure parts: what a failed request means, the backoff, server URLs, and warrend's
# JSON read into the faces' records.
warren_add_test(tst_remote_failure SOURCES tst_remote_failure.cpp LIBS warren_remote_client Qt6::Network LABELS unit)
warren_add_test(tst_remote_task_json SOURCES tst_remote_task_json.cpp LIBS warren_remote LABELS unit)
