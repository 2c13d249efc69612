"""The titles this product gives send errors of its own, and the machine-readable reason of any error."""

from __future__ import annotations

from enum import StrEnum

from backend.domain.opt_out import OPTED_OUT_TITLE

NO_ANSWER_AFTER_SEND_TITLE = "outcome unknown"
LEASE_EXPIRED_TITLE = "lease expired"
REQUEST_NOT_SENT_TITLE = "request not sent"
ACCEPTED_WITHOUT_MESSAGE_ID_TITLE = "accepted without a message id"
PAYLOAD_UNSENDABLE_TITLE = "stored payload cannot be sent"
RESTORED_FROM_BACKUP_TITLE = "restored from backup"


class ErrorReason(StrEnum):
    """Why a message carries an error; clients turn these into words, never the free-form title."""

    META_ERROR = "meta_error"  # Meta answered with an error code (kept in `code`)
    NO_ANSWER_AFTER_SEND = "no_answer_after_send"  # the request left, no answer came back
    LEASE_EXPIRED = "lease_expired"  # the sender stopped while the message was going out
    REQUEST_NOT_SENT = "request_not_sent"  # the request never left this machine
    ACCEPTED_WITHOUT_MESSAGE_ID = "accepted_without_message_id"  # a 2xx without a wamid to follow
    PAYLOAD_UNSENDABLE = "payload_unsendable"  # the stored message cannot be turned into a request
    RESTORED_FROM_BACKUP = "restored_from_backup"  # in flight when the restored backup was taken
    RECIPIENT_OPTED_OUT = "recipient_opted_out"  # a marketing send cancelled: the customer opted out
    OTHER = "other"  # anything else, e.g. an HTTP error without a Meta code


_REASON_OF_TITLE = {
    NO_ANSWER_AFTER_SEND_TITLE: ErrorReason.NO_ANSWER_AFTER_SEND,
    LEASE_EXPIRED_TITLE: ErrorReason.LEASE_EXPIRED,
    REQUEST_NOT_SENT_TITLE: ErrorReason.REQUEST_NOT_SENT,
    ACCEPTED_WITHOUT_MESSAGE_ID_TITLE: ErrorReason.ACCEPTED_WITHOUT_MESSAGE_ID,
    PAYLOAD_UNSENDABLE_TITLE: ErrorReason.PAYLOAD_UNSENDABLE,
    RESTORED_FROM_BACKUP_TITLE: ErrorReason.RESTORED_FROM_BACKUP,
    OPTED_OUT_TITLE: ErrorReason.RECIPIENT_OPTED_OUT,
}


def error_reason(code: int | None, title: str | None) -> ErrorReason:
    """The reason of a recorded error: a Meta code wins, else the title this product gave it."""
    if code is not None:
        return ErrorReason.META_ERROR
    return _REASON_OF_TITLE.get(title or "", ErrorReason.OTHER)
