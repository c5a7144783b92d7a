# Control-plane integration tests (keys).
