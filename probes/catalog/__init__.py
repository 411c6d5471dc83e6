"""The catalog: recipes, the scenarios of `probe check`, and where recipe files live."""
