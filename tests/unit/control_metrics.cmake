# Tests of app/metrics/: Prometheus' text format, and the counts the engine keeps (thread-safe families).
foreach(test tst_metrics_text tst_metric_families)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_metrics LABELS unit)
endforeach()
