"""How things read on screen: window countdowns, status marks and plain-language send errors."""

from __future__ import annotations

import html
import unicodedata
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo

from PySide6.QtCore import QDate, QDateTime, QLocale, Qt, QTime, QTimeZone

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
from ui.i18n import QT_TRANSLATE_NOOP, translate

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
        return WindowText(translate("presentation", "closed"), is_open=False, urgent=False)
    remaining = closes_at - now
    return WindowText(
        translate("presentation", "{duration} left").format(duration=duration_text(remaining)),
        is_open=True,
        urgent=remaining < URGENT_WINDOW,
    )


def number_text(value: float) -> str:
    """A number in the locale's digits and separators."""
    locale = QLocale()
    return locale.toString(value) if isinstance(value, int) else locale.toString(value, "f", 1)


def size_text(size: int | None) -> str:
    """`12 KB`, `3.4 MB`; empty when unknown."""
    if size is None:
        return ""
    if size >= 1024 * 1024:
        return translate("presentation", "{size} MB").format(size=number_text(size / (1024 * 1024)))
    return translate("presentation", "{size} KB").format(size=number_text(max(1, round(size / 1024))))


def clock_text(seconds: float) -> str:
    """A point in a recording or its length as a clock: '0:07', '12:05', '1:02:03' (whole seconds down)."""
    locale = QLocale()
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, whole_seconds = divmod(rest, 60)

    def two_digits(value: int) -> str:
        text = locale.toString(value)
        return text if value >= 10 else locale.zeroDigit() + text

    if hours:
        return f"{locale.toString(hours)}:{two_digits(minutes)}:{two_digits(whole_seconds)}"
    return f"{locale.toString(minutes)}:{two_digits(whole_seconds)}"


def length_text(seconds: float) -> str:
    """How long a voice note or video lasts, to the nearest second (never '0:00' for a short one)."""
    return clock_text(max(1, int(seconds + 0.5)))


def duration_text(remaining: timedelta) -> str:
    """'23 h 59 m' or '45 m', in the locale's digits and unit words."""
    minutes = int(remaining.total_seconds() // 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return translate("presentation", "{hours} h {minutes} m").format(
            hours=number_text(hours), minutes=number_text(minutes)
        )
    return translate("presentation", "{minutes} m").format(minutes=number_text(minutes))


@dataclass(frozen=True)
class StatusMark:
    """A delivery status as a short mark, a colour name and a tooltip."""

    mark: str
    colour: str
    # The English words, translated by `label`.
    words: str

    @property
    def label(self) -> str:
        """The state in the client's language."""
        return translate("status", self.words)


_STATUS_MARKS = {
    "queued": StatusMark("◷", "#4b5563", QT_TRANSLATE_NOOP("status", "queued")),
    "sending": StatusMark("↗", "#4b5563", QT_TRANSLATE_NOOP("status", "sending")),
    "accepted": StatusMark("✓", "#4b5563", QT_TRANSLATE_NOOP("status", "accepted by WhatsApp")),
    "sent": StatusMark("✓", "#4b5563", QT_TRANSLATE_NOOP("status", "sent")),
    "delivered": StatusMark("✓✓", "#4b5563", QT_TRANSLATE_NOOP("status", "delivered")),
    "read": StatusMark("✓✓", "#0369a1", QT_TRANSLATE_NOOP("status", "read")),
    "failed": StatusMark("✕", "#b91c1c", QT_TRANSLATE_NOOP("status", "failed")),
    "unknown": StatusMark(
        "⚠", "#92400e", QT_TRANSLATE_NOOP("status", "unknown: it may or may not have reached the customer")
    ),
    "held": StatusMark("‖", "#92400e", QT_TRANSLATE_NOOP("status", "held: the customer's window is closed")),
    "cancelled": StatusMark("⊘", "#4b5563", QT_TRANSLATE_NOOP("status", "cancelled")),
}


_STATE_NAMES = {
    "queued": QT_TRANSLATE_NOOP("state", "queued"),
    "sending": QT_TRANSLATE_NOOP("state", "sending"),
    "accepted": QT_TRANSLATE_NOOP("state", "accepted"),
    "sent": QT_TRANSLATE_NOOP("state", "sent"),
    "delivered": QT_TRANSLATE_NOOP("state", "delivered"),
    "read": QT_TRANSLATE_NOOP("state", "read"),
    "failed": QT_TRANSLATE_NOOP("state", "failed"),
    "unknown": QT_TRANSLATE_NOOP("state", "unknown"),
    "held": QT_TRANSLATE_NOOP("state", "held"),
    "cancelled": QT_TRANSLATE_NOOP("state", "cancelled"),
}


def state_name(state: str) -> str:
    """An outbox state's one-word name in the client's language."""
    words = _STATE_NAMES.get(state)
    return translate("state", words) if words is not None else state


def status_mark(state: str) -> StatusMark:
    """The mark for an outbox state."""
    return _STATUS_MARKS.get(state, StatusMark("?", "#4b5563", state))


# What a send error means for the person reading it, keyed by Meta's error code.
_PLAIN_ERRORS = {
    0: QT_TRANSLATE_NOOP("errors", "WhatsApp did not accept our access token. Someone needs to renew it."),
    190: QT_TRANSLATE_NOOP("errors", "WhatsApp access token expired. Someone needs to renew it."),
    4: QT_TRANSLATE_NOOP("errors", "Too many requests to WhatsApp; it will be tried again later."),
    80007: QT_TRANSLATE_NOOP("errors", "Too many requests to WhatsApp; it will be tried again later."),
    130429: QT_TRANSLATE_NOOP("errors", "Sending too fast for WhatsApp; it will be tried again shortly."),
    130472: QT_TRANSLATE_NOOP("errors", "Not sent: this customer is part of a WhatsApp experiment."),
    131000: QT_TRANSLATE_NOOP("errors", "WhatsApp had an unexpected problem sending it."),
    131016: QT_TRANSLATE_NOOP("errors", "WhatsApp was briefly unavailable."),
    131021: QT_TRANSLATE_NOOP("errors", "The customer's number is our own number."),
    131026: QT_TRANSLATE_NOOP(
        "errors", "The customer cannot receive it: not on WhatsApp, an old app, or they blocked us."
    ),
    131030: QT_TRANSLATE_NOOP("errors", "This number is not on the test allow-list of our WhatsApp account."),
    131031: QT_TRANSLATE_NOOP("errors", "Our WhatsApp account is locked."),
    131042: QT_TRANSLATE_NOOP("errors", "A billing problem with our WhatsApp account."),
    131047: QT_TRANSLATE_NOOP(
        "errors", "More than 24 hours since the customer last wrote: only a template can be sent."
    ),
    131048: QT_TRANSLATE_NOOP(
        "errors", "WhatsApp is limiting us because earlier messages were reported as spam."
    ),
    131049: QT_TRANSLATE_NOOP(
        "errors", "WhatsApp held it back to limit marketing to this customer; try again tomorrow."
    ),
    131050: QT_TRANSLATE_NOOP("errors", "The customer turned off marketing messages from us."),
    131051: QT_TRANSLATE_NOOP("errors", "WhatsApp does not support this kind of message."),
    131053: QT_TRANSLATE_NOOP("errors", "The attached media could not be uploaded."),
    131056: QT_TRANSLATE_NOOP(
        "errors", "Too many messages to this customer in a short time; it will be tried again."
    ),
    132000: QT_TRANSLATE_NOOP("errors", "The template got the wrong number of values."),
    132001: QT_TRANSLATE_NOOP("errors", "The template does not exist in this language or is not approved."),
    132015: QT_TRANSLATE_NOOP("errors", "The template is paused for low quality."),
    132016: QT_TRANSLATE_NOOP("errors", "The template is disabled."),
    133010: QT_TRANSLATE_NOOP("errors", "Our phone number is not registered with WhatsApp."),
    368: QT_TRANSLATE_NOOP("errors", "Our WhatsApp account is temporarily blocked for a policy violation."),
}


# What the backend's reason code for a failed or uncertain send means, for reasons Meta did not give.
_PLAIN_SENDING_REASONS = {
    "no_answer_after_send": QT_TRANSLATE_NOOP(
        "errors",
        "No answer from WhatsApp after the message went out: it may or may not have reached the customer.",
    ),
    "lease_expired": QT_TRANSLATE_NOOP(
        "errors",
        "The sender stopped (a crash or a restart) while this message was going out: it may or may not "
        "have reached the customer.",
    ),
    "request_not_sent": QT_TRANSLATE_NOOP(
        "errors", "The message never reached WhatsApp (no connection); it is tried again."
    ),
    "accepted_without_message_id": QT_TRANSLATE_NOOP(
        "errors", "WhatsApp accepted it but gave no message id to follow it by."
    ),
    "payload_unsendable": QT_TRANSLATE_NOOP("errors", "The stored message cannot be sent as it is."),
    "restored_from_backup": QT_TRANSLATE_NOOP(
        "errors",
        "The data was restored from a backup taken while this message was waiting or going out: it may "
        "or may not have reached the customer.",
    ),
    "recipient_opted_out": QT_TRANSLATE_NOOP(
        "errors", "Cancelled before it went: the customer opted out of marketing."
    ),
}


def plain_error(error: SendError | None) -> str:
    """A send error in words a support agent understands, with Meta's code or the detail for reference."""
    if error is None:
        return ""
    sending_meaning = _PLAIN_SENDING_REASONS.get(error.reason)
    if sending_meaning is not None:
        sending_meaning = translate("errors", sending_meaning)
        return f"{sending_meaning} ({error.details})" if error.details else sending_meaning
    meaning = _PLAIN_ERRORS.get(error.code) if error.code is not None else None
    if meaning is not None:
        return _with_code(translate("errors", meaning), error.code)
    # An unrecognised reason or code: the backend's own words are the best there is.
    meaning = error.details or error.title or translate("errors", "WhatsApp refused the message.")
    return _with_code(meaning, error.code) if error.code is not None else meaning


def _with_code(meaning: str, code: int | None) -> str:
    return translate("errors", "{meaning} (code {code})").format(meaning=meaning, code=code)


# Why a send is in the supervisor queue, keyed by the queue's reason code.
_QUEUE_REASONS = {
    "unknown": QT_TRANSLATE_NOOP(
        "supervisor", "Unknown outcome: the send may or may not have reached the customer."
    ),
    "sending_past_lease": QT_TRANSLATE_NOOP(
        "supervisor", "Stuck in sending: the worker sending it stopped answering."
    ),
    "held": QT_TRANSLATE_NOOP(
        "supervisor", "Held: the customer's 24-hour window closed before it could be sent."
    ),
}


def queue_reason_text(reason: str) -> str:
    """Why a send waits for a supervisor, in words (an unrecognised reason is shown as it is)."""
    words = _QUEUE_REASONS.get(reason)
    return translate("supervisor", words) if words is not None else reason


def evidence_text(evidence: StatusEvidence) -> str:
    """A status webhook seen for a send, as one line of evidence."""
    when = QLocale().toString(_local(evidence.occurred_at).time(), QLocale.FormatType.LongFormat)
    return translate("supervisor", "WhatsApp reported '{status}' at {time} for {wamid}").format(
        status=evidence.status, time=when, wamid=evidence.wamid
    )


def text_direction(text: str, default: Qt.LayoutDirection) -> Qt.LayoutDirection:
    """The direction a text reads in, from its first strongly directional letter (Unicode's rule P2)."""
    for character in text:
        kind = unicodedata.bidirectional(character)
        if kind == "L":
            return Qt.LayoutDirection.LeftToRight
        if kind in ("R", "AL"):
            return Qt.LayoutDirection.RightToLeft
    # Only digits and signs: a phone or order number, which reads left to right everywhere.
    if any(unicodedata.bidirectional(character) == "EN" for character in text):
        return Qt.LayoutDirection.LeftToRight
    return default


def tooltip_text(text: str) -> str:
    """Text for a tooltip that shows literally: tooltips guess rich text, so it is escaped rich text."""
    # A <p> start makes Qt always read it as rich text; pre-wrap keeps line breaks and spaces.
    return f'<p style="white-space:pre-wrap">{html.escape(text, quote=False)}</p>'


def notification_name(contact: Contact) -> str:
    """The contact's name for a desktop notification, whose body some systems read as markup."""
    name = contact.display_name
    if any(character in name for character in "<>&"):
        return contact.number or (
            f"+{contact.wa_id}" if contact.wa_id else translate("presentation", "a customer")
        )
    return name


def short_time(moment: datetime | None, now: datetime) -> str:
    """A compact time for list rows: HH:MM today, else the date."""
    if moment is None:
        return ""
    local = _local(moment)
    if local.date() == _local(now).date():
        return QLocale().toString(local.time(), QLocale.FormatType.ShortFormat)
    # The day and the month's short name, in the locale's order and words.
    return QLocale().toString(local.date(), translate("presentation", "d MMM", "date format"))


def _local(moment: datetime) -> QDateTime:
    """A moment in the agent's time zone, for QLocale to format."""
    local = moment.astimezone(_LOCAL_ZONE)
    offset = local.utcoffset()
    return QDateTime(
        QDate(local.year, local.month, local.day),
        QTime(local.hour, local.minute, local.second),
        QTimeZone.fromSecondsAheadOfUtc(int(offset.total_seconds()) if offset is not None else 0),
    )


def age_text(seconds: float | None) -> str:
    """'12 s', '5 m', '3 h' or '2 d', in the locale's digits."""
    if seconds is None:
        return ""
    if seconds < 60:
        return translate("presentation", "{count} s").format(count=number_text(int(seconds)))
    if seconds < 3600:
        return translate("presentation", "{count} m").format(count=number_text(int(seconds // 60)))
    if seconds < 86400:
        return translate("presentation", "{count} h").format(count=number_text(int(seconds // 3600)))
    return translate("presentation", "{count} d").format(count=number_text(int(seconds // 86400)))


# Snooze presets as the menu names them; snooze_until computes each one's end.
SNOOZE_MORNING = time(9, 0)
SNOOZE_PRESETS = ("1 hour", "3 hours", "Tomorrow 9:00", "Next Monday 9:00")
_SNOOZE_PRESET_WORDS = {
    "1 hour": QT_TRANSLATE_NOOP("snooze", "1 hour"),
    "3 hours": QT_TRANSLATE_NOOP("snooze", "3 hours"),
    "Tomorrow 9:00": QT_TRANSLATE_NOOP("snooze", "Tomorrow 9:00"),
    "Next Monday 9:00": QT_TRANSLATE_NOOP("snooze", "Next Monday 9:00"),
}


def snooze_preset_text(preset: str) -> str:
    """A snooze preset as the menu shows it, in the client's language."""
    return translate("snooze", _SNOOZE_PRESET_WORDS.get(preset, preset))


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
        if snoozed_until:
            return translate("status", "Snoozed until {time}").format(time=short_time(snoozed_until, now))
        return translate("status", "Snoozed")
    if status == PENDING:
        return translate("status", "Pending")
    if status == RESOLVED:
        return translate("status", "Resolved")
    return translate("status", "Open")


def viewers_text(viewers: tuple[Viewer, ...], me: str | None) -> str:
    """'Dana is typing…', 'Dana is viewing', 'Dana and Sam are viewing'; others only, empty if none."""
    others = [viewer for viewer in viewers if viewer.user != me]
    typing = [viewer.user for viewer in others if viewer.typing]
    viewing = [viewer.user for viewer in others if not viewer.typing]
    parts = []
    if typing:
        parts.append(
            translate("presence", "{names} are typing…").format(names=_names(typing))
            if len(typing) > 1
            else translate("presence", "{name} is typing…").format(name=typing[0])
        )
    if viewing:
        parts.append(
            translate("presence", "{names} are viewing").format(names=_names(viewing))
            if len(viewing) > 1
            else translate("presence", "{name} is viewing").format(name=viewing[0])
        )
    return "  ·  ".join(parts)


def _names(names: list[str]) -> str:
    return translate("presence", "{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


_PLACEMENTS = {
    REPLY: QT_TRANSLATE_NOOP("placement", "answers our message"),
    IN_CONVERSATION: QT_TRANSLATE_NOOP("placement", "part of the conversation"),
    WORK_QUEUE: QT_TRANSLATE_NOOP("placement", "not linked to a message"),
    LINKED: QT_TRANSLATE_NOOP("placement", "linked to a message by an agent"),
    NEW_TOPIC: QT_TRANSLATE_NOOP("placement", "a new topic"),
}


def placement_text(placement: str) -> str:
    """Where a customer's message sits, in words."""
    words = _PLACEMENTS.get(placement)
    return translate("placement", words) if words is not None else placement


def mentions_me(mentions: tuple[str, ...], me: str | None) -> bool:
    """Whether a note's @mentions name the signed-in user (names match in any case)."""
    return me is not None and any(name.casefold() == me.casefold() for name in mentions)


# Why Meta does not let a template be sent, by its status.
_TEMPLATE_STATUS_WORDS = {
    "PAUSED": QT_TRANSLATE_NOOP("templates", "paused by Meta (low quality)"),
    "REJECTED": QT_TRANSLATE_NOOP("templates", "rejected by Meta"),
    "PENDING": QT_TRANSLATE_NOOP("templates", "waiting for Meta's review"),
    "IN_APPEAL": QT_TRANSLATE_NOOP("templates", "waiting for Meta's review of an appeal"),
    "DISABLED": QT_TRANSLATE_NOOP("templates", "disabled by Meta"),
    "PENDING_DELETION": QT_TRANSLATE_NOOP("templates", "being deleted at Meta"),
}
MARKETING_CATEGORY = "MARKETING"


def template_unavailable_reason(template: TemplateInfo, *, marketing_allowed: bool) -> str | None:
    """Why the template cannot be sent to this customer now, or None when it can."""
    if not template.approved:
        known = _TEMPLATE_STATUS_WORDS.get(template.status)
        words = (
            translate("templates", known)
            if known is not None
            else translate("templates", "{status} at Meta").format(status=template.status.lower())
        )
        return f"{words}: {template.status_reason}" if template.status_reason else words
    if template.category == MARKETING_CATEGORY and not marketing_allowed:
        return translate("templates", "marketing, and this customer opted out of marketing")
    return None


# Quality ratings as the Health tab names them.
_QUALITY_WORDS = {
    "GREEN": QT_TRANSLATE_NOOP("quality", "High (green)"),
    "YELLOW": QT_TRANSLATE_NOOP("quality", "Medium (yellow)"),
    "RED": QT_TRANSLATE_NOOP("quality", "Low (red)"),
    "UNKNOWN": QT_TRANSLATE_NOOP("quality", "Unknown"),
}


def quality_text(rating: str | None) -> str:
    """Meta's quality rating in words."""
    if rating is None:
        return translate("quality", "not read yet")
    words = _QUALITY_WORDS.get(rating)
    return translate("quality", words) if words is not None else rating.capitalize()


def tier_text(tier: str | None, limit: int | None, *, set_by_hand: bool) -> str:
    """The messaging limit the sender keeps, and where it comes from."""
    amount = (
        translate("quality", "no daily limit")
        if limit is None
        else translate("quality", "{count} customers a day").format(count=number_text(limit))
    )
    if set_by_hand:
        return translate("quality", "{amount} (set by hand; Meta says {tier})").format(
            amount=amount, tier=tier or translate("quality", "nothing yet")
        )
    if tier:
        return f"{amount} ({tier})"
    return translate("quality", "{amount} (Meta has not said yet)").format(amount=amount)


OPTED_OUT_MARK = QT_TRANSLATE_NOOP("presentation", "⊘ Opted out of marketing")


def opted_out_text(contact: Contact, now: datetime) -> str:
    """The opt-out marker of a contact, or "" while marketing may go to them."""
    if not contact.opted_out:
        return ""
    when = short_time(contact.opted_out_at, now) if contact.opted_out_at is not None else ""
    mark = translate("presentation", OPTED_OUT_MARK)
    return f"{mark} ({when})" if when else mark


def thread_header_text(conversation: Conversation | None) -> str:
    """The thread's title: the customer, their number, and the opt-out marker when they opted out."""
    if conversation is None:
        return translate("InboxView", "Select a conversation")
    contact = conversation.contact
    header = f"{contact.display_name}  ·  {contact.number or ''}"
    return f"{header}  ·  {translate('presentation', OPTED_OUT_MARK)}" if contact.opted_out else header


def quality_warning_text(metrics: Metrics) -> str:
    """A warning when the number's quality rating dropped (or is low), else ""."""
    if metrics.quality_dropped or metrics.quality_rating == "RED":
        return translate(
            "quality",
            "⚠ Quality rating dropped to {rating}: Meta may lower the messaging limit. Check recent "
            "marketing and templates; customers who block or report the number lower it.",
        ).format(rating=quality_text(metrics.quality_rating))
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
