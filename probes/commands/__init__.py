"""One module per `probe` subcommand: its parser and its handler."""
