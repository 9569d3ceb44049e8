"""Automation, AI and voice: governed AI tasks, agents, voice delegation (NAMESPACES.md section 6)."""
