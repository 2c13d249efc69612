"""The demo's day in a small shop: named customers whose conversations show what each tab is for.

Everything happens through public surfaces: customers write through the sandbox's control API,
agents and the shop's systems through the backend's HTTP API, as a real day would.
"""

from __future__ import annotations

import base64
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import partial
from typing import Any, Final

import httpx

from backend.sandbox.pictures import cracked_mug, opus_voice_note

log = logging.getLogger(__name__)

STORY_AGENT: Final = "sam"
STORY_SUPERVISOR: Final = "dana"
# Seconds between one scene's start and the next, so the inbox fills in a natural order.
SCENE_STAGGER_SECONDS: Final = 0.7
# How long a person takes to read a message and type an answer.
TYPING_SECONDS: Final = 1.2
WAIT_SECONDS: Final = 15.0
# The event feed's long-poll: short, so the story stops soon after the demo does.
FEED_WAIT_SECONDS: Final = 2
# A presence row lives 30 s; refresh well within it while an agent stays in a conversation.
PRESENCE_REFRESH_SECONDS: Final = 10.0
# Marcus's voice note about the crack.
VOICE_NOTE_SECONDS: Final = 7.0
DAY_NAMES: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_NAMES: Final = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@dataclass(frozen=True)
class Customer:
    """One of the shop's customers in the story."""

    number: str
    name: str


# The cast. North American 555-01xx numbers are reserved for fiction.
GRACE: Final = Customer("+16505550101", "Grace Whitfield")  # asks about an order; answered and resolved
TOM: Final = Customer("+16505550102", "Tom Becker")  # confirms an appointment reminder with its button
PRIYA: Final = Customer("+16505550103", "Priya Nair")  # two reminders, then "Yes" to neither in particular
LUCIA: Final = Customer("+34611204387", "Lucía Fernández")  # writes in Spanish
MARCUS: Final = Customer("+16505550105", "Marcus Obi")  # sends a photo of a broken mug and a voice note
HANNAH: Final = Customer("+16505550106", "Hannah Kowalski")  # waits for a restock: snoozed
BEN: Final = Customer("+16505550107", "Ben Carter")  # a return, waiting for his order number: pending
RAVI: Final = Customer("+16505550108", "Ravi Menon")  # asks about a shipping notice without quoting it
NORA: Final = Customer("+16505550109", "Nora Lindqvist")  # answers a win-back offer with STOP: opted out
CAST: Final = (GRACE, TOM, PRIYA, LUCIA, MARCUS, HANNAH, BEN, RAVI, NORA)
# The conversation the inbox screenshot opens: text, a reply, a photo, a voice note, a note and a label.
SHOWCASE: Final = MARCUS

# What an agent answers to each thing the background customers open a chat with.
ANSWERS_TO_OPENERS: Final = {
    "Hi! Is my order on its way?": (
        "Hi {name}! It left our warehouse this morning; the tracking link comes by email tonight."
    ),
    "Do you open on Sundays?": "We do, {name}: from 10 am to 4 pm on Sundays.",
    "Hello, I'd like to change my delivery address.": (
        "Of course, {name}! Send us the new address and I'll update your order."
    ),
    "Can I return an item I bought last week?": (
        "Yes, within 30 days. Bring it to the shop, or reply here and we'll email a free return label."
    ),
    "Is the blue one back in stock?": "Not yet, {name}, but we expect it on Thursday.",
    "Thanks for the quick help yesterday!": "You're welcome, {name}! 😊",
    "¿Hacen envíos internacionales?": "¡Hola, {name}! Sí, enviamos a toda la UE en 3 a 5 días.",
}

# Routes a backend may not offer yet; a scene skips such a step with a log line instead of stopping.
OPTIONAL_STEP_STATUSES: Final = frozenset({404, 405})


class StoryStoppedError(Exception):
    """The demo is stopping: the scene ends where it is."""


class StoryStepError(Exception):
    """A step the rest of its scene depends on did not happen."""


def day_name(day: date) -> str:
    """'Tuesday 10 June', in English whatever the machine's locale."""
    return f"{DAY_NAMES[day.weekday()]} {day.day} {MONTH_NAMES[day.month - 1]}"


def reply_to_opener(opener: str, first_name: str) -> str | None:
    """What an agent answers to a customer's opening message, or None if it is not one."""
    answer = ANSWERS_TO_OPENERS.get(opener)
    return None if answer is None else answer.format(name=first_name)


@dataclass
class Story:
    """Plays the cast's scenes against a running backend and sandbox."""

    backend_url: str
    sandbox_url: str
    tokens: dict[str, str]
    stop_event: threading.Event = field(default_factory=threading.Event)
    today: date = field(default_factory=date.today)
    typing_seconds: float = TYPING_SECONDS
    stagger_seconds: float = SCENE_STAGGER_SECONDS
    # Conversation ids by customer number, as the scenes learn them.
    conversations: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    # What the event feed said so far: inbound messages by wamid, outgoing messages by key.
    _inbound: dict[str, dict[str, Any]] = field(default_factory=dict)
    _outgoing: dict[str, dict[str, Any]] = field(default_factory=dict)
    _news: threading.Condition = field(default_factory=threading.Condition)
    _feed: threading.Thread | None = None
    _typing: threading.Thread | None = None
    _scenes: list[threading.Thread] = field(default_factory=list)

    # ------------------------------------------------------------------ running

    def cast_customers(self) -> None:
        """Tell the sandbox who the cast are, so they write under their names and only when told."""
        with httpx.Client(base_url=self.sandbox_url, timeout=10) as sandbox:
            for customer in CAST:
                sandbox.post(
                    "/_sandbox/customers",
                    json={"number": customer.number, "name": customer.name, "scripted": True},
                ).raise_for_status()

    def start(self) -> None:
        """Cast the customers, follow the event feed, and start every scene a little apart."""
        self.cast_customers()
        self._feed = self._start_thread(self._follow_events, "demo-story-events")
        scenes: list[Callable[[], None]] = [
            self.order_question,
            self.appointment_confirmed,
            self.two_reminders_one_yes,
            self.spanish_speaker,
            self.broken_mug_photo,
            self.restock_snoozed,
            self.return_pending,
            self.shipping_question,
            self.stop_to_marketing,
        ]
        for index, scene in enumerate(scenes):
            self._scenes.append(
                self._start_thread(
                    partial(self._run_scene, scene, index * self.stagger_seconds),
                    f"demo-story-{scene.__name__}",
                )
            )

    @staticmethod
    def _start_thread(target: Callable[[], None], name: str) -> threading.Thread:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        return thread

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the scenes to end (and the event feed, once stopping); True if all did in time."""
        deadline = None if timeout is None else time.monotonic() + timeout
        threads = list(self._scenes)
        if self.stop_event.is_set():
            threads.extend(thread for thread in (self._feed, self._typing) if thread is not None)
        for thread in threads:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in threads)

    def stop(self) -> None:
        """End every scene at its next step, and stop following the event feed."""
        self.stop_event.set()
        self.join(5)

    def _run_scene(self, scene: Callable[[], None], delay: float) -> None:
        try:
            self.pause(delay)
            scene()
        except StoryStoppedError:
            return
        except (StoryStepError, httpx.HTTPError) as error:
            # Calls cut short by the demo shutting down are no news.
            if not self.stop_event.is_set():
                log.warning("demo story: %s stopped: %s", scene.__name__, error)

    def pause(self, seconds: float) -> None:
        """Wait, unless the demo is stopping."""
        if self.stop_event.wait(seconds):
            raise StoryStoppedError

    @contextmanager
    def _backend(self, user: str) -> Iterator[httpx.Client]:
        headers = {"Authorization": f"Bearer {self.tokens[user]}"}
        with httpx.Client(base_url=self.backend_url, headers=headers, timeout=10) as client:
            yield client

    # ------------------------------------------------------------------ what the backend tells

    def _follow_events(self) -> None:
        """Read the event feed as a desk does, so scenes wait for news instead of polling."""
        after = 0
        with self._backend(STORY_SUPERVISOR) as client:
            while not self.stop_event.is_set():
                try:
                    response = client.get(
                        "/v1/events", params={"after": after, "wait": FEED_WAIT_SECONDS, "limit": 1000}
                    )
                except httpx.HTTPError as error:
                    log.debug("demo story: event feed: %s", error)
                    self.stop_event.wait(1.0)
                    continue
                if response.status_code != 200:
                    self.stop_event.wait(1.0)
                    continue
                page = response.json()
                self._note_events(page.get("events", []))
                after = int(page.get("next", after))
                if "Retry-After" in response.headers:
                    self.stop_event.wait(float(response.headers["Retry-After"]))

    def _note_events(self, events: list[dict[str, Any]]) -> None:
        with self._news:
            for event in events:
                data = event.get("data") or {}
                if event.get("type") == "inbound.received" and data.get("wamid"):
                    self._inbound[data["wamid"]] = data
                elif event.get("type") in ("message.queued", "message.state_changed") and data.get("key"):
                    self._outgoing.setdefault(data["key"], {}).update(data)
            self._news.notify_all()

    def _await(self, what: str, probe: Callable[[], dict[str, Any] | None]) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT_SECONDS
        with self._news:
            while True:
                found = probe()
                if found is not None:
                    return dict(found)
                if self.stop_event.is_set():
                    raise StoryStoppedError
                if time.monotonic() > deadline:
                    raise StoryStepError(f"gave up waiting for {what}")
                # Woken by news; the timeout only notices a stop.
                self._news.wait(0.25)

    def wait_stored(self, customer: Customer, wamid: str) -> int:
        """The conversation an inbound message went to, once the backend has stored it."""
        stored = self._await(f"{customer.name}'s message {wamid}", lambda: self._inbound.get(wamid))
        conversation_id = int(stored["conversation_id"])
        self.conversations[customer.number] = conversation_id
        return conversation_id

    def wait_read(self, key: str) -> str:
        """The wamid of an outgoing message, once the customer has read it."""

        def probe() -> dict[str, Any] | None:
            message = self._outgoing.get(key)
            return message if message is not None and message.get("state") == "read" else None

        return str(self._await(f"message {key} to be read", probe)["wamid"])

    # ------------------------------------------------------------------ what customers do

    def customer_sends(self, customer: Customer, **message: Any) -> str:
        """The customer sends one message (text, image, button_payload, reaction...); its wamid."""
        body = {"from": customer.number, **message}
        with httpx.Client(base_url=self.sandbox_url, timeout=10) as sandbox:
            response = sandbox.post("/_sandbox/inbound", json=body)
        response.raise_for_status()
        return str(response.json()["wamid"])

    def customer_says(self, customer: Customer, **message: Any) -> int:
        """The customer sends a message; the conversation it went to, once the backend stored it."""
        return self.wait_stored(customer, self.customer_sends(customer, **message))

    # ------------------------------------------------------------------ what agents and systems do

    def business_sends(
        self, customer: Customer, key: str, *, template: str, parameters: list[str], purpose: str
    ) -> str:
        """The shop's systems send a template through POST /v1/messages; its wamid once read."""
        body = {
            "to": customer.number,
            "template": {"name": template, "language": "en", "parameters": parameters},
            "purpose": purpose,
            "trigger_ref": key,
        }
        with self._backend(STORY_SUPERVISOR) as client:
            response = client.post("/v1/messages", json=body, headers={"Idempotency-Key": key})
        if response.status_code >= 300:
            raise StoryStepError(f"sending {key} answered {response.status_code}: {response.text[:200]}")
        return self.wait_read(key)

    def agent_takes(self, user: str, conversation_id: int) -> None:
        """The agent assigns the conversation to themselves."""
        with self._backend(user) as client:
            response = client.post(f"/v1/conversations/{conversation_id}/assign", json={"user": user})
        if response.status_code != 200:
            log.warning(
                "demo story: %s could not take conversation %s (%s)",
                user,
                conversation_id,
                response.status_code,
            )

    def agent_replies(self, user: str, conversation_id: int, key: str, text: str) -> str:
        """The agent answers in the conversation; the reply's wamid once the customer read it."""
        with self._backend(user) as client:
            response = client.post(
                f"/v1/conversations/{conversation_id}/reply",
                json={"text": text},
                headers={"Idempotency-Key": key},
            )
        if response.status_code >= 300:
            raise StoryStepError(f"reply {key} answered {response.status_code}: {response.text[:200]}")
        return self.wait_read(key)

    def optional_step(self, user: str, what: str, path: str, body: dict[str, Any]) -> bool:
        """A step through a newer route (status, notes, labels, presence); a log line if it is absent."""
        with self._backend(user) as client:
            response = client.post(path, json=body)
        if response.status_code in OPTIONAL_STEP_STATUSES:
            log.warning("demo story: skipped %s: POST %s answered %s", what, path, response.status_code)
            self.skipped.append(what)
            return False
        if response.status_code >= 400:
            log.warning("demo story: %s refused (%s): %s", what, response.status_code, response.text[:200])
            return False
        return True

    def set_status(self, user: str, conversation_id: int, status: str, until: datetime | None = None) -> bool:
        """Change the conversation's status (snoozed needs `until`)."""
        body: dict[str, Any] = {"status": status}
        if until is not None:
            body["until"] = until.astimezone(UTC).isoformat()
        path = f"/v1/conversations/{conversation_id}/status"
        return self.optional_step(user, f"status {status}", path, body)

    def add_note(self, user: str, conversation_id: int, text: str) -> bool:
        """An internal note in the conversation."""
        return self.optional_step(user, "note", f"/v1/conversations/{conversation_id}/notes", {"text": text})

    def add_label(self, user: str, conversation_id: int, label: str) -> bool:
        """A label on the conversation."""
        path = f"/v1/conversations/{conversation_id}/labels"
        return self.optional_step(user, f"label {label}", path, {"add": [label]})

    def stay_typing(self, user: str, conversation_id: int) -> None:
        """The agent keeps the conversation open and types, until the demo stops."""
        path = f"/v1/conversations/{conversation_id}/presence"
        if not self.optional_step(user, "presence", path, {"typing": True}):
            return

        def keep_typing() -> None:
            while not self.stop_event.wait(PRESENCE_REFRESH_SECONDS):
                with suppress(httpx.HTTPError):
                    self.optional_step(user, "presence", path, {"typing": True})

        self._typing = self._start_thread(keep_typing, "demo-story-typing")

    # ------------------------------------------------------------------ the scenes

    def order_question(self) -> None:
        """A first contact about an order: answered, a plain follow-up, a note, a label, resolved."""
        conversation = self.customer_says(
            GRACE, text="Hi! I ordered the oak desk lamp on Monday (order 10482). Any news on the delivery?"
        )
        self.pause(self.typing_seconds)
        self.agent_takes(STORY_AGENT, conversation)
        self.agent_replies(
            STORY_AGENT,
            conversation,
            "story-grace-1",
            "Hi Grace! Your lamp left our warehouse this morning; the tracking link comes by email tonight.",
        )
        self.pause(self.typing_seconds)
        self.customer_says(
            GRACE, text="Great, thanks! Could the courier leave it with my neighbour at no. 12 if I'm out?"
        )
        self.pause(self.typing_seconds)
        answer = self.agent_replies(
            STORY_AGENT,
            conversation,
            "story-grace-2",
            "Of course, I've passed that on to the courier. Have a lovely evening!",
        )
        self.add_note(
            STORY_AGENT, conversation, "Courier asked to leave order 10482 with the neighbour at no. 12."
        )
        self.add_label(STORY_AGENT, conversation, "order")
        self.customer_says(GRACE, reaction="❤️", context_id=answer)
        self.pause(self.typing_seconds)
        self.set_status(STORY_AGENT, conversation, "resolved")

    def appointment_confirmed(self) -> None:
        """A reminder with buttons from the booking system, confirmed with a tap (a reply under it)."""
        appointment = day_name(self.today + timedelta(days=1))
        reminder = self.business_sends(
            TOM,
            "story-tom-reminder",
            template="appointment_reminder",
            parameters=[appointment, "10:30"],
            purpose="appointment_reminder",
        )
        self.pause(self.typing_seconds)
        conversation = self.customer_says(TOM, button_payload="Confirm", context_id=reminder)
        self.pause(self.typing_seconds)
        self.agent_takes(STORY_SUPERVISOR, conversation)
        self.agent_replies(
            STORY_SUPERVISOR, conversation, "story-tom-1", f"Thanks, Tom! See you {appointment} at 10:30."
        )

    def two_reminders_one_yes(self) -> None:
        """Two reminders, then a "Yes" quoting neither: a real doubt for the work queue."""
        for number, (days, hour) in enumerate(((2, "09:00"), (4, "16:30")), start=1):
            self.business_sends(
                PRIYA,
                f"story-priya-reminder-{number}",
                template="appointment_reminder",
                parameters=[day_name(self.today + timedelta(days=days)), hour],
                purpose="appointment_reminder",
            )
        self.pause(self.typing_seconds)
        self.customer_says(PRIYA, text="Yes")

    def spanish_speaker(self) -> None:
        """A chat in Spanish, accents and all, ending with a label."""
        conversation = self.customer_says(
            LUCIA, text="Hola, ¿tenéis la chaqueta azul de lino en talla M? La vi en el escaparate el sábado."
        )
        self.pause(self.typing_seconds)
        self.agent_takes(STORY_SUPERVISOR, conversation)
        self.agent_replies(
            STORY_SUPERVISOR,
            conversation,
            "story-lucia-1",
            "¡Hola, Lucía! Sí, nos queda una en talla M. ¿Quieres que te la reservemos hasta el viernes?",
        )
        self.pause(self.typing_seconds)
        self.customer_says(LUCIA, text="¡Sí, por favor! Paso el jueves por la tarde. Muchas gracias 😊")
        self.add_label(STORY_SUPERVISOR, conversation, "reserved")

    def broken_mug_photo(self) -> None:
        """A complaint with a photo and a voice note, a note to the supervisor, her answer, someone typing."""
        conversation = self.customer_says(
            MARCUS, text="Hi, my mug arrived today with a crack in the handle 😕"
        )
        self.pause(self.typing_seconds)
        self.agent_takes(STORY_AGENT, conversation)
        self.agent_replies(
            STORY_AGENT,
            conversation,
            "story-marcus-1",
            "I'm so sorry, Marcus! Could you send us a photo of the crack?",
        )
        self.pause(self.typing_seconds)
        photo = {
            "type": "image",
            "mime_type": "image/png",
            "content_b64": base64.b64encode(cracked_mug()).decode(),
            "caption": "Here it is, the crack is on the left of the handle",
        }
        self.customer_says(MARCUS, media=photo)
        # A voice note as WhatsApp records one (Ogg Opus): its bubble shows how long it lasts.
        voice_note = {
            "type": "audio",
            "mime_type": "audio/ogg; codecs=opus",
            "content_b64": base64.b64encode(opus_voice_note(VOICE_NOTE_SECONDS)).decode(),
        }
        self.customer_says(MARCUS, media=voice_note)
        self.add_label(STORY_AGENT, conversation, "damaged")
        self.add_note(
            STORY_AGENT, conversation, "@dana Broken in transit, photo above. Replacement or refund?"
        )
        self.pause(self.typing_seconds)
        self.agent_replies(
            STORY_SUPERVISOR,
            conversation,
            "story-marcus-2",
            "Thanks for the photo, Marcus. A new mug goes out today; no need to send the broken one back.",
        )
        self.pause(self.typing_seconds)
        self.customer_says(MARCUS, text="That's very kind, thank you!")
        self.stay_typing(STORY_AGENT, conversation)

    def restock_snoozed(self) -> None:
        """A question answered with "when it's back": snoozed until the restock day."""
        restock = self.today + timedelta(days=3)
        conversation = self.customer_says(
            HANNAH, text="Hello! Will the sage linen tablecloth be back in stock soon?"
        )
        self.pause(self.typing_seconds)
        self.agent_takes(STORY_SUPERVISOR, conversation)
        answer = self.agent_replies(
            STORY_SUPERVISOR,
            conversation,
            "story-hannah-1",
            f"Hi Hannah, it's due back on {day_name(restock)}. I'll message you the moment it arrives.",
        )
        # Snoozed only once her reaction is stored: a message from the customer ends a snooze.
        self.customer_says(HANNAH, reaction="😊", context_id=answer)
        self.pause(self.typing_seconds)
        wake_up = datetime(restock.year, restock.month, restock.day, 9, 0).astimezone()
        self.set_status(STORY_SUPERVISOR, conversation, "snoozed", until=wake_up)

    def return_pending(self) -> None:
        """A return: the agent asks for the order number and marks the conversation pending."""
        conversation = self.customer_says(
            BEN,
            text="Hi, I'd like to return the running shoes I bought on Saturday, they're a size too small.",
        )
        self.pause(self.typing_seconds)
        self.agent_takes(STORY_AGENT, conversation)
        self.agent_replies(
            STORY_AGENT,
            conversation,
            "story-ben-1",
            "No problem, Ben! Could you send us your order number? I'll email you a free return label.",
        )
        self.add_label(STORY_AGENT, conversation, "returns")
        self.set_status(STORY_AGENT, conversation, "pending")

    def shipping_question(self) -> None:
        """A shipping notice, then a question that does not quote it: a work item with one candidate."""
        self.business_sends(
            RAVI,
            "story-ravi-shipped",
            template="order_shipped",
            parameters=["#10517"],
            purpose="order_update",
        )
        self.pause(self.typing_seconds)
        self.customer_says(RAVI, text="Will it arrive before Saturday? It's a birthday present.")

    def stop_to_marketing(self) -> None:
        """A win-back offer answered with STOP: Nora is opted out and told so once; marketing stops."""
        offer = self.business_sends(
            NORA, "story-nora-win-back", template="we_miss_you", parameters=["Nora"], purpose="win_back"
        )
        self.pause(self.typing_seconds)
        self.customer_says(NORA, text="STOP", context_id=offer)


def start_story(
    backend_url: str,
    sandbox_url: str,
    tokens: dict[str, str],
    stop_event: threading.Event,
    *,
    typing_seconds: float = TYPING_SECONDS,
    stagger_seconds: float = SCENE_STAGGER_SECONDS,
) -> Story:
    """Start the story's scenes; they run on their own threads until done or until `stop_event`."""
    story = Story(
        backend_url,
        sandbox_url,
        tokens,
        stop_event=stop_event,
        typing_seconds=typing_seconds,
        stagger_seconds=stagger_seconds,
    )
    story.start()
    return story
