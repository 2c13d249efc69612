"""The sign-in dialog: backend URL, API token and (optionally) the user name the token belongs to."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLineEdit, QVBoxLayout, QWidget

from ui.sign_in import SignIn
from ui.views.plain_text import plain_label


class SignInDialog(QDialog):
    """Asks where the backend is and for the token `inbox user add` printed."""

    def __init__(self, previous: SignIn | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Sign in to the shared inbox")
        self.url_field = QLineEdit(previous.backend_url if previous else "http://127.0.0.1:8080")
        self.url_field.setAccessibleName("Backend URL")
        self.token_field = QLineEdit(previous.token if previous else "")
        self.token_field.setAccessibleName("API token")
        self.token_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.name_field = QLineEdit(previous.user_name or "" if previous else "")
        self.name_field.setAccessibleName("Your user name")
        self.name_field.setPlaceholderText("as given to `inbox user add` (for Assign to me)")
        form = QFormLayout()
        form.addRow(plain_label("Backend URL"), self.url_field)
        form.addRow(plain_label("API token"), self.token_field)
        form.addRow(plain_label("Your user name"), self.name_field)
        hint = plain_label(
            "The token is printed once by `inbox user add NAME`. It is remembered on this computer."
        )
        hint.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(buttons)
        self.resize(520, 200)

    def sign_in(self) -> SignIn:
        """What the user typed."""
        return SignIn(
            backend_url=self.url_field.text().strip(),
            token=self.token_field.text().strip(),
            user_name=self.name_field.text().strip() or None,
        )
