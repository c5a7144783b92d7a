# agent_skills tests: a SKILL.md read (FrontMatter, SkillFile; pure); skills found in a real tree of roots,
# symlinks and bad files (SkillDiscovery, SkillLibrary), and the skill tool over it (SkillTool, SkillFolder);
# the system prompt's skills section within its budget (pure).
warren_add_test(tst_skill_file SOURCES tst_skill_file.cpp LIBS warren_agent_skills LABELS unit)
warren_add_test(tst_skill_discovery SOURCES tst_skill_discovery.cpp LIBS warren_agent_skills LABELS unit)
warren_add_test(tst_skill_tool SOURCES tst_skill_tool.cpp LIBS warren_agent_skills LABELS unit)
warren_add_test(tst_skills_section SOURCES tst_skills_section.cpp LIBS warren_agent_prompt LABELS unit)
