"""The details pane: contact, assignee, status, window, labels, and the selected message's purpose."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QPoint, QRect, QSize, QStringListModel, Qt, Signal
from PySide6.QtWidgets import (
    QCompleter,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.api.resources import Conversation, InboundMessage, Note, OutboundMessage, ThreadItem
from ui.i18n import translate
from ui.presentation import (
    opted_out_text,
    placement_text,
    plain_error,
    status_mark,
    status_text,
    tooltip_text,
    window_text,
)
from ui.theme import themed_stylesheet
from ui.views.plain_text import plain_label

# The API's longest label, so the box refuses what the backend would.
MAX_LABEL_LENGTH = 40
CHIP_STYLE = (
    "QToolButton#labelChip { background: #e0f2fe; color: #075985; border: 1px solid #7dd3fc;"
    " border-radius: 10px; padding: 2px 8px; }"
    " QToolButton#labelChip:hover { background: #fee2e2; color: #991b1b; border-color: #fca5a5; }"
)


def _label(name: str) -> QLabel:
    label = plain_label("—")
    label.setWordWrap(True)
    label.setAccessibleName(name)
    label.setTextInteractionFlags(
        label.textInteractionFlags() | label.textInteractionFlags().TextSelectableByMouse
    )
    return label


class FlowLayout(QLayout):
    """Lays widgets out left to right and wraps them onto new lines, as chips are."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 4) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing

    def addItem(self, item: QLayoutItem) -> None:
        """Take a widget's layout item (addWidget calls this)."""
        self._items.append(item)

    def count(self) -> int:
        """How many items it holds."""
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        """The item at a position, or None past the end."""
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        """Remove and return the item at a position."""
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        """It never asks for more room than its lines need."""
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        """Its height depends on how many lines the width allows."""
        return True

    def heightForWidth(self, width: int) -> int:
        """The height its items take at this width."""
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        """Place the items inside the rectangle."""
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """As small as its widest item."""
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        """The widest item, plus the margins."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line_height = area.x(), area.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if x + hint.width() > area.right() + 1 and line_height > 0:
                x, y, line_height = area.x(), y + line_height + self._gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._gap
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y() + margins.bottom()


def _chip_text(label: str) -> str:
    # A button reads & as a shortcut marker: double it so the label shows as written.
    return f"{label.replace('&', '&&')}  ✕"


class DetailsPane(QWidget):
    """Facts about the selected conversation and message, and the assignment buttons."""

    # The agent asked to take the conversation, or to give it back when it is theirs.
    assign_to_me_requested = Signal()
    # The agent asked to give the conversation to someone else.
    assign_to_other_requested = Signal()
    # The agent asked to link the selected unattributed reply: its wamid.
    link_requested = Signal(str)
    # The agent asked to add or remove labels on the conversation: (labels to add, labels to remove).
    labels_change_requested = Signal(list, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("details")
        self._conversation: Conversation | None = None
        self._message: ThreadItem | None = None
        self._user_name: str | None = None
        # Agents take unassigned conversations and give back their own; the rest needs a supervisor.
        self._is_supervisor = False

        contact_box = QGroupBox(translate("DetailsPane", "Contact"))
        contact_form = QFormLayout(contact_box)
        self.name_label = _label(translate("DetailsPane", "Contact name"))
        self.number_label = _label(translate("DetailsPane", "Contact number"))
        self.window_label = _label(translate("DetailsPane", "Window state"))
        self.marketing_label = _label(translate("DetailsPane", "Marketing"))
        self.assignee_label = _label(translate("DetailsPane", "Assignee"))
        self.status_label = _label(translate("DetailsPane", "Conversation status"))
        contact_form.addRow(plain_label(translate("DetailsPane", "Name")), self.name_label)
        contact_form.addRow(plain_label(translate("DetailsPane", "Number")), self.number_label)
        contact_form.addRow(plain_label(translate("DetailsPane", "Status")), self.status_label)
        contact_form.addRow(plain_label(translate("DetailsPane", "Window")), self.window_label)
        contact_form.addRow(plain_label(translate("DetailsPane", "Marketing")), self.marketing_label)
        contact_form.addRow(plain_label(translate("DetailsPane", "Assignee")), self.assignee_label)
        self.assign_me_button = QPushButton(translate("DetailsPane", "Assign to me"))
        self.assign_me_button.setAccessibleName(translate("DetailsPane", "Assign to me"))
        self.assign_me_button.clicked.connect(self.assign_to_me_requested)
        self.assign_other_button = QPushButton(translate("DetailsPane", "Assign to…"))
        self.assign_other_button.setAccessibleName(translate("DetailsPane", "Assign to someone else"))
        self.assign_other_button.clicked.connect(self.assign_to_other_requested)
        # Shown once the backend says the user is a supervisor.
        self.assign_other_button.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.assign_me_button)
        buttons.addWidget(self.assign_other_button)
        contact_form.addRow(buttons)

        labels_box = QGroupBox(translate("DetailsPane", "Labels"))
        labels_layout = QVBoxLayout(labels_box)
        self.chip_area = QWidget()
        self.chip_area.setAccessibleName(translate("DetailsPane", "Labels of the conversation"))
        self.chip_area.setStyleSheet(themed_stylesheet(CHIP_STYLE))
        self.chips = FlowLayout(self.chip_area)
        self.chips.setContentsMargins(0, 0, 0, 0)
        self.chip_buttons: dict[str, QToolButton] = {}
        self.no_labels = plain_label(translate("DetailsPane", "No labels"))
        self.no_labels.setObjectName("muted")
        self.label_input = QLineEdit()
        self.label_input.setPlaceholderText(translate("DetailsPane", "Add a label…"))
        self.label_input.setAccessibleName(translate("DetailsPane", "Add a label"))
        self.label_input.setMaxLength(MAX_LABEL_LENGTH)
        self.label_input.returnPressed.connect(self._add_label)
        self._known_labels = QStringListModel(self)
        completer = QCompleter(self._known_labels, self.label_input)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.label_input.setCompleter(completer)
        self._shown_labels: tuple[str, ...] = ()
        labels_layout.addWidget(self.chip_area)
        labels_layout.addWidget(self.no_labels)
        labels_layout.addWidget(self.label_input)

        message_box = QGroupBox(translate("DetailsPane", "Selected message"))
        message_form = QFormLayout(message_box)
        self.purpose_label = _label(translate("DetailsPane", "Purpose"))
        self.trigger_label = _label(translate("DetailsPane", "Trigger"))
        self.state_label = _label(translate("DetailsPane", "State"))
        self.key_label = _label(translate("DetailsPane", "Message key"))
        self.error_label = _label(translate("DetailsPane", "Error"))
        message_form.addRow(plain_label(translate("DetailsPane", "Purpose")), self.purpose_label)
        message_form.addRow(plain_label(translate("DetailsPane", "Trigger")), self.trigger_label)
        message_form.addRow(plain_label(translate("DetailsPane", "State")), self.state_label)
        message_form.addRow(plain_label(translate("DetailsPane", "Key")), self.key_label)
        message_form.addRow(plain_label(translate("DetailsPane", "Problem")), self.error_label)
        self.link_button = QPushButton(translate("DetailsPane", "Link to message…"))
        self.link_button.setAccessibleName(translate("DetailsPane", "Link reply to a message"))
        self.link_button.clicked.connect(self._link_clicked)
        message_form.addRow(self.link_button)

        layout = QVBoxLayout(self)
        layout.addWidget(contact_box)
        layout.addWidget(labels_box)
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
        self.assign_me_button.setText(
            translate("DetailsPane", "Give back") if mine else translate("DetailsPane", "Assign to me")
        )
        self.assign_me_button.setAccessibleName(
            translate("DetailsPane", "Give the conversation back")
            if mine
            else translate("DetailsPane", "Assign to me")
        )
        held_by_other = conversation is not None and conversation.assignee not in (None, self._user_name)
        may_take = conversation is not None and (self._is_supervisor or not held_by_other)
        self.assign_me_button.setEnabled(may_take)
        self.assign_me_button.setToolTip(
            tooltip_text(
                translate("DetailsPane", "Assigned to {name}: a supervisor can reassign it.").format(
                    name=conversation.assignee
                )
            )
            if conversation is not None and held_by_other and not self._is_supervisor
            else ""
        )
        self.assign_other_button.setEnabled(conversation is not None and self._is_supervisor)

    def show_conversation(self, conversation: Conversation | None) -> None:
        """Show a conversation's contact, window and assignee."""
        self._conversation = conversation
        self._show_assignment_buttons(conversation)
        self._show_labels(conversation.labels if conversation is not None else ())
        self.label_input.setEnabled(conversation is not None)
        if conversation is None:
            for label in (
                self.name_label,
                self.number_label,
                self.status_label,
                self.window_label,
                self.marketing_label,
                self.assignee_label,
            ):
                label.setText("—")
            return
        now = datetime.now(UTC)
        self.name_label.setText(conversation.contact.name or translate("DetailsPane", "(no profile name)"))
        self.number_label.setText(
            conversation.contact.number
            or translate("DetailsPane", "WhatsApp id {id}").format(id=conversation.contact.wa_id)
        )
        self.status_label.setText(status_text(conversation.status, conversation.snoozed_until, now))
        window = window_text(conversation.window_closes_at, now)
        self.window_label.setText(
            translate("DetailsPane", "open, {countdown}").format(countdown=window.text)
            if window.is_open
            else translate("DetailsPane", "closed: only templates can be sent")
        )
        self.window_label.setProperty("urgent", window.urgent)
        opted_out = opted_out_text(conversation.contact, now)
        self.marketing_label.setText(
            translate("DetailsPane", "{mark}: service replies still go").format(mark=opted_out)
            if opted_out
            else translate("DetailsPane", "allowed (no opt-out)")
        )
        self.marketing_label.setProperty("urgent", bool(opted_out))
        self.assignee_label.setText(conversation.assignee or translate("DetailsPane", "nobody"))

    def show_message(self, message: ThreadItem | None) -> None:
        """Show the selected message's purpose, trigger, state and problem."""
        self._message = message
        self.link_button.setVisible(isinstance(message, InboundMessage) and message.needs_placing)
        if isinstance(message, OutboundMessage):
            self.purpose_label.setText(message.purpose or "—")
            self.trigger_label.setText(message.trigger_ref or "—")
            self.state_label.setText(f"{status_mark(message.state).mark} {status_mark(message.state).label}")
            self.key_label.setText(message.key)
            self.error_label.setText(plain_error(message.error) or "—")
        elif isinstance(message, InboundMessage):
            self.purpose_label.setText(translate("DetailsPane", "customer message"))
            self.trigger_label.setText(
                translate("DetailsPane", "answers {message}").format(message=message.context_id)
                if message.context_id
                else "—"
            )
            self.state_label.setText(placement_text(message.placement))
            self.key_label.setText(message.wamid)
            self.error_label.setText("—")
        elif isinstance(message, Note):
            self.purpose_label.setText(translate("DetailsPane", "internal note"))
            self.trigger_label.setText(translate("DetailsPane", "by {author}").format(author=message.author))
            self.state_label.setText(
                translate("DetailsPane", "seen by the team only, never sent to the customer")
            )
            self.key_label.setText(translate("DetailsPane", "note {number}").format(number=message.id))
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

    # -- labels ------------------------------------------------------------------------------
    def set_known_labels(self, names: list[str]) -> None:
        """The labels in use, offered as the agent types a new one."""
        self._known_labels.setStringList(names)

    def _show_labels(self, labels: tuple[str, ...]) -> None:
        self.no_labels.setVisible(not labels)
        if labels == self._shown_labels:
            return
        self._shown_labels = labels
        for button in self.chip_buttons.values():
            self.chips.removeWidget(button)
            button.deleteLater()
        self.chip_buttons = {}
        for label in labels:
            chip = QToolButton(self.chip_area)
            chip.setObjectName("labelChip")
            chip.setText(_chip_text(label))
            chip.setAccessibleName(translate("DetailsPane", "Remove label {label}").format(label=label))
            chip.setToolTip(
                tooltip_text(translate("DetailsPane", "Remove the label “{label}”").format(label=label))
            )
            chip.clicked.connect(self._chip_clicked)
            chip.setProperty("label", label)
            self.chips.addWidget(chip)
            self.chip_buttons[label] = chip
        self.chips.invalidate()
        self.chip_area.updateGeometry()

    def _chip_clicked(self) -> None:
        chip = self.sender()
        label = chip.property("label") if isinstance(chip, QToolButton) else None
        if isinstance(label, str) and self._conversation is not None:
            self.labels_change_requested.emit([], [label])

    def _add_label(self) -> None:
        label = self.label_input.text().strip()
        if not label or self._conversation is None:
            return
        self.label_input.clear()
        if label not in self._conversation.labels:
            self.labels_change_requested.emit([label], [])

    def _link_clicked(self) -> None:
        if isinstance(self._message, InboundMessage):
            self.link_requested.emit(self._message.wamid)
