"""GET /v1/reports/summary (supervisors): the report as JSON, or one section of it as CSV."""

from __future__ import annotations

from flask import Blueprint, Flask, Response, jsonify, request

from backend.reports.csv_export import SECTIONS, report_csv
from backend.reports.summary import DAY, ReportError, parse_moment, report_range, summary, zone_named
from backend.web.common import now, query_choice, require_supervisor, require_token
from backend.web.context import web_context
from backend.web.errors import ApiError

blueprint = Blueprint("reports", __name__, url_prefix="/v1")
blueprint.before_request(require_token)


@blueprint.get("/reports/summary")
def get_summary() -> Response:
    """Volume, response times, agents and purposes over a range, by day or hour in a time zone."""
    require_supervisor()
    output = query_choice("format", ("json", "csv"), "json")
    section = query_choice("section", SECTIONS, "buckets")
    try:
        zone = zone_named(request.args.get("tz"))
        raw_from, raw_to = request.args.get("from"), request.args.get("to")
        start = parse_moment("from", raw_from, zone) if raw_from else None
        end = parse_moment("to", raw_to, zone) if raw_to else None
        span = report_range(start, end, request.args.get("bucket") or DAY, zone, now())
    except ReportError as error:
        raise ApiError(400, error.code, error.message) from None
    with web_context().database.reader() as session:
        report = summary(session, span)
    if output == "json":
        return jsonify(report)
    assert section is not None
    first_day = span.start.astimezone(zone).date().isoformat()
    return Response(
        report_csv(report, section),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="report-{section}-{first_day}.csv"'},
    )


def register(app: Flask) -> None:
    """Add the report route."""
    app.register_blueprint(blueprint)
