"""Errors a command raises to end with one clear line instead of a traceback."""


class CommandError(Exception):
    """A command cannot do what was asked; the message is shown as one line."""
