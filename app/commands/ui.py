"""`inbox ui`: the desktop client, signed in to a backend by URL and token."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from app.cli_errors import CommandError
from app.commands.common import settings_from
from ui.sign_in import SignIn, TokenKeyring, load_sign_in, save_sign_in, system_keyring

TOKEN_VARIABLE = "INBOX_TOKEN"
DEFAULT_BACKEND_URL = "http://127.0.0.1:8080"


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox ui`."""
    parser = subcommands.add_parser(
        "ui",
        help="open the desktop inbox",
        description=(
            f"Open the desktop inbox. The API token comes from the {TOKEN_VARIABLE} environment "
            "variable or from the sign-in dialog, never from the command line, where other users "
            "of the machine could read it."
        ),
    )
    parser.add_argument("--url", help=f"backend URL (remembered), e.g. {DEFAULT_BACKEND_URL}")
    # Kept only to refuse it with a clear message: a token in the arguments is visible in `ps`.
    parser.add_argument("--token", help=argparse.SUPPRESS)
    parser.add_argument("--sign-in", action="store_true", help="ask for URL and token again")
    parser.add_argument(
        "--invite-file",
        metavar="FILE",
        help="a file holding the invite from `inbox user invite NAME` (shown in the sign-in to accept)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Open the desktop client; ask for URL and token the first time."""
    if args.token is not None:
        raise CommandError(
            "--token is no longer accepted: other users of this machine can read a command line. "
            f"Set the {TOKEN_VARIABLE} environment variable, or leave it out and enter the token "
            "in the sign-in dialog."
        )
    from ui.app import display_available

    if not display_available():
        print(
            "inbox ui: no display found; the desktop client needs one "
            "(`inbox demo --offscreen --screenshot FILE` renders without)",
            file=sys.stderr,
        )
        return 2
    from ui.app import application, apply_preferences, open_shell
    from ui.views.sign_in import SignInDialog

    settings = settings_from(args)
    invite_text = read_invite_file(Path(args.invite_file)) if args.invite_file else None
    token_keyring = system_keyring()
    app = application()
    apply_preferences(settings.data_dir)
    saved = remembered_sign_in(settings.data_dir, args.url, os.environ, token_keyring)
    if saved is None or not saved.token or args.sign_in or invite_text:
        dialog = SignInDialog(saved, invite_text=invite_text)
        if dialog.exec() != SignInDialog.DialogCode.Accepted:
            return 1
        saved = dialog.sign_in()
        save_sign_in(settings.data_dir, saved, token_keyring)
    shell = open_shell(
        saved.backend_url,
        saved.token,
        user_name=saved.user_name,
        fingerprint=saved.fingerprint,
        data_dir=settings.data_dir,
    )
    status = app.exec()
    shell.window.stop()
    shell.api.close()
    return status


def read_invite_file(path: Path) -> str:
    """The invite in the file, or a CommandError saying why it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"cannot read the invite file {path}: {error}") from None
    # The whole output of `inbox user invite` may have been saved: the invite is its last line.
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise CommandError(f"the invite file {path} is empty")
    return lines[-1]


def remembered_sign_in(
    data_dir: Path,
    url: str | None,
    environ: Mapping[str, str],
    token_keyring: TokenKeyring | None = None,
) -> SignIn | None:
    """The sign-in to use: the saved one, updated and saved again with --url and INBOX_TOKEN if given."""
    saved = load_sign_in(data_dir, token_keyring)
    token = environ.get(TOKEN_VARIABLE, "").strip()
    if not url and not token:
        return saved
    base = saved or SignIn(backend_url=DEFAULT_BACKEND_URL, token="")
    # A new token may belong to someone else: forget the name shown for the old one.
    user_name = base.user_name if not token or token == base.token else None
    # A pin belongs to the server it came with.
    fingerprint = base.fingerprint if not url or url == base.backend_url else None
    updated = SignIn(url or base.backend_url, token or base.token, user_name, fingerprint)
    save_sign_in(data_dir, updated, token_keyring)
    return updated
