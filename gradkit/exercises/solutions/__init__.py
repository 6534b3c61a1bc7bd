"""Solutions of the exercises, one module per exercise key, each defining the learner's class."""
