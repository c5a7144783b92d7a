# Tests of app/snapshots/: the pure parts as rows (git's listings, what is skipped and how it is said to git,
# a snapshot's description, the rewind plan, empty directories made or removed), what a rewind of the
# conversation keeps for its undo, and ShadowRepo against the real git on real files (every kind of shell
# side effect put back exactly, the user's .git byte-identical, a kill -9 mid-snapshot, a fork's copy).
foreach(test tst_git_listing tst_snapshot_rules tst_snapshot_meta tst_rewind_plan tst_empty_dir_changes
             tst_conversation_undo tst_shadow_repo)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_snapshots LABELS unit)
endforeach()

# What a fork takes of the original task: its events up to the step, its checkpoint made the new task's.
warren_add_test(tst_task_fork SOURCES tst_task_fork.cpp LIBS warren_control LABELS unit)

# LocalControlPlane's disk work (fork, rewind, export, review) off the faces' thread, one call at a time per
# task, against a runner's snapshot in the same shadow repository, and a plane closed mid-fork.
warren_add_test(tst_control_disk_work SOURCES tst_control_disk_work.cpp
                LIBS warren_control warren_snapshots warren_store_sqlite LABELS unit)
