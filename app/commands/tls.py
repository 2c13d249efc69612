"""`inbox tls`: the certificate of the LAN listener that other desks pin."""

from __future__ import annotations

import argparse

from app.commands.common import settings_from


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox tls` and its actions."""
    parser = subcommands.add_parser(
        "tls",
        help="the certificate of the office-network listener",
        description=(
            "The LAN listener (INBOX_LAN_HOST) serves the API over TLS with a self-signed certificate "
            "kept in the data folder's tls/ folder; each desk pins its fingerprint from its invite."
        ),
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    rotate = actions.add_parser(
        "rotate", help="make a new certificate: every desk must then accept a new invite"
    )
    rotate.set_defaults(run=run_rotate)
    show = actions.add_parser("show", help="print the fingerprint desks pin")
    show.set_defaults(run=run_show)


def run_rotate(args: argparse.Namespace) -> int:
    """Replace the certificate and key; the new fingerprint is the last line, alone."""
    from app.lan.certificate import make_certificate
    from app.lan.invite import lan_host_for_invites

    settings = settings_from(args)
    host = lan_host_for_invites(settings)
    certificate = make_certificate(settings.data_dir, host)
    print(
        f"Made a new certificate for {host}. Restart `inbox serve` to use it; every desk then refuses "
        "the server until it accepts a new invite (`inbox user invite NAME`)."
    )
    print("Its fingerprint:")
    print(certificate.fingerprint)
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Print the kept certificate's fingerprint."""
    from app.lan.certificate import load_certificate

    settings = settings_from(args)
    kept = load_certificate(settings.data_dir)
    if kept is None:
        print("No certificate yet: `inbox serve` with INBOX_LAN_HOST set makes one on its first start.")
        return 0
    print(kept[0].fingerprint)
    return 0
