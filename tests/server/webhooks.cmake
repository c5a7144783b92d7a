# server/webhooks: the URL policy (the attacks on it), the signature, the retry schedule and the wire bodies.
warren_add_test(tst_webhook_policy SOURCES tst_webhook_policy.cpp LIBS warren_webhooks LABELS unit server)
# The dispatcher with real receivers on loopback: a dead one holds only its own bounded queue.
warren_add_test(tst_webhook_dispatcher SOURCES tst_webhook_dispatcher.cpp LIBS warren_webhooks LABELS unit server)
