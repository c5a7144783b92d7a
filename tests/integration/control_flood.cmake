# Control-plane integration tests (flood).
