"""The prioritised worklist: expected recovery x probability of overturn, time left, effort."""
