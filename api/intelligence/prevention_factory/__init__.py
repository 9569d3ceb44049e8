"""preventionFactory.*: prevention work items that stop a confirmed denial pattern from recurring."""
