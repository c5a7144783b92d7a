# Tests of app/timeline/: the fold of events into cards and counters, pure and Qt-free (QtTest only runs it).
warren_add_test(tst_timeline_fold SOURCES tst_timeline_fold.cpp LIBS warren_timeline LABELS unit)
