# agent_process tests
