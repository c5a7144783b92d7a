# Control-plane integration tests (run).
