"""Labels on conversations ("vip", "refund"): added and removed by agents, used to filter the list."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from backend.database.models import ConversationLabel
from backend.journal import journal

MAX_LABEL_LENGTH = 40
MAX_LABELS_PER_CONVERSATION = 20
LABELS_CHANGED = "conversation.labels_changed"
INVALID_LABEL = "invalid_label"
TOO_MANY_LABELS = "too_many_labels"


class LabelError(ValueError):
    """A label change that cannot be made; `code` is invalid_label or too_many_labels."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class LabelChange:
    """Labels to add and to remove, each checked and stripped."""

    add: tuple[str, ...]
    remove: tuple[str, ...]


def check_label(raw: object) -> str:
    """A label, stripped, if it is 1 to 40 characters with no control characters; else LabelError."""
    if not isinstance(raw, str):
        raise LabelError(INVALID_LABEL, "Each label must be a string.")
    label = raw.strip()
    if not 1 <= len(label) <= MAX_LABEL_LENGTH:
        raise LabelError(INVALID_LABEL, f"A label is 1 to {MAX_LABEL_LENGTH} characters.")
    # Control characters, lone surrogates and unassigned code points would be invisible or unstorable.
    if any(unicodedata.category(character) in ("Cc", "Cs", "Cn") for character in label):
        raise LabelError(INVALID_LABEL, "A label must not contain control characters.")
    return label


def _labels(raw: object, name: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise LabelError(INVALID_LABEL, f"{name} must be a list of labels.")
    return tuple(dict.fromkeys(check_label(item) for item in raw))


def check_label_change(body: dict[str, Any]) -> LabelChange:
    """The change asked for by {"add": [...], "remove": [...]}; else LabelError."""
    add, remove = _labels(body.get("add"), "add"), _labels(body.get("remove"), "remove")
    if not add and not remove:
        raise LabelError(INVALID_LABEL, 'Give {"add": [labels]} and/or {"remove": [labels]}.')
    both = sorted(set(add) & set(remove))
    if both:
        raise LabelError(INVALID_LABEL, f"{both[0]!r} cannot be both added and removed.")
    if len(add) > MAX_LABELS_PER_CONVERSATION:
        raise LabelError(TOO_MANY_LABELS, f"A conversation has at most {MAX_LABELS_PER_CONVERSATION} labels.")
    return LabelChange(add, remove)


def labels_of(session: Session, conversation_ids: Iterable[int]) -> dict[int, list[str]]:
    """The sorted labels of each conversation."""
    wanted = sorted(set(conversation_ids))
    labels: dict[int, list[str]] = {conversation_id: [] for conversation_id in wanted}
    if wanted:
        rows = session.execute(
            select(ConversationLabel.conversation_id, ConversationLabel.label).where(
                ConversationLabel.conversation_id.in_(wanted)
            )
        )
        for conversation_id, label in rows:
            labels[conversation_id].append(label)
    # Sorted here, not by the database, so both databases give the same order whatever their collation.
    return {conversation_id: sorted(names) for conversation_id, names in labels.items()}


def change_labels(
    session: Session, conversation_id: int, change: LabelChange, *, user_id: int, by: str, now: datetime
) -> list[str]:
    """Apply a checked change to the (locked) conversation; journal it if anything changed.

    Its labels after the change, or LabelError (too_many_labels) with nothing changed.
    """
    current = set(labels_of(session, [conversation_id])[conversation_id])
    wanted = (current - set(change.remove)) | set(change.add)
    if len(wanted) > MAX_LABELS_PER_CONVERSATION:
        raise LabelError(
            TOO_MANY_LABELS,
            f"A conversation has at most {MAX_LABELS_PER_CONVERSATION} labels; remove some first.",
        )
    removed = current - wanted
    added = wanted - current
    if removed:
        session.execute(
            delete(ConversationLabel).where(
                ConversationLabel.conversation_id == conversation_id,
                ConversationLabel.label.in_(sorted(removed)),
            )
        )
    for label in sorted(added):
        session.add(
            ConversationLabel(conversation_id=conversation_id, label=label, added_by=user_id, added_at=now)
        )
    labels = sorted(wanted)
    if added or removed:
        session.flush()
        journal(
            session, LABELS_CHANGED, {"conversation_id": conversation_id, "labels": labels, "by": by}, now
        )
    return labels


def labels_in_use(session: Session) -> list[dict[str, Any]]:
    """Every label on some conversation with how many carry it, by name."""
    rows = session.execute(select(ConversationLabel.label, func.count()).group_by(ConversationLabel.label))
    return [{"name": label, "count": int(count)} for label, count in sorted(rows)]
