"""What runs where the CLI runs: the runner, the scripted model server and the
instrumented hook. Standard library only, so a bare python3 (in a container too)
can run it."""
