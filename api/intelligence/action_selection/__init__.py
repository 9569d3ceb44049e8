"""actionSelection.*: the actions that apply to a denial case, ranked by expected value."""
