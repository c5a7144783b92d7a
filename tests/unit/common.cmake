# common tests: the shared vocabulary (the strict JSON reader, UTF-8, a child process run to its end, a whole file,
# a warm container's claim, a program found on a PATH).
foreach(test tst_json_fields tst_utf8 tst_child_process tst_file_text tst_warm_claim tst_executable_search)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_base LABELS unit)
endforeach()
# HTTP as text (common/http): URLs read strictly, an answer's head and framing, chunked bodies.
foreach(test tst_http_url tst_response_head tst_chunked_decoder)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_http_text warren_base LABELS unit)
endforeach()
