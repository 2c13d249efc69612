"""The sign-in dialog: an invite from the office's server, or backend URL, API token and user name."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.api.client import ApiClient, ApiError
from ui.api.invite import InviteError, parse_invite
from ui.api.pinning import MISMATCH_CODE, MISMATCH_MESSAGE
from ui.api.resources import Identity
from ui.discovery import OfficeServers
from ui.i18n import translate
from ui.runner import BackgroundRunner
from ui.sign_in import SignIn
from ui.views.plain_text import plain_label

ClientFactory = Callable[[SignIn], ApiClient]


def pinned_client(sign_in: SignIn) -> ApiClient:
    """A client of the signed-in backend, trusting only the pinned certificate when there is one."""
    return ApiClient(sign_in.backend_url, sign_in.token, fingerprint=sign_in.fingerprint)


def check_sign_in(client_for: ClientFactory, sign_in: SignIn) -> Identity:
    """Who the token belongs to, asked over the pinned connection (blocking: run it off the GUI thread)."""
    client = client_for(sign_in)
    try:
        return client.identity()
    finally:
        client.close()


def refusal_text(error: Exception, backend_url: str) -> str:
    """Why a sign-in with an invite did not work, in words for whoever sits at the desk."""
    if not isinstance(error, ApiError):
        return translate("SignInDialog", "The sign-in could not be checked: {reason}").format(reason=error)
    if error.code == MISMATCH_CODE:
        return MISMATCH_MESSAGE
    if error.status == 401:
        return translate(
            "SignInDialog",
            "The office's server does not accept this invite any more (a newer invite was made for "
            "this user, or the user was disabled). Ask whoever runs the inbox for a new invite.",
        )
    if error.unreachable:
        return translate(
            "SignInDialog",
            "Cannot reach the office's inbox at {url}. Check that the office PC is on, that "
            "`inbox serve` runs there, and that this PC is on the office network.",
        ).format(url=backend_url)
    return translate("SignInDialog", "The office's server refused the sign-in: {reason}").format(
        reason=error.message
    )


class SignInDialog(QDialog):
    """Asks for the invite `inbox user invite` printed, or the URL and token `inbox user add` printed."""

    def __init__(
        self,
        previous: SignIn | None,
        parent: QWidget | None = None,
        *,
        invite_text: str | None = None,
        discover: bool = True,
        client_for: ClientFactory = pinned_client,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("SignInDialog", "Sign in to the shared inbox"))
        self._client_for = client_for
        self._fingerprint = previous.fingerprint if previous else None
        self._runner = BackgroundRunner(self, threads=1)
        self.invite_field = QLineEdit()
        self.invite_field.setAccessibleName(translate("SignInDialog", "Invite"))
        self.invite_field.setPlaceholderText(
            translate("SignInDialog", "inbox://… as printed by `inbox user invite NAME`")
        )
        # It holds the token: not shown to whoever looks over the shoulder.
        self.invite_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.url_field = QLineEdit(previous.backend_url if previous else "http://127.0.0.1:8080")
        self.url_field.setAccessibleName(translate("SignInDialog", "Backend URL"))
        self.token_field = QLineEdit(previous.token if previous else "")
        self.token_field.setAccessibleName(translate("SignInDialog", "API token"))
        self.token_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.name_field = QLineEdit(previous.user_name or "" if previous else "")
        self.name_field.setAccessibleName(translate("SignInDialog", "Your user name"))
        self.name_field.setPlaceholderText(
            translate("SignInDialog", "as given to `inbox user add` (for Assign to me)")
        )
        form = QFormLayout()
        form.addRow(plain_label(translate("SignInDialog", "Invite")), self.invite_field)
        form.addRow(plain_label(translate("SignInDialog", "Backend URL")), self.url_field)
        form.addRow(plain_label(translate("SignInDialog", "API token")), self.token_field)
        form.addRow(plain_label(translate("SignInDialog", "Your user name")), self.name_field)
        hint = plain_label(
            translate(
                "SignInDialog",
                "On another desk, paste the invite from the office PC. On the office PC itself, the token "
                "printed by `inbox user add NAME` is enough. It is remembered on this computer.",
            )
        )
        hint.setWordWrap(True)
        self.servers_list = QListWidget()
        self.servers_list.setAccessibleName(translate("SignInDialog", "Inbox servers on this network"))
        self.servers_list.setMaximumHeight(80)
        servers_hint = plain_label(
            translate("SignInDialog", "Inbox servers on this network (only an invite makes one trusted):")
        )
        servers_hint.setWordWrap(True)
        self.problem_label = plain_label()
        self.problem_label.setAccessibleName(translate("SignInDialog", "Sign-in problem"))
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #b3261e;")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self._ok_pressed)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(servers_hint)
        layout.addWidget(self.servers_list)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.buttons)
        self.resize(self.sizeHint().expandedTo(QSize(600, 0)))
        self.invite_field.textChanged.connect(self._invite_changed)
        self.discovery = OfficeServers(self)
        self.discovery.server_found.connect(self._server_found)
        self.discovery.server_gone.connect(self._server_gone)
        if discover:
            self.discovery.start()
        self.finished.connect(self._closed)
        if invite_text:
            self.invite_field.setText(invite_text.strip())

    @Slot(str)
    def _invite_changed(self, text: str) -> None:
        if not text.strip():
            self.problem_label.clear()
            return
        try:
            invite = parse_invite(text)
        except InviteError as error:
            self.problem_label.setText(str(error))
            return
        self.problem_label.clear()
        self.url_field.setText(invite.backend_url)
        self.token_field.setText(invite.token)
        self._fingerprint = invite.fingerprint

    @Slot(str, str, str)
    def _server_found(self, name: str, address: str, fingerprint_start: str) -> None:
        self._server_gone(name)
        item = QListWidgetItem(
            translate("SignInDialog", "{name} — {address} (certificate {fingerprint}…)").format(
                name=name, address=address, fingerprint=fingerprint_start
            )
        )
        item.setData(Qt.ItemDataRole.UserRole, name)
        self.servers_list.addItem(item)

    @Slot(str)
    def _server_gone(self, name: str) -> None:
        for row in reversed(range(self.servers_list.count())):
            if self.servers_list.item(row).data(Qt.ItemDataRole.UserRole) == name:
                self.servers_list.takeItem(row)

    def sign_in(self) -> SignIn:
        """What the user entered (the invite's fingerprint goes with an https URL only)."""
        url = self.url_field.text().strip()
        return SignIn(
            backend_url=url,
            token=self.token_field.text().strip(),
            user_name=self.name_field.text().strip() or None,
            fingerprint=self._fingerprint if url.startswith("https://") else None,
        )

    @Slot()
    def _ok_pressed(self) -> None:
        sign_in = self.sign_in()
        if sign_in.fingerprint is None:
            if sign_in.backend_url.startswith("https://"):
                self.problem_label.setText(
                    translate(
                        "SignInDialog",
                        "A server on the office network is trusted through its invite: paste the invite.",
                    )
                )
                return
            self.accept()
            return
        self.problem_label.setText(translate("SignInDialog", "Checking the office's server…"))
        self.buttons.setEnabled(False)
        client_for = self._client_for
        self._runner.submit(lambda: check_sign_in(client_for, sign_in), self._checked, self._refused)

    @Slot(object)
    def _checked(self, identity: Identity) -> None:
        self.buttons.setEnabled(True)
        self.problem_label.clear()
        if not self.name_field.text().strip():
            self.name_field.setText(identity.name)
        self.accept()

    @Slot(object)
    def _refused(self, error: Exception) -> None:
        self.buttons.setEnabled(True)
        self.problem_label.setText(refusal_text(error, self.url_field.text().strip()))

    @Slot(int)
    def _closed(self, _result: int) -> None:
        self.discovery.stop()
        self._runner.shutdown()
