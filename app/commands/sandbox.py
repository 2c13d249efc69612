"""`inbox sandbox`: the local stand-in for Meta's Cloud API."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from app.cli_errors import CommandError
from app.commands.serve import wait_for_signal
from app.processes import freeze_startup_objects
from backend.domain.templates import TemplateError
from backend.sandbox.server import Sandbox, SandboxConfig

RATE_FLAGS = (
    ("--read-timeout-rate", "read_timeout_rate", "share of sends accepted but answered only after 60 s"),
    (
        "--retryable-error-rate",
        "retryable_error_rate",
        "share of sends answered 503 (code 131016), not accepted",
    ),
    ("--accepted-then-502-rate", "accepted_then_502_rate", "share of sends accepted but answered 502"),
    ("--drop-rate", "drop_rate", "share of sends whose connection is closed unanswered, not accepted"),
    ("--webhook-duplicate-rate", "webhook_duplicate_rate", "share of webhook deliveries sent twice"),
    ("--webhook-failure-rate", "webhook_failure_rate", "share of webhook deliveries lost and retried later"),
    ("--message-failure-rate", "message_failure_rate", "share of accepted sends that fail (status failed)"),
)


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox sandbox`."""
    parser = subcommands.add_parser(
        "sandbox",
        help="run the local stand-in for the Cloud API",
        description="Serve a local stand-in for Meta's Cloud API on 127.0.0.1 until Ctrl+C.",
    )
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    parser.add_argument(
        "--webhook-url", help="where to send signed webhooks (the backend's /webhooks/whatsapp)"
    )
    parser.add_argument("--app-secret", required=True, help="app secret that signs webhooks")
    parser.add_argument("--token", required=True, help="access token the send call must carry")
    parser.add_argument("--phone-number-id", default="100000000000001", help="the business phone number id")
    parser.add_argument("--customers", type=int, default=0, help="simulate N customers who write and answer")
    parser.add_argument("--read-rate", type=_rate, default=1.0, help="share of messages customers read")
    parser.add_argument("--throughput", type=int, default=80, help="messages per second before 130429")
    parser.add_argument("--status-delay", type=float, default=0.5, help="seconds between sent/delivered/read")
    parser.add_argument("--templates-file", type=Path, help="templates file (default: the shipped one)")
    parser.add_argument("--seed", type=int, help="random seed, for repeatable runs")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="wait about this long before answering")
    for flag, _name, text in RATE_FLAGS:
        parser.add_argument(flag, type=_rate, default=0.0, help=text)
    parser.add_argument("--webhook-shuffle", action="store_true", help="deliver webhooks out of order")
    parser.add_argument("--webhooks-paused", action="store_true", help="hold webhooks until un-paused")
    parser.set_defaults(run=run)


def config_from(args: argparse.Namespace) -> SandboxConfig:
    """The sandbox configuration the flags describe."""
    if args.customers < 0 or args.throughput < 1 or args.status_delay < 0 or args.latency_ms < 0:
        raise CommandError(
            "--customers, --status-delay and --latency-ms must not be negative; --throughput ≥ 1"
        )
    return SandboxConfig(
        port=args.port,
        webhook_url=args.webhook_url,
        app_secret=args.app_secret,
        token=args.token,
        phone_number_id=args.phone_number_id,
        customers=args.customers,
        read_rate=args.read_rate,
        throughput=args.throughput,
        status_delay=args.status_delay,
        templates_file=args.templates_file,
        seed=args.seed,
        latency_ms=args.latency_ms,
        webhook_shuffle=args.webhook_shuffle,
        webhooks_paused=args.webhooks_paused,
        **{name: getattr(args, name) for _flag, name, _text in RATE_FLAGS},
    )


def run(args: argparse.Namespace) -> int:
    """Serve the sandbox until SIGINT or SIGTERM."""
    config = config_from(args)
    try:
        sandbox = Sandbox(config)
    except (TemplateError, OSError) as error:
        raise CommandError(f"cannot read the templates file: {error}") from None
    # The sandbox's ledger times each call's arrival: a full collection walking the ~100,000 start-up
    # objects (50-80 ms) would hold its loop and stamp the calls that waited as arriving together.
    freeze_startup_objects()
    try:
        sandbox.start()
    except OSError as error:
        raise CommandError(f"cannot listen on port {config.port}: {error.strerror}") from None
    print(f"sandbox Graph API: {sandbox.graph_url}", flush=True)
    print(f"sandbox control API: {sandbox.url}/_sandbox/", flush=True)
    if config.customers:
        print(f"simulated customers: {', '.join(sandbox.customer_numbers)}", flush=True)
    print("Ctrl+C to stop.", flush=True)
    stop = threading.Event()
    wait_for_signal(stop)
    sandbox.stop()
    return 0
