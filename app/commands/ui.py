"""`inbox ui`: the desktop client, signed in to a backend by URL and token."""

from __future__ import annotations

import argparse
import sys

from app.commands.common import settings_from


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inbox ui`."""
    parser = subcommands.add_parser("ui", help="open the desktop inbox")
    parser.add_argument("--url", help="backend URL (remembered), e.g. http://127.0.0.1:8080")
    parser.add_argument("--token", help="API token from `inbox user add` (remembered)")
    parser.add_argument("--sign-in", action="store_true", help="ask for URL and token again")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Open the desktop client; ask for URL and token the first time."""
    from ui.app import display_available

    if not display_available():
        print(
            "inbox ui: no display found; the desktop client needs one "
            "(`inbox demo --offscreen --screenshot FILE` renders without)",
            file=sys.stderr,
        )
        return 2
    from ui.app import application, open_main_window
    from ui.sign_in import SignIn, load_sign_in, save_sign_in
    from ui.views.sign_in import SignInDialog

    settings = settings_from(args)
    app = application()
    saved = load_sign_in(settings.data_dir)
    if args.url or args.token:
        base = saved or SignIn(backend_url="http://127.0.0.1:8080", token="")
        saved = SignIn(args.url or base.backend_url, args.token or base.token, base.user_name)
        save_sign_in(settings.data_dir, saved)
    if saved is None or not saved.token or args.sign_in:
        dialog = SignInDialog(saved)
        if dialog.exec() != SignInDialog.DialogCode.Accepted:
            return 1
        saved = dialog.sign_in()
        save_sign_in(settings.data_dir, saved)
    window, _runner, api = open_main_window(saved.backend_url, saved.token, user_name=saved.user_name)
    status = app.exec()
    window.stop()
    api.close()
    return status
