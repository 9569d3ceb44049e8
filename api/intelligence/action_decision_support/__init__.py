"""actionDecisionSupport.*: the recommended next action for a case, with its reasons."""
