# agent_loop tests
