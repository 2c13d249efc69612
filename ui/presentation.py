"""How things read on screen: window countdowns, status marks and plain-language send errors."""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo

from ui.api.resources import (
    IN_CONVERSATION,
    LINKED,
    NEW_TOPIC,
    PENDING,
    REPLY,
    RESOLVED,
    SNOOZED,
    WORK_QUEUE,
    Contact,
    Conversation,
    HealthReading,
    Metrics,
    SendError,
    StatusEvidence,
    TemplateInfo,
    Viewer,
)

URGENT_WINDOW = timedelta(hours=1)
# The machine's zone, looked up once: list rows format many times a second.
_LOCAL_ZONE = datetime.now().astimezone().tzinfo


@dataclass(frozen=True)
class WindowText:
    """The countdown of a customer-service window as shown, and whether it needs attention."""

    text: str
    is_open: bool
    urgent: bool


def window_text(closes_at: datetime | None, now: datetime) -> WindowText:
    """'3 h 12 m left', '45 m left' (urgent under an hour) or 'closed'."""
    if closes_at is None or closes_at <= now:
        return WindowText("closed", is_open=False, urgent=False)
    remaining = closes_at - now
    minutes = int(remaining.total_seconds() // 60)
    hours, minutes = divmod(minutes, 60)
    text = f"{hours} h {minutes} m left" if hours else f"{minutes} m left"
    return WindowText(text, is_open=True, urgent=remaining < URGENT_WINDOW)


@dataclass(frozen=True)
class StatusMark:
    """A delivery status as a short mark, a colour name and a tooltip."""

    mark: str
    colour: str
    label: str


_STATUS_MARKS = {
    "queued": StatusMark("◷", "#6b7280", "queued"),
    "sending": StatusMark("↗", "#6b7280", "sending"),
    "accepted": StatusMark("✓", "#6b7280", "accepted by WhatsApp"),
    "sent": StatusMark("✓", "#6b7280", "sent"),
    "delivered": StatusMark("✓✓", "#6b7280", "delivered"),
    "read": StatusMark("✓✓", "#0ea5e9", "read"),
    "failed": StatusMark("✕", "#dc2626", "failed"),
    "unknown": StatusMark("⚠", "#d97706", "unknown: it may or may not have reached the customer"),
    "held": StatusMark("‖", "#d97706", "held: the customer's window is closed"),
    "cancelled": StatusMark("⊘", "#6b7280", "cancelled"),
}


def status_mark(state: str) -> StatusMark:
    """The mark for an outbox state."""
    return _STATUS_MARKS.get(state, StatusMark("?", "#6b7280", state))


# What a send error means for the person reading it, keyed by Meta's error code.
_PLAIN_ERRORS = {
    0: "WhatsApp did not accept our access token. Someone needs to renew it.",
    190: "WhatsApp access token expired. Someone needs to renew it.",
    4: "Too many requests to WhatsApp; it will be tried again later.",
    80007: "Too many requests to WhatsApp; it will be tried again later.",
    130429: "Sending too fast for WhatsApp; it will be tried again shortly.",
    130472: "Not sent: this customer is part of a WhatsApp experiment.",
    131000: "WhatsApp had an unexpected problem sending it.",
    131016: "WhatsApp was briefly unavailable.",
    131021: "The customer's number is our own number.",
    131026: "The customer cannot receive it: not on WhatsApp, an old app, or they blocked us.",
    131030: "This number is not on the test allow-list of our WhatsApp account.",
    131031: "Our WhatsApp account is locked.",
    131042: "A billing problem with our WhatsApp account.",
    131047: "More than 24 hours since the customer last wrote: only a template can be sent.",
    131048: "WhatsApp is limiting us because earlier messages were reported as spam.",
    131049: "WhatsApp held it back to limit marketing to this customer; try again tomorrow.",
    131050: "The customer turned off marketing messages from us.",
    131051: "WhatsApp does not support this kind of message.",
    131053: "The attached media could not be uploaded.",
    131056: "Too many messages to this customer in a short time; it will be tried again.",
    132000: "The template got the wrong number of values.",
    132001: "The template does not exist in this language or is not approved.",
    132015: "The template is paused for low quality.",
    132016: "The template is disabled.",
    133010: "Our phone number is not registered with WhatsApp.",
    368: "Our WhatsApp account is temporarily blocked for a policy violation.",
}


# What the backend's reason code for a failed or uncertain send means, for reasons Meta did not give.
_PLAIN_SENDING_REASONS = {
    "no_answer_after_send": "No answer from WhatsApp after the message went out: it may or may not have "
    "reached the customer.",
    "lease_expired": "The sender stopped (a crash or a restart) while this message was going out: it "
    "may or may not have reached the customer.",
    "request_not_sent": "The message never reached WhatsApp (no connection); it is tried again.",
    "accepted_without_message_id": "WhatsApp accepted it but gave no message id to follow it by.",
    "payload_unsendable": "The stored message cannot be sent as it is.",
    "restored_from_backup": "The data was restored from a backup taken while this message was waiting "
    "or going out: it may or may not have reached the customer.",
    "recipient_opted_out": "Cancelled before it went: the customer opted out of marketing.",
}


def plain_error(error: SendError | None) -> str:
    """A send error in words a support agent understands, with Meta's code or the detail for reference."""
    if error is None:
        return ""
    sending_meaning = _PLAIN_SENDING_REASONS.get(error.reason)
    if sending_meaning is not None:
        return f"{sending_meaning} ({error.details})" if error.details else sending_meaning
    meaning = _PLAIN_ERRORS.get(error.code) if error.code is not None else None
    if meaning is not None:
        return f"{meaning} (code {error.code})"
    # An unrecognised reason or code: the backend's own words are the best there is.
    meaning = error.details or error.title or "WhatsApp refused the message."
    return f"{meaning} (code {error.code})" if error.code is not None else meaning


# Why a send is in the supervisor queue, keyed by the queue's reason code.
_QUEUE_REASONS = {
    "unknown": "Unknown outcome: the send may or may not have reached the customer.",
    "sending_past_lease": "Stuck in sending: the worker sending it stopped answering.",
    "held": "Held: the customer's 24-hour window closed before it could be sent.",
}


def queue_reason_text(reason: str) -> str:
    """Why a send waits for a supervisor, in words (an unrecognised reason is shown as it is)."""
    return _QUEUE_REASONS.get(reason, reason)


def evidence_text(evidence: StatusEvidence) -> str:
    """A status webhook seen for a send, as one line of evidence."""
    when = evidence.occurred_at.astimezone(_LOCAL_ZONE).strftime("%H:%M:%S")
    return f"WhatsApp reported '{evidence.status}' at {when} for {evidence.wamid}"


def tooltip_text(text: str) -> str:
    """Text for a tooltip that shows literally: tooltips guess rich text, so it is escaped rich text."""
    # A <p> start makes Qt always read it as rich text; pre-wrap keeps line breaks and spaces.
    return f'<p style="white-space:pre-wrap">{html.escape(text, quote=False)}</p>'


def notification_name(contact: Contact) -> str:
    """The contact's name for a desktop notification, whose body some systems read as markup."""
    name = contact.display_name
    if any(character in name for character in "<>&"):
        return contact.number or (f"+{contact.wa_id}" if contact.wa_id else "a customer")
    return name


def short_time(moment: datetime | None, now: datetime) -> str:
    """A compact time for list rows: HH:MM today, else the date."""
    if moment is None:
        return ""
    local = moment.astimezone(_LOCAL_ZONE)
    if local.date() == now.astimezone(_LOCAL_ZONE).date():
        return f"{local.hour:02d}:{local.minute:02d}"
    return local.strftime("%d %b")


def age_text(seconds: float | None) -> str:
    """'12 s', '5 m', '3 h' or '2 d'."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} m"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} d"


# Snooze presets as the menu names them; snooze_until computes each one's end.
SNOOZE_MORNING = time(9, 0)
SNOOZE_PRESETS = ("1 hour", "3 hours", "Tomorrow 9:00", "Next Monday 9:00")


def snooze_until(preset: str, now: datetime, zone: tzinfo | None = None) -> datetime:
    """When a snooze preset ends, from an aware now; mornings are 9:00 in the desk's zone."""
    if preset == "1 hour":
        return now + timedelta(hours=1)
    if preset == "3 hours":
        return now + timedelta(hours=3)
    # Without a zone: the machine's own, with its daylight-saving rules on the day the snooze ends.
    local = now.astimezone(zone)
    if preset == "Tomorrow 9:00":
        days = 1
    elif preset == "Next Monday 9:00":
        # Monday is weekday 0; on a Monday it means the one a week later.
        days = 7 - local.weekday()
    else:
        raise ValueError(f"no snooze preset {preset!r}")
    day = local.date() + timedelta(days=days)
    if zone is None:
        return datetime.combine(day, SNOOZE_MORNING).astimezone()
    return datetime.combine(day, SNOOZE_MORNING, tzinfo=zone)


def status_text(status: str, snoozed_until: datetime | None, now: datetime) -> str:
    """A conversation's status in words: 'Open', 'Pending', 'Resolved', 'Snoozed until 09:00'."""
    if status == SNOOZED:
        return f"Snoozed until {short_time(snoozed_until, now)}" if snoozed_until else "Snoozed"
    return {PENDING: "Pending", RESOLVED: "Resolved"}.get(status, "Open")


def viewers_text(viewers: tuple[Viewer, ...], me: str | None) -> str:
    """'Dana is typing…', 'Dana is viewing', 'Dana and Sam are viewing'; others only, empty if none."""
    others = [viewer for viewer in viewers if viewer.user != me]
    typing = [viewer.user for viewer in others if viewer.typing]
    viewing = [viewer.user for viewer in others if not viewer.typing]
    parts = []
    if typing:
        parts.append(f"{_names(typing)} {'is' if len(typing) == 1 else 'are'} typing…")
    if viewing:
        parts.append(f"{_names(viewing)} {'is' if len(viewing) == 1 else 'are'} viewing")
    return "  ·  ".join(parts)


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


_PLACEMENTS = {
    REPLY: "answers our message",
    IN_CONVERSATION: "part of the conversation",
    WORK_QUEUE: "not linked to a message",
    LINKED: "linked to a message by an agent",
    NEW_TOPIC: "a new topic",
}


def placement_text(placement: str) -> str:
    """Where a customer's message sits, in words."""
    return _PLACEMENTS.get(placement, placement)


def mentions_me(mentions: tuple[str, ...], me: str | None) -> bool:
    """Whether a note's @mentions name the signed-in user (names match in any case)."""
    return me is not None and any(name.casefold() == me.casefold() for name in mentions)


# Why Meta does not let a template be sent, by its status.
_TEMPLATE_STATUS_WORDS = {
    "PAUSED": "paused by Meta (low quality)",
    "REJECTED": "rejected by Meta",
    "PENDING": "waiting for Meta's review",
    "IN_APPEAL": "waiting for Meta's review of an appeal",
    "DISABLED": "disabled by Meta",
    "PENDING_DELETION": "being deleted at Meta",
}
MARKETING_CATEGORY = "MARKETING"


def template_unavailable_reason(template: TemplateInfo, *, marketing_allowed: bool) -> str | None:
    """Why the template cannot be sent to this customer now, or None when it can."""
    if not template.approved:
        words = _TEMPLATE_STATUS_WORDS.get(template.status, f"{template.status.lower()} at Meta")
        return f"{words}: {template.status_reason}" if template.status_reason else words
    if template.category == MARKETING_CATEGORY and not marketing_allowed:
        return "marketing, and this customer opted out of marketing"
    return None


# Quality ratings as the Health tab names them.
_QUALITY_WORDS = {
    "GREEN": "High (green)",
    "YELLOW": "Medium (yellow)",
    "RED": "Low (red)",
    "UNKNOWN": "Unknown",
}


def quality_text(rating: str | None) -> str:
    """Meta's quality rating in words."""
    if rating is None:
        return "not read yet"
    return _QUALITY_WORDS.get(rating, rating.capitalize())


def tier_text(tier: str | None, limit: int | None, *, set_by_hand: bool) -> str:
    """The messaging limit the sender keeps, and where it comes from."""
    amount = "no daily limit" if limit is None else f"{limit:,} customers a day"
    if set_by_hand:
        return f"{amount} (set by hand; Meta says {tier or 'nothing yet'})"
    return f"{amount} ({tier})" if tier else f"{amount} (Meta has not said yet)"


OPTED_OUT_MARK = "⊘ Opted out of marketing"


def opted_out_text(contact: Contact, now: datetime) -> str:
    """The opt-out marker of a contact, or "" while marketing may go to them."""
    if not contact.opted_out:
        return ""
    when = short_time(contact.opted_out_at, now) if contact.opted_out_at is not None else ""
    return f"{OPTED_OUT_MARK} ({when})" if when else OPTED_OUT_MARK


def thread_header_text(conversation: Conversation | None) -> str:
    """The thread's title: the customer, their number, and the opt-out marker when they opted out."""
    if conversation is None:
        return "Select a conversation"
    contact = conversation.contact
    header = f"{contact.display_name}  ·  {contact.number or ''}"
    return f"{header}  ·  {OPTED_OUT_MARK}" if contact.opted_out else header


def quality_warning_text(metrics: Metrics) -> str:
    """A warning when the number's quality rating dropped (or is low), else ""."""
    if metrics.quality_dropped or metrics.quality_rating == "RED":
        return (
            f"⚠ Quality rating dropped to {quality_text(metrics.quality_rating)}: Meta may lower the "
            "messaging limit. Check recent marketing and templates; customers who block or report "
            "the number lower it."
        )
    return ""


def health_reading_text(reading: HealthReading, now: datetime) -> str:
    """One reading of the history: when, the rating and limit, and what said so."""
    parts = [short_time(reading.recorded_at, now)]
    if reading.quality_rating:
        parts.append(reading.quality_rating.lower())
    if reading.messaging_tier:
        parts.append(reading.messaging_tier)
    if reading.event:
        parts.append(reading.event.lower())
    return " ".join(parts)
