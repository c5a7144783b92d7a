# server/accounts: API keys and limits (pure).
foreach(test tst_api_key tst_limits)
    warren_add_test(${test} SOURCES accounts/${test}.cpp LIBS warren_accounts LABELS unit server)
endforeach()
