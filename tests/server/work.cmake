# server/work tests: which job a free worker takes (FairQueue, pure), and the pool itself (DiskWork) with
# real threads: one user's blocked jobs never hold another user's.
foreach(test tst_fair_queue tst_disk_work)
    warren_add_test(${test} SOURCES work/${test}.cpp LIBS warren_work LABELS unit server)
endforeach()
