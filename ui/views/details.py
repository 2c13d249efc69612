"""The details pane: contact, assignee, window state, and the selected message's purpose and trigger."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ui.api.resources import Conversation, InboundMessage, OutboundMessage, ThreadItem
from ui.presentation import plain_error, status_mark, tooltip_text, window_text
from ui.views.plain_text import plain_label


def _label(name: str) -> QLabel:
    label = plain_label("—")
    label.setWordWrap(True)
    label.setAccessibleName(name)
    label.setTextInteractionFlags(
        label.textInteractionFlags() | label.textInteractionFlags().TextSelectableByMouse
    )
    return label


class DetailsPane(QWidget):
    """Facts about the selected conversation and message, and the assignment buttons."""

    # The agent asked to take the conversation, or to give it back when it is theirs.
    assign_to_me_requested = Signal()
    # The agent asked to give the conversation to someone else.
    assign_to_other_requested = Signal()
    # The agent asked to link the selected unattributed reply: its wamid.
    link_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("details")
        self._conversation: Conversation | None = None
        self._message: ThreadItem | None = None
        self._user_name: str | None = None
        # Agents take unassigned conversations and give back their own; the rest needs a supervisor.
        self._is_supervisor = False

        contact_box = QGroupBox("Contact")
        contact_form = QFormLayout(contact_box)
        self.name_label = _label("Contact name")
        self.number_label = _label("Contact number")
        self.window_label = _label("Window state")
        self.assignee_label = _label("Assignee")
        contact_form.addRow(plain_label("Name"), self.name_label)
        contact_form.addRow(plain_label("Number"), self.number_label)
        contact_form.addRow(plain_label("Window"), self.window_label)
        contact_form.addRow(plain_label("Assignee"), self.assignee_label)
        self.assign_me_button = QPushButton("Assign to me")
        self.assign_me_button.setAccessibleName("Assign to me")
        self.assign_me_button.clicked.connect(self.assign_to_me_requested)
        self.assign_other_button = QPushButton("Assign to…")
        self.assign_other_button.setAccessibleName("Assign to someone else")
        self.assign_other_button.clicked.connect(self.assign_to_other_requested)
        # Shown once the backend says the user is a supervisor.
        self.assign_other_button.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.assign_me_button)
        buttons.addWidget(self.assign_other_button)
        contact_form.addRow(buttons)

        message_box = QGroupBox("Selected message")
        message_form = QFormLayout(message_box)
        self.purpose_label = _label("Purpose")
        self.trigger_label = _label("Trigger")
        self.state_label = _label("State")
        self.key_label = _label("Message key")
        self.error_label = _label("Error")
        message_form.addRow(plain_label("Purpose"), self.purpose_label)
        message_form.addRow(plain_label("Trigger"), self.trigger_label)
        message_form.addRow(plain_label("State"), self.state_label)
        message_form.addRow(plain_label("Key"), self.key_label)
        message_form.addRow(plain_label("Problem"), self.error_label)
        self.link_button = QPushButton("Link to message…")
        self.link_button.setAccessibleName("Link reply to a message")
        self.link_button.clicked.connect(self._link_clicked)
        message_form.addRow(self.link_button)

        layout = QVBoxLayout(self)
        layout.addWidget(contact_box)
        layout.addWidget(message_box)
        layout.addStretch(1)
        self.show_conversation(None)
        self.show_message(None)

    def set_user(self, name: str | None, *, is_supervisor: bool) -> None:
        """Who is signed in, which decides the assignment buttons a user may use."""
        self._user_name = name
        self._is_supervisor = is_supervisor
        self.assign_other_button.setVisible(is_supervisor)
        self.show_conversation(self._conversation)

    @property
    def holds_selected(self) -> bool:
        """Whether the shown conversation is assigned to the signed-in user."""
        conversation = self._conversation
        return (
            conversation is not None
            and self._user_name is not None
            and (conversation.assignee == self._user_name)
        )

    def _show_assignment_buttons(self, conversation: Conversation | None) -> None:
        mine = self.holds_selected
        self.assign_me_button.setText("Give back" if mine else "Assign to me")
        self.assign_me_button.setAccessibleName("Give the conversation back" if mine else "Assign to me")
        held_by_other = conversation is not None and conversation.assignee not in (None, self._user_name)
        may_take = conversation is not None and (self._is_supervisor or not held_by_other)
        self.assign_me_button.setEnabled(may_take)
        self.assign_me_button.setToolTip(
            tooltip_text(f"Assigned to {conversation.assignee}: a supervisor can reassign it.")
            if conversation is not None and held_by_other and not self._is_supervisor
            else ""
        )
        self.assign_other_button.setEnabled(conversation is not None and self._is_supervisor)

    def show_conversation(self, conversation: Conversation | None) -> None:
        """Show a conversation's contact, window and assignee."""
        self._conversation = conversation
        self._show_assignment_buttons(conversation)
        if conversation is None:
            for label in (self.name_label, self.number_label, self.window_label, self.assignee_label):
                label.setText("—")
            return
        self.name_label.setText(conversation.contact.name or "(no profile name)")
        self.number_label.setText(conversation.contact.number or f"WhatsApp id {conversation.contact.wa_id}")
        window = window_text(conversation.window_closes_at, datetime.now(UTC))
        self.window_label.setText(
            f"open, {window.text}" if window.is_open else "closed: only templates can be sent"
        )
        self.window_label.setProperty("urgent", window.urgent)
        self.assignee_label.setText(conversation.assignee or "nobody")

    def show_message(self, message: ThreadItem | None) -> None:
        """Show the selected message's purpose, trigger, state and problem."""
        self._message = message
        self.link_button.setVisible(isinstance(message, InboundMessage) and not message.attributed)
        if isinstance(message, OutboundMessage):
            self.purpose_label.setText(message.purpose or "—")
            self.trigger_label.setText(message.trigger_ref or "—")
            self.state_label.setText(f"{status_mark(message.state).mark} {status_mark(message.state).label}")
            self.key_label.setText(message.key)
            self.error_label.setText(plain_error(message.error) or "—")
        elif isinstance(message, InboundMessage):
            self.purpose_label.setText("customer message")
            self.trigger_label.setText(f"answers {message.context_id}" if message.context_id else "—")
            self.state_label.setText("linked" if message.attributed else "not linked to a message")
            self.key_label.setText(message.wamid)
            self.error_label.setText("—")
        else:
            for label in (
                self.purpose_label,
                self.trigger_label,
                self.state_label,
                self.key_label,
                self.error_label,
            ):
                label.setText("—")

    def _link_clicked(self) -> None:
        if isinstance(self._message, InboundMessage):
            self.link_requested.emit(self._message.wamid)
