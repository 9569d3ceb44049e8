"""Claims and denial work: claims, cases, deadlines, the worklist, outcomes (NAMESPACES.md section 3)."""
