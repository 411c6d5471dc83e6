"""The catalog: recipes and their parts, the scenarios of `probe check`, and where recipe files live."""
