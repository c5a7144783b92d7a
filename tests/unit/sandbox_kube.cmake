# The Kubernetes backend's cluster client (sandbox/cluster/client): its pure parts.
foreach(test tst_kube_config tst_kube_requests tst_watch_events)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_kube LABELS unit)
endforeach()
