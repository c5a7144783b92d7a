# Tests of app/remote/: the workspace packed for an upload (git's ignore rules, the tar read back by the
# server's own extractor, the cap) and the task's patch applied back (made by app/git's
# workspacePatch, as the server makes it; conflicts left alone; the user's .git untouched). Real git, real files.
foreach(test tst_workspace_pack tst_patch_apply)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_remote_pack LABELS unit)
endforeach()
# The client's pure parts: what a failed request means, the backoff, server URLs, warrend's JSON read into
# the faces' records.
warren_add_test(tst_remote_failure SOURCES tst_remote_failure.cpp LIBS warren_remote_client Qt6::Network LABELS unit)
warren_add_test(tst_remote_task_json SOURCES tst_remote_task_json.cpp LIBS warren_remote LABELS unit)
