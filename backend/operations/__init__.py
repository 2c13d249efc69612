"""Operations on one installation: backup archives, restore, schema upgrades. Never imports web or ui."""


class OperationsError(Exception):
    """An operation refused or failed, with a message for the person who ran it."""
