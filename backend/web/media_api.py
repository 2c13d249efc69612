"""Media over the API: a customer's file by its media id, and uploads of files to send."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify, request, send_file
from sqlalchemy import select
from werkzeug.exceptions import RequestEntityTooLarge

from backend.database.models import MediaFile
from backend.domain import media as rules
from backend.media.duration import duration_seconds
from backend.media.records import add_upload, retry_media
from backend.media.store import MediaStore
from backend.web.common import caller, now, require_token
from backend.web.context import web_context
from backend.web.errors import ApiError
from backend.web.media_upload import UploadFormError, discard_rest, receive_upload

blueprint = Blueprint("media", __name__, url_prefix="/v1")
blueprint.before_request(require_token)

MAX_MEDIA_ID = 255
_STATUS_OF_REFUSAL = {"unsupported_media_type": 400, "media_too_large": 413, "empty_media": 400}


@blueprint.get("/media/<media_id>")
def get_media(media_id: str) -> Response:
    """The file's bytes with their type and name; 409 while it is still being fetched from Meta."""
    if len(media_id) > MAX_MEDIA_ID:
        raise ApiError(404, "not_found", "There is no media with this id.")
    with web_context().database.reader() as session:
        row = session.scalars(select(MediaFile).where(MediaFile.media_id == media_id)).one_or_none()
        if row is None:
            raise ApiError(404, "not_found", "There is no media with this id.")
        state, error, digest = row.state, row.error, row.content_hash
        mime_type, filename = row.mime_type, row.filename
    if state == rules.PENDING:
        raise ApiError(
            409, "media_not_ready", "The file is still being downloaded from WhatsApp.", state=state
        )
    if state == rules.FAILED or digest is None:
        raise ApiError(
            409,
            "media_not_ready",
            f"The file could not be downloaded: {error or 'unknown reason'}. Retry it to try again.",
            state=rules.FAILED,
        )
    path = MediaStore.for_settings(web_context().settings).path_of(digest)
    if not path.is_file():
        raise ApiError(404, "not_found", "The file is no longer kept.")
    kind = rules.kind_of(mime_type)
    name = rules.safe_filename(filename, rules.default_filename(kind, media_id, mime_type))
    response = send_file(
        path,
        mimetype=mime_type or "application/octet-stream",
        download_name=name,
        as_attachment=kind == "document",
        conditional=True,
        max_age=0,
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@blueprint.post("/media")
def upload_media() -> tuple[Response, int]:
    """Keep a file to send (multipart, field `file`): 201 with its id; Meta's types and size limits apply."""
    user = caller()
    multipart = request.mimetype == "multipart/form-data"
    boundary = request.mimetype_params.get("boundary", "") if multipart else ""
    if not boundary or not boundary.isascii():
        raise ApiError(400, "invalid_media", "Send the file as multipart/form-data in the field `file`.")
    store = MediaStore.for_settings(web_context().settings)
    try:
        # Streamed into the store as it arrives: a 100 MB document is never held in memory.
        received = receive_upload(request.stream, boundary.encode("ascii"), store)
    except RequestEntityTooLarge:
        raise ApiError(413, "media_too_large", "A file may be at most 100 MB (a document).") from None
    except UploadFormError as error:
        discard_rest(request.stream)
        raise ApiError(400, "invalid_media", str(error)) from None
    except rules.MediaRefusedError as refusal:
        discard_rest(request.stream)
        raise ApiError(_STATUS_OF_REFUSAL[refusal.code], refusal.code, str(refusal)) from None
    # Only headers are read, so a long recording costs no more than a short one.
    length = duration_seconds(store.path_of(received.digest), received.mime_type)
    with web_context().database.transaction() as session:
        row = add_upload(
            session,
            digest=received.digest,
            mime_type=received.mime_type,
            size=received.size,
            filename=received.filename,
            created_by=user.id,
            now=now(),
            duration_seconds=length,
        )
        answer = {
            "id": row.media_id,
            "mime_type": received.mime_type,
            "size": received.size,
            "sha256": received.digest,
            "duration_seconds": length,
        }
    return jsonify(answer), 201


@blueprint.post("/media/<media_id>/retry")
def retry(media_id: str) -> tuple[Response, int]:
    """Download a failed customer file once more (the client's Retry); 202 while it is pending again."""
    with web_context().database.transaction() as session:
        row = session.scalars(select(MediaFile).where(MediaFile.media_id == media_id)).one_or_none()
        if row is None or row.direction != rules.INBOUND:
            raise ApiError(404, "not_found", "There is no customer media with this id.")
        if row.state != rules.FAILED:
            raise ApiError(
                409, "media_not_failed", f"The file is {row.state}; only a failed download is retried."
            )
        retry_media(session, now(), [media_id])
    return jsonify({"id": media_id, "state": rules.PENDING}), 202


def register(app: Flask) -> None:
    """Add the media routes."""
    app.register_blueprint(blueprint)
