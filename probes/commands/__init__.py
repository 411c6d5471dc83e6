"""One module per `probe` subcommand (cli.COMMANDS names them): `add_arguments(parser)` gives
its arguments and help, `handle(args)` does it and returns an errors.Exit. options.py holds the
options several share. The work itself is in the stage packages; nothing outside cli.py and
this package imports from here."""
