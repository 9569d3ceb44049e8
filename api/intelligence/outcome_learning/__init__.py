"""outcomeLearning.*: the model that predicts appeal success from decided outcomes, held to the worklist's prior."""
