"""knowledgeControl: versioned knowledge the agents may use (payer policies, appeal templates, CARC guidance)."""
