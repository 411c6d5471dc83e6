"""`probe surface`: the hook surface an installed CLI version declares (its events, handler
types and fields, the decision fields it reads, the env vars it sets for hooks, its flags),
read from the installed package itself, each item with where it was found (docs/surface.md)."""
