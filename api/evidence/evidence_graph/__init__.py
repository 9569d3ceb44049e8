"""Links between evidence documents, cases, claims and appeal packets, walked as a graph."""
