"""`probe check`: a user's own hooks through the real CLI, prepared for the one pipeline."""
