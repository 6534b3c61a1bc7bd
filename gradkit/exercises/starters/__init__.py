"""Starting code of the exercises, one module per exercise key; each backward has one mistake."""
