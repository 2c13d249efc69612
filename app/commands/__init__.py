"""One module per `inbox` subcommand, each with `register(subcommands)`."""
