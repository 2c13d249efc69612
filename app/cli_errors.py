"""Errors a command raises to end with one clear line instead of a traceback."""

# Exit statuses: 2 when the command line or the settings are wrong, 1 when what was asked failed.
USAGE_STATUS = 2
FAILURE_STATUS = 1


class CommandError(Exception):
    """A command cannot do what was asked; the message is shown as one line."""

    def __init__(self, message: str, *, exit_status: int = USAGE_STATUS) -> None:
        super().__init__(message)
        self.exit_status = exit_status
