"""Finding the namespace packages (`namespaces.py`): used by the composition root and the model registry."""
