"""`inbox demo`: sandbox, backend and desktop client together, on a fresh embedded database."""

from __future__ import annotations

import argparse
import logging
import os
import random
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
from app.http_server import HttpServer
from app.service import Service, build_service
from backend.clock import utc_now
from backend.database import Database
from backend.settings import PRIVATE_FOLDER_MODE, Settings, make_private_folder, tighten
from backend.users import create_user

log = logging.getLogger(__name__)

TABS = ("inbox", "work-queue", "supervisor", "health")
DEMO_USER = "dana"
# Numbers that never write to us: free text to them is held because their window is closed.
QUIET_NUMBERS = ("+447911123456", "+16505551299")
OUTBOUND_TEXTS = (
    "Hi {name}, your parcel is out for delivery today between 2 and 4 pm.",
    "Thanks for your message! Could you send us your order number?",
    "Your table for two is booked for Friday at 7 pm.",
    "We've refunded your return; it should show within 3 days.",
)
BUTTON_PROMPTS = (
    ("Would you like us to deliver tomorrow instead?", ["Yes, tomorrow", "No, keep today"]),
    ("How did we do today?", ["Great", "Could be better"]),
)


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
    database_path: Path | None = None
    stop_event: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The backend's base URL."""
        return self.server.url

    def api(self) -> httpx.Client:
        """An HTTP client for the backend, signed in as the demo supervisor."""
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=10)

    def start_traffic(self, *, interval: float = 1.5, seed: int | None = None) -> None:
        """Keep sending messages to the simulated customers until stopped."""
        thread = threading.Thread(
            target=self._traffic, args=(interval, seed), name="demo-traffic", daemon=True
        )
        thread.start()
        self._threads.append(thread)

    def _traffic(self, interval: float, seed: int | None) -> None:
        chooser = random.Random(seed)
        with self.api() as client:
            count = 0
            while not self.stop_event.wait(interval):
                conversations = _open_conversations(client)
                if not conversations:
                    continue
                conversation = chooser.choice(conversations)
                count += 1
                try:
                    _send_sample(client, conversation, count, chooser)
                    if count % 4 == 1 and conversation.get("assignee") is None:
                        client.post(
                            f"/v1/conversations/{conversation['id']}/assign", json={"user": self.user_name}
                        )
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
        """Stop traffic, the backend and the sandbox."""
        self.stop_event.set()
        for thread in self._threads:
            thread.join(5)
        # The sandbox first: it would keep posting webhooks to a backend that is going away.
        self.sandbox.stop()
        self.server.stop()
        self.service.stop()


def _open_conversations(client: httpx.Client) -> list[dict[str, Any]]:
    response = client.get("/v1/conversations", params={"window": "open", "limit": 50})
    if response.status_code != 200:
        return []
    return list(response.json().get("conversations", []))


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


def _send_sample(
    client: httpx.Client, conversation: dict[str, Any], count: int, chooser: random.Random
) -> None:
    contact = conversation.get("contact") or {}
    number = contact.get("number")
    if not number:
        return
    name = (contact.get("name") or "there").split(" ")[0]
    if count % 3 == 0:
        _post_message(client, number, buttons=chooser.choice(BUTTON_PROMPTS), purpose="feedback")
    elif count % 5 == 0:
        _post_message(client, number, template=True, purpose="order_update")
    else:
        _post_message(
            client, number, text=chooser.choice(OUTBOUND_TEXTS).format(name=name), purpose="support"
        )


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
) -> DemoStack:
    """Start a sandbox and a backend (with workers) on free ports, and a supervisor user."""
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
    parser.add_argument("--customers", type=int, default=8, help="simulated customers (default 8)")
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
    for noisy in ("waitress", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    stack = start_stack(settings, customers=args.customers, customer_interval=6.0)
    stack.database_path = database_path
    try:
        stack.make_trouble()
        stack.start_traffic()
        return _run_client(stack, args)
    finally:
        # Requests the client left in flight end with noisy tracebacks when the server closes.
        logging.getLogger("waitress").setLevel(logging.CRITICAL)
        stack.stop()
        if database_path is not None and not args.keep:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{database_path}{suffix}").unlink(missing_ok=True)


def _run_client(stack: DemoStack, args: argparse.Namespace) -> int:
    from ui.app import application, open_main_window
    from ui.demo_script import ScreenshotPlan

    app = application(offscreen=args.offscreen)
    window, _runner, api = open_main_window(
        stack.url, stack.token, user_name=stack.user_name, title_suffix=f" — demo ({stack.url})"
    )
    if not args.screenshot:
        print(f"Demo backend: {stack.url}   sandbox: {stack.sandbox.url}", flush=True)
        print(f"Signed in as {stack.user_name} (supervisor). Close the window to stop.", flush=True)
    plan = ScreenshotPlan(window, Path(args.screenshot) if args.screenshot else None, args.tab, args.seconds)
    plan.start()
    status = app.exec()
    window.stop()
    api.close()
    if args.screenshot:
        if not plan.saved:
            raise CommandError(f"could not save the screenshot to {args.screenshot}")
        print(f"saved {args.screenshot}")
    return status
