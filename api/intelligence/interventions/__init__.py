"""interventions.*: interventions against denial patterns: what is done (an action key), against which
cell of the marts (a pattern key and its scope) and from which date its effect is measured."""
