"""`inbox demo`: sandbox, backend and desktop client together, on a fresh embedded database."""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from app.cli_errors import CommandError
from app.commands.common import open_database, parts_for, settings_from
from app.demo_story import SHOWCASE, STORY_AGENT, STORY_SUPERVISOR, Story, reply_to_opener, start_story
from app.http_server import HttpServer
from app.service import Service, build_service
from backend.clock import utc_now
from backend.database import Database
from backend.settings import PRIVATE_FOLDER_MODE, Settings, make_private_folder, tighten
from backend.users import create_user

log = logging.getLogger(__name__)

TABS = ("inbox", "work-queue", "supervisor", "health", "reports")
# The client's languages and themes, as `inbox demo` takes them (kept in step with ui.i18n and ui.theme).
LANGUAGES = ("en", "es", "pt_BR", "ar")
THEMES = ("system", "light", "dark")
DEMO_USER = STORY_SUPERVISOR
# Numbers that never write to us: free text to them is held because their window is closed.
QUIET_NUMBERS = ("+447911123456", "+16505551299")
BACKGROUND_CUSTOMERS = 4
# A background customer starts a new topic only after this long without a message either way.
BACKGROUND_CUSTOMER_IDLE_SECONDS = 20.0


@dataclass
class DemoStack:
    """A sandbox and a backend wired to each other, with a supervisor signed in."""

    settings: Settings
    database: Database
    service: Service
    server: HttpServer
    sandbox: Any
    token: str
    user_name: str
    # Tokens of the other demo users (agents), by name.
    agent_tokens: dict[str, str] = field(default_factory=dict)
    database_path: Path | None = None
    stop_event: threading.Event = field(default_factory=threading.Event)
    story: Story | None = None
    _threads: list[threading.Thread] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The backend's base URL."""
        return self.server.url

    def api(self, user: str | None = None) -> httpx.Client:
        """An HTTP client for the backend, signed in as the demo supervisor (or the named agent)."""
        token = self.token if user is None else self.agent_tokens[user]
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {token}"}, timeout=10)

    def play_story(self, **pace: float) -> Story:
        """Start the day's scripted conversations (they need the agent `sam`: start_stack(agents=...))."""
        tokens = {self.user_name: self.token, **self.agent_tokens}
        self.story = start_story(self.url, self.sandbox.url, tokens, self.stop_event, **pace)
        return self.story

    def start_traffic(self, *, interval: float = 1.5) -> None:
        """An agent answers the background customers' questions until stopped."""
        thread = threading.Thread(target=self._traffic, args=(interval,), name="demo-traffic", daemon=True)
        thread.start()
        self._threads.append(thread)

    def _traffic(self, interval: float) -> None:
        agent = STORY_AGENT if STORY_AGENT in self.agent_tokens else None
        regulars = set(self.sandbox.customer_numbers)
        # The last activity seen per conversation: a thread is only read again when it moved.
        seen: dict[int, str | None] = {}
        with self.api(agent) as client:
            while not self.stop_event.wait(interval):
                try:
                    for conversation in _open_conversations(client):
                        number = (conversation.get("contact") or {}).get("number")
                        moved = seen.get(conversation["id"], "") != conversation.get("last_message_at")
                        if number in regulars and moved:
                            seen[conversation["id"]] = conversation.get("last_message_at")
                            _answer_opener(client, conversation, agent)
                except httpx.HTTPError as error:
                    log.debug("demo traffic: %s", error)

    def make_trouble(self) -> None:
        """Create a few unknown sends (dropped connections) and held sends (closed windows)."""
        with self.api() as client:
            self.sandbox.set_faults(drop_rate=1.0)
            try:
                for number in range(2):
                    _post_message(client, QUIET_NUMBERS[number % 2], template=True, purpose="order_update")
                _wait_for_states(client, {"unknown", "held", "failed"}, minimum=2, timeout=8.0)
            finally:
                self.sandbox.set_faults(drop_rate=0.0)
            for quiet_number in QUIET_NUMBERS:
                _post_message(client, quiet_number, text="Your invoice is ready.", purpose="invoice")

    def stop(self) -> None:
        """Stop the story, traffic, the backend and the sandbox."""
        self.stop_event.set()
        if self.story is not None:
            self.story.join(5)
        for thread in self._threads:
            thread.join(5)
        # The sandbox first: it would keep posting webhooks to a backend that is going away.
        self.sandbox.stop()
        self.server.stop()
        self.service.stop()


def _open_conversations(client: httpx.Client) -> list[dict[str, Any]]:
    response = client.get("/v1/conversations", params={"window": "open", "limit": 100})
    if response.status_code != 200:
        return []
    return list(response.json().get("conversations", []))


def _answer_opener(client: httpx.Client, conversation: dict[str, Any], agent: str | None) -> None:
    """Answer the customer's latest message if it opens a topic nobody answered yet."""
    conversation_id = conversation["id"]
    response = client.get(f"/v1/conversations/{conversation_id}/thread", params={"limit": 1000})
    if response.status_code != 200:
        return
    items = response.json().get("messages") or []
    if not items or items[-1].get("direction") != "inbound":
        return
    contact = conversation.get("contact") or {}
    first_name = (contact.get("name") or "there").split(" ")[0]
    answer = reply_to_opener(items[-1].get("text") or "", first_name)
    if answer is None:
        return
    if agent is not None and conversation.get("assignee") is None:
        client.post(f"/v1/conversations/{conversation_id}/assign", json={"user": agent})
    client.post(
        f"/v1/conversations/{conversation_id}/reply",
        json={"text": answer},
        headers={"Idempotency-Key": f"demo-{uuid.uuid4()}"},
    )


def _post_message(
    client: httpx.Client,
    to: str,
    *,
    text: str | None = None,
    template: bool = False,
    purpose: str = "demo",
    buttons: tuple[str, list[str]] | None = None,
) -> httpx.Response:
    body: dict[str, Any] = {"to": to, "purpose": purpose, "trigger_ref": f"demo-{uuid.uuid4().hex[:8]}"}
    if template:
        body["template"] = {
            "name": "order_shipped",
            "language": "en",
            "parameters": [f"#{secrets.randbelow(90000) + 10000}"],
        }
    elif buttons is not None:
        body["buttons"] = {
            "body": buttons[0],
            "buttons": [{"id": f"choice-{n}", "title": title} for n, title in enumerate(buttons[1])],
        }
    else:
        body["text"] = text or "Hello!"
    return client.post("/v1/messages", json=body, headers={"Idempotency-Key": f"demo-{uuid.uuid4()}"})


def _wait_for_states(client: httpx.Client, wanted: set[str], *, minimum: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = client.get("/v1/metrics")
        if response.status_code == 200:
            depth = response.json().get("queue_depth", {})
            if sum(int(depth.get(state, 0)) for state in wanted) >= minimum:
                return
        time.sleep(0.2)


def start_stack(
    settings: Settings,
    *,
    customers: int = 0,
    status_delay: float = 0.5,
    customer_interval: float = 30.0,
    seed: int | None = None,
    agents: tuple[str, ...] = (),
) -> DemoStack:
    """Start a sandbox and a backend (with workers) on free ports, a supervisor user and `agents`."""
    from backend.sandbox.server import Sandbox, SandboxConfig

    app_secret = secrets.token_hex(16)
    graph_token = secrets.token_hex(16)
    phone_number_id = "100000000000001"
    sandbox = Sandbox(
        SandboxConfig(
            port=0,
            app_secret=app_secret,
            token=graph_token,
            phone_number_id=phone_number_id,
            customers=customers,
            status_delay=status_delay,
            customer_interval_seconds=customer_interval,
            customer_think_seconds=1.0,
            customer_reply_rate=0.9,
            seed=seed,
        )
    ).start()
    settings = replace(
        settings,
        graph_url=sandbox.graph_url,
        whatsapp_app_secret=app_secret,
        whatsapp_token=graph_token,
        whatsapp_phone_number_id=phone_number_id,
        whatsapp_verify_token=secrets.token_hex(8),
        # A dropped or silent send becomes `unknown` within seconds, so the demo shows one quickly.
        read_timeout_seconds=min(settings.read_timeout_seconds, 3.0),
        send_lease_seconds=min(settings.send_lease_seconds, 10.0),
    )
    database = open_database(settings)
    with database.transaction() as session:
        token = create_user(session, DEMO_USER, "supervisor", utc_now())
        agent_tokens = {name: create_user(session, name, "agent", utc_now()) for name in agents}
    service = build_service(parts_for(settings, database))
    server = HttpServer(service.web_app, "127.0.0.1", 0).start()
    sandbox.set_webhook_url(f"{server.url}/webhooks/whatsapp")
    service.start_workers()
    return DemoStack(
        settings=settings,
        database=database,
        service=service,
        server=server,
        sandbox=sandbox,
        token=token,
        user_name=DEMO_USER,
        agent_tokens=agent_tokens,
    )


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox demo`."""
    parser = subcommands.add_parser(
        "demo", help="run sandbox, backend and desktop inbox together on a fresh embedded database"
    )
    parser.add_argument("--offscreen", action="store_true", help="render without a display (for screenshots)")
    parser.add_argument("--screenshot", metavar="FILE", help="save the main window to FILE (PNG) and exit")
    parser.add_argument(
        "--seconds", type=float, default=8.0, help="live traffic before the screenshot (default 8)"
    )
    parser.add_argument("--tab", choices=TABS, default="inbox", help="the tab to show (default inbox)")
    parser.add_argument(
        "--language",
        choices=LANGUAGES,
        help="the client's language (default: the system's; es, pt_BR and ar are translated)",
    )
    parser.add_argument(
        "--theme", choices=THEMES, help="light or dark colours (default: follow the system's colour scheme)"
    )
    parser.add_argument(
        "--customers",
        type=int,
        default=BACKGROUND_CUSTOMERS,
        help=f"simulated customers besides the day's story (default {BACKGROUND_CUSTOMERS})",
    )
    parser.add_argument("--keep", action="store_true", help="keep the demo database file afterwards")
    parser.set_defaults(run=run)


def _demo_settings(args: argparse.Namespace) -> tuple[Settings, Path | None]:
    settings = settings_from(args)
    if not settings.is_sqlite:
        return settings, None
    # A database file per run, so several demos can run side by side without mixing their data.
    folder = settings.data_dir / "demo"
    make_private_folder(settings.data_dir)
    make_private_folder(folder)
    tighten(folder, PRIVATE_FOLDER_MODE)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path = folder / f"inbox-demo-{stamp}-{os.getpid()}.db"
    return replace(settings, database_url=f"sqlite:///{path}"), path


def run(args: argparse.Namespace) -> int:
    """Run the demo until the window closes (or until the screenshot is taken)."""
    from ui.app import display_available

    if not args.offscreen and not display_available():
        print(
            "inbox demo: no display found; try `inbox demo --offscreen --screenshot demo.png`",
            file=sys.stderr,
        )
        return 2
    if args.screenshot and args.seconds < 0:
        raise CommandError("--seconds must be zero or more")
    settings, database_path = _demo_settings(args)
    for noisy in ("granian", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    stack = start_stack(
        settings,
        customers=args.customers,
        customer_interval=BACKGROUND_CUSTOMER_IDLE_SECONDS,
        agents=(STORY_AGENT,),
    )
    stack.database_path = database_path
    try:
        # Before the story: the trouble drops every send for a moment.
        stack.make_trouble()
        stack.play_story()
        stack.start_traffic()
        return _run_client(stack, args)
    finally:
        # Requests the client left in flight end with noisy tracebacks when the server closes.
        logging.getLogger("granian").setLevel(logging.CRITICAL)
        stack.stop()
        if database_path is not None and not args.keep:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{database_path}{suffix}").unlink(missing_ok=True)


def _run_client(stack: DemoStack, args: argparse.Namespace) -> int:
    from ui.app import application, apply_preferences, open_shell
    from ui.demo_script import ScreenshotPlan

    app = application(offscreen=args.offscreen)
    # The demo's choices are its own: the agent's saved ones stay as they are.
    apply_preferences(None, language=args.language, theme=args.theme, cache_folder=stack.settings.data_dir)
    shell = open_shell(
        stack.url,
        stack.token,
        user_name=stack.user_name,
        title_suffix=f" — demo ({stack.url})",
        data_dir=stack.settings.data_dir,
        remember=False,
    )
    window, api = shell.window, shell.api
    if not args.screenshot:
        print(f"Demo backend: {stack.url}   sandbox: {stack.sandbox.url}", flush=True)
        print(f"Signed in as {stack.user_name} (supervisor). Close the window to stop.", flush=True)
    plan = ScreenshotPlan(
        window,
        Path(args.screenshot) if args.screenshot else None,
        args.tab,
        args.seconds,
        showcase_number=SHOWCASE.number,
    )
    plan.start()
    status = app.exec()
    shell.window.stop()
    api.close()
    if args.screenshot:
        if not plan.saved:
            raise CommandError(f"could not save the screenshot to {args.screenshot}")
        print(f"saved {args.screenshot}")
    return status
