"""/v1/contacts/{wa_id}: a contact with its opt-out of marketing; opting out, and back in (supervisors)."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify, request
from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.database.models import Contact
from backend.domain.opt_out import REASON_API
from backend.inbox.queries import contact_resource
from backend.outbox.opt_outs import record_opt_in, record_opt_out
from backend.web.common import caller, json_object, now, require_supervisor, require_token, templates
from backend.web.context import web_context
from backend.web.errors import ApiError
from backend.web.paths import path_value

MAX_NOTE_LENGTH = 1000
# A WhatsApp id is the number's digits (up to 15 in E.164).
MAX_WA_ID_LENGTH = 32

blueprint = Blueprint("contacts", __name__, url_prefix="/v1")
blueprint.before_request(require_token)


def _wa_id(raw: str) -> str:
    wa_id = path_value(raw, request.environ)
    if not wa_id.isdigit() or len(wa_id) > MAX_WA_ID_LENGTH:
        raise ApiError(400, "invalid_wa_id", "A contact is named by its WhatsApp id: the number's digits.")
    return wa_id


def _contact(session: Session, wa_id: str) -> Contact:
    contact = session.scalar(select(Contact).where(Contact.wa_id == wa_id))
    if contact is None:
        raise ApiError(404, "not_found", "There is no contact with this WhatsApp id.")
    return contact


@blueprint.get("/contacts/<wa_id>")
def get_contact(wa_id: str) -> Response:
    """One contact, with whether it opted out of marketing and when."""
    with web_context().database.reader() as session:
        return jsonify(contact_resource(_contact(session, _wa_id(wa_id))))


@blueprint.post("/contacts/<wa_id>/opt-out")
def post_opt_out(wa_id: str) -> Response:
    """Opt the contact out of marketing on their word to an agent; queued marketing is cancelled."""
    caller()
    key = _wa_id(wa_id)
    context = web_context()
    with context.database.transaction() as session:
        contact = _contact(session, key)
        record_opt_out(
            session, contact, reason=REASON_API, now=now(), settings=context.settings, templates=templates()
        )
        session.flush()
        answer = contact_resource(contact)
    return jsonify(answer)


@blueprint.post("/contacts/<wa_id>/opt-in")
def post_opt_in(wa_id: str) -> Response:
    """Opt the contact back in (supervisors), saying how consent was given."""
    user = require_supervisor()
    key = _wa_id(wa_id)
    body = json_object()
    note = body.get("note")
    if not isinstance(note, str) or not note.strip() or len(note) > MAX_NOTE_LENGTH:
        raise ApiError(
            400, "invalid_note", f"note must say how consent was given, in 1 to {MAX_NOTE_LENGTH} characters."
        )
    with web_context().database.transaction() as session:
        contact = _contact(session, key)
        record_opt_in(session, contact, user_id=user.id, note=note.strip(), now=now())
        session.flush()
        answer = contact_resource(contact)
    return jsonify(answer)


def register(app: Flask) -> None:
    """Add the contact routes."""
    app.register_blueprint(blueprint)
