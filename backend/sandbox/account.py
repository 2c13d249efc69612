"""The sandbox's business account as Meta keeps it: template reviews, the number's quality and messaging
limit, and the customers who stopped marketing. Pure state; the server turns it into HTTP and webhooks."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Final

from backend.domain.account_events import QUALITY_ORDER, TIER_LIMITS
from backend.domain.opt_out import DEFAULT_OPT_OUT_KEYWORDS, MARKETING_CATEGORY, is_opt_out_text, keyword_set
from backend.domain.templates import APPROVED, Template, TemplateCatalog
from backend.sandbox.graph import GraphError

TEMPLATE_STATUSES: Final = frozenset({"APPROVED", "PAUSED", "REJECTED", "PENDING", "DISABLED", "IN_APPEAL"})
QUALITY_RATINGS: Final = frozenset({*QUALITY_ORDER, "UNKNOWN"})
DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
# Meta's order of messaging limits, lowest first, to tell an upgrade from a downgrade.
_TIER_RANK: Final = ("TIER_50", "TIER_250", "TIER_1K", "TIER_2K", "TIER_10K", "TIER_100K", "TIER_UNLIMITED")
# The rejection reasons Meta gives with each status (NONE when it gives none).
_REASON_OF_STATUS: Final = {"REJECTED": "INCORRECT_CATEGORY", "PAUSED": "NONE", "DISABLED": "NONE"}

_STOPPED_TEXT: Final = (
    "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages "
    "on WhatsApp from your business"
)
STOPPED_MARKETING: Final = {
    "code": 131050,
    "title": _STOPPED_TEXT,
    "message": _STOPPED_TEXT,
    "error_data": {"details": "User stopped marketing messages"},
}


class AccountError(ValueError):
    """A control request the sandbox cannot apply; the message says why."""


@dataclass
class TemplateState:
    """A template Meta holds: its id and review status."""

    template: Template
    meta_id: int
    status: str = APPROVED


@dataclass
class SandboxAccount:
    """What Meta knows about the business account besides messages."""

    catalog: TemplateCatalog
    phone_number_id: str
    display_phone_number: str
    quality_rating: str = "GREEN"
    tier: str = "TIER_UNLIMITED"
    templates: dict[tuple[str, str], TemplateState] = field(default_factory=dict)
    stopped: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        for index, template in enumerate(self.catalog, start=1):
            self.templates[(template.name, template.language)] = TemplateState(
                template, 1_000_000_000_000 + index
            )
        self._keywords = keyword_set(DEFAULT_OPT_OUT_KEYWORDS)

    # --- Graph reads

    def templates_page(self, base_url: str, limit_raw: str | None, after: str | None) -> dict[str, Any]:
        """One page of `message_templates`, with Meta's cursors and a `next` link while more remain."""
        try:
            limit = min(MAX_PAGE_SIZE, max(1, int(limit_raw))) if limit_raw else DEFAULT_PAGE_SIZE
        except ValueError:
            raise GraphError(400, 100, "Invalid parameter", "limit must be a whole number") from None
        start = _decode_cursor(after) if after else 0
        states = list(self.templates.values())
        chosen = states[start : start + limit]
        page: dict[str, Any] = {"data": [_graph_template(state) for state in chosen]}
        if chosen:
            cursors = {"before": _encode_cursor(start), "after": _encode_cursor(start + len(chosen))}
            paging: dict[str, Any] = {"cursors": cursors}
            if start + len(chosen) < len(states):
                paging["next"] = f"{base_url}?limit={limit}&after={cursors['after']}"
            page["paging"] = paging
        return page

    def number_info(self) -> dict[str, Any]:
        """`GET /{PHONE_NUMBER_ID}`: the quality rating and messaging limit."""
        return {
            "quality_rating": self.quality_rating,
            "whatsapp_business_manager_messaging_limit": self.tier,
            "messaging_limit_tier": self.tier,
            "id": self.phone_number_id,
        }

    # --- sends

    def check_template(self, name: str, language: str) -> None:
        """Refuse a template Meta would not send: 132015 when paused, 132001 when not approved."""
        state = self.templates.get((name, language))
        if state is None or state.status == APPROVED:
            return
        if state.status == "PAUSED":
            raise GraphError(
                400, 132015, "Template is Paused", f"template {name} is paused due to low quality"
            )
        raise GraphError(
            404,
            132001,
            "Template name does not exist in the translation",
            f"template name ({name}) does not exist in {language}",
        )

    def is_marketing(self, name: str, language: str) -> bool:
        """Whether the template is of category MARKETING."""
        state = self.templates.get((name, language))
        return state is not None and state.template.category == MARKETING_CATEGORY

    def customer_wrote(self, wa_id: str, text: str | None) -> None:
        """Remember a customer who sent a stop keyword: Meta stops marketing to them."""
        if is_opt_out_text(text, self._keywords):
            self.stopped.add(wa_id)

    # --- control API

    def set_template_status(self, payload: Any) -> dict[str, Any]:
        """Change one template's status; the `message_template_status_update` value Meta would send."""
        if not isinstance(payload, dict):
            raise AccountError('send {"name", "language", "status"}')
        name, language, status = payload.get("name"), payload.get("language"), payload.get("status")
        if not isinstance(status, str) or status.upper() not in TEMPLATE_STATUSES:
            raise AccountError(f"status must be one of {', '.join(sorted(TEMPLATE_STATUSES))}")
        state = self.templates.get((str(name), str(language)))
        if state is None:
            raise AccountError(f"there is no template {name!r} in language {language!r}")
        state.status = status.upper()
        return {
            "event": state.status,
            "message_template_id": state.meta_id,
            "message_template_name": state.template.name,
            "message_template_language": state.template.language,
            "reason": _REASON_OF_STATUS.get(state.status, "NONE"),
            "message_template_category": state.template.category,
        }

    def set_quality(self, payload: Any) -> dict[str, Any]:
        """Change the rating and/or the limit; the `phone_number_quality_update` value Meta would send."""
        if not isinstance(payload, dict) or not ({"quality_rating", "tier"} & payload.keys()):
            raise AccountError('send {"quality_rating": "GREEN|YELLOW|RED", "tier": "TIER_250|..."}')
        rating = payload.get("quality_rating", self.quality_rating)
        tier = payload.get("tier", self.tier)
        if not isinstance(rating, str) or rating.upper() not in QUALITY_RATINGS:
            raise AccountError(f"quality_rating must be one of {', '.join(sorted(QUALITY_RATINGS))}")
        if not isinstance(tier, str) or tier.upper() not in TIER_LIMITS:
            raise AccountError(f"tier must be one of {', '.join(_TIER_RANK)}")
        rating, tier = rating.upper(), tier.upper()
        old_rating, old_tier = self.quality_rating, self.tier
        self.quality_rating, self.tier = rating, tier
        if _TIER_RANK.index(tier) > _TIER_RANK.index(old_tier):
            event = "UPGRADE"
        elif _TIER_RANK.index(tier) < _TIER_RANK.index(old_tier):
            event = "DOWNGRADE"
        elif rating == "RED" and old_rating != "RED":
            event = "FLAGGED"
        elif old_rating == "RED" and rating != "RED":
            event = "UNFLAGGED"
        else:
            event = "UNCHANGED"
        return {
            "display_phone_number": self.display_phone_number,
            "event": event,
            "current_limit": tier,
            "old_limit": old_tier,
        }

    def as_dict(self) -> dict[str, Any]:
        """The control API's view."""
        return {
            "quality_rating": self.quality_rating,
            "tier": self.tier,
            "templates": [
                {
                    "name": s.template.name,
                    "language": s.template.language,
                    "status": s.status,
                    "category": s.template.category,
                }
                for s in self.templates.values()
            ],
            "stopped_marketing": sorted(self.stopped),
        }


def _graph_template(state: TemplateState) -> dict[str, Any]:
    template = state.template
    return {
        "name": template.name,
        "language": template.language,
        "status": state.status,
        "category": template.category,
        "components": [{"type": "BODY", "text": template.body}],
        "id": str(state.meta_id),
    }


def _encode_cursor(index: int) -> str:
    return base64.urlsafe_b64encode(f"i:{index}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> int:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if not text.startswith("i:"):
            raise ValueError(text)
        return max(0, int(text[2:]))
    except ValueError:
        raise GraphError(400, 100, "Invalid parameter", "the after cursor is not one this API gave") from None
