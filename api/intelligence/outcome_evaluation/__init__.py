"""outcomeEvaluation.*: did the outcome model's predictions hold up on appeals decided after it was trained."""
