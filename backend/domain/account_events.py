"""Webhook changes about the account rather than one message: marketing preferences, template reviews,
the number's quality and messaging limit. Each becomes one event with a key, applied once."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

USER_PREFERENCES_FIELD: Final = "user_preferences"
TEMPLATE_STATUS_FIELD: Final = "message_template_status_update"
QUALITY_FIELD: Final = "phone_number_quality_update"
ACCOUNT_FIELDS: Final = frozenset({USER_PREFERENCES_FIELD, TEMPLATE_STATUS_FIELD, QUALITY_FIELD})

# Meta's names of messaging limits and the number of customers a day each allows (None: no limit).
TIER_LIMITS: Final[dict[str, int | None]] = {
    "TIER_50": 50,
    "TIER_250": 250,
    "TIER_1K": 1000,
    "TIER_2K": 2000,
    "TIER_10K": 10000,
    "TIER_100K": 100000,
    "TIER_UNLIMITED": None,
}
# Send failures that mean our copy of the templates is out of date (missing, paused, changed): sync.
TEMPLATE_SYNC_CODES: Final = frozenset({132001, 132007, 132015, 132016})
# Quality ratings from best to worst; a move to a later one is a drop.
QUALITY_ORDER: Final = ("GREEN", "YELLOW", "RED")
# What a quality webhook's event says of the rating when it names none: flagged means it fell to low.
QUALITY_OF_EVENT: Final = {"FLAGGED": "RED"}


@dataclass(frozen=True)
class MarketingPreferenceEvent:
    """A customer stopped (or resumed) marketing messages, as Meta reports it."""

    key: str
    wa_id: str
    value: str
    occurred_at: datetime | None


@dataclass(frozen=True)
class TemplateStatusEvent:
    """Meta reviewed, paused, rejected or disabled a template."""

    key: str
    name: str
    language: str
    status: str
    category: str | None
    meta_id: str | None
    reason: str | None


@dataclass(frozen=True)
class QualityEvent:
    """The number's messaging limit or quality changed."""

    key: str
    event: str | None
    tier: str | None
    quality_rating: str | None
    occurred_at: datetime | None


AccountEvent = MarketingPreferenceEvent | TemplateStatusEvent | QualityEvent


def tier_limit(tier: str | None) -> tuple[bool, int | None]:
    """(known, limit) of Meta's tier name: (True, None) for unlimited, (False, None) for one we cannot use."""
    if tier is None or tier not in TIER_LIMITS:
        return False, None
    return True, TIER_LIMITS[tier]


def quality_dropped(before: str | None, after: str | None) -> bool:
    """Whether the rating moved from a better one to a worse one."""
    if before not in QUALITY_ORDER or after not in QUALITY_ORDER:
        return False
    return QUALITY_ORDER.index(after) > QUALITY_ORDER.index(before)


def _text(raw: Any, limit: int) -> str | None:
    if raw is None or isinstance(raw, dict | list | bool):
        return None
    text = str(raw).replace("\x00", "").strip()
    return text[:limit] or None


def _time(raw: Any) -> datetime | None:
    try:
        return datetime.fromtimestamp(int(str(raw).strip()), UTC)
    except (ValueError, OverflowError, OSError):
        return None


def parse_account_change(field_name: str, value: dict[str, Any], entry_time: Any) -> list[AccountEvent]:
    """The events of one change of an account field (an empty list for one we cannot read)."""
    if field_name == USER_PREFERENCES_FIELD:
        return list(_preferences(value))
    if field_name == TEMPLATE_STATUS_FIELD:
        template = _template_status(value, entry_time)
        return [template] if template is not None else []
    if field_name == QUALITY_FIELD:
        return [_quality(value, entry_time)]
    return []


def _preferences(value: dict[str, Any]) -> list[MarketingPreferenceEvent]:
    found = []
    listed = value.get("user_preferences")
    for item in listed if isinstance(listed, list) else []:
        if not isinstance(item, dict) or item.get("category") != "marketing_messages":
            continue
        wa_id, choice = _text(item.get("wa_id"), 32), _text(item.get("value"), 20)
        if wa_id is None or choice is None:
            continue
        stamp = _text(item.get("timestamp"), 20) or ""
        found.append(
            MarketingPreferenceEvent(
                key=f"preference:{wa_id}:{choice}:{stamp}",
                wa_id=wa_id,
                value=choice.lower(),
                occurred_at=_time(item.get("timestamp")),
            )
        )
    return found


def _template_status(value: dict[str, Any], entry_time: Any) -> TemplateStatusEvent | None:
    name = _text(value.get("message_template_name"), 512)
    language = _text(value.get("message_template_language"), 20)
    status = _text(value.get("event"), 40)
    if name is None or language is None or status is None:
        return None
    meta_id = _text(value.get("message_template_id"), 64)
    reason = _text(value.get("reason"), 2000)
    rejection = value.get("rejection_info")
    if isinstance(rejection, dict) and _text(rejection.get("reason"), 2000):
        reason = _text(rejection.get("reason"), 2000)
    return TemplateStatusEvent(
        key=f"template:{meta_id or name + ':' + language}:{status}:{_text(entry_time, 20) or ''}",
        name=name,
        language=language,
        status=status.upper(),
        category=(_text(value.get("message_template_category"), 40) or "").upper() or None,
        meta_id=meta_id,
        reason=None if reason == "NONE" else reason,
    )


def _quality(value: dict[str, Any], entry_time: Any) -> QualityEvent:
    event = (_text(value.get("event"), 40) or "").upper() or None
    tier = _text(value.get("current_limit") or value.get("whatsapp_business_manager_messaging_limit"), 40)
    rating = (_text(value.get("quality_rating"), 20) or "").upper() or QUALITY_OF_EVENT.get(event or "")
    return QualityEvent(
        key=f"quality:{_text(entry_time, 20) or ''}:{event or ''}:{tier or ''}:{rating or ''}",
        event=event,
        tier=tier.upper() if tier else None,
        quality_rating=rating,
        occurred_at=_time(entry_time),
    )
