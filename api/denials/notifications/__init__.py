"""In-app notifications to members (deadlines, decisions, assignments, mentions) and their subscriptions."""
