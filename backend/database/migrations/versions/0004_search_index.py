"""full-text search index over inbound and outbound message text

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 08:00:00.000000

Two index tables, fts_inbound and fts_outbound, one row per message under the message's id, kept in
step by triggers on inbound_messages and outbox_messages, so no writer of messages has to know.
SQLite: FTS5 tables (rowid = the message's id), accents folded by the unicode61 tokenizer.
PostgreSQL: tables of tsvector documents with a GIN index; no extension is needed: accents are folded
by a plain SQL function (NFKD, then combining marks removed), also used on the words searched for.
A later batch migration that rebuilds a message table drops its triggers with it and must create them
again. None of this is in the models' metadata: objects named fts_* belong to the index.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SQLITE_TOKENIZER = "unicode61 remove_diacritics 2"

# What a message says, as text for the index (row: `new` in a trigger, the table in the backfill).
_SQLITE_INBOUND_BODY = (
    "coalesce({row}.text, '') || ' ' || coalesce({row}.caption, '') || ' ' "
    "|| coalesce({row}.choice_title, '')"
)
_SQLITE_OUTBOUND_BODY = (
    "coalesce(json_extract({row}.payload, '$.text'), '') || ' ' "
    "|| coalesce(json_extract({row}.payload, '$.buttons.body'), '') || ' ' "
    "|| coalesce((SELECT group_concat(json_extract(button.value, '$.title'), ' ') "
    "FROM json_each({row}.payload, '$.buttons.buttons') AS button), '') || ' ' "
    "|| coalesce((SELECT group_concat(parameter.value, ' ') "
    "FROM json_each({row}.payload, '$.template.parameters') AS parameter), '')"
)
# One token naming a template (name and language), so a search can find the words of its body,
# which live in the templates file and not in the row.
_SQLITE_OUTBOUND_TEMPLATE = (
    "CASE WHEN json_extract({row}.payload, '$.template.name') IS NULL THEN '' "
    "ELSE 't' || hex(json_extract({row}.payload, '$.template.name') || ' ' "
    "|| coalesce(json_extract({row}.payload, '$.template.language'), '')) END"
)


def _upgrade_sqlite() -> None:
    op.execute(f"CREATE VIRTUAL TABLE fts_inbound USING fts5(body, tokenize = '{_SQLITE_TOKENIZER}')")
    op.execute(
        f"CREATE VIRTUAL TABLE fts_outbound USING fts5(body, template, tokenize = '{_SQLITE_TOKENIZER}')"
    )
    inbound_new = _SQLITE_INBOUND_BODY.format(row="new")
    outbound_new = _SQLITE_OUTBOUND_BODY.format(row="new")
    template_new = _SQLITE_OUTBOUND_TEMPLATE.format(row="new")
    index_inbound = f"INSERT INTO fts_inbound(rowid, body) VALUES (new.id, {inbound_new});"
    index_outbound = (
        f"INSERT INTO fts_outbound(rowid, body, template) VALUES (new.id, {outbound_new}, {template_new});"
    )
    op.execute(
        f"CREATE TRIGGER fts_inbound_insert AFTER INSERT ON inbound_messages BEGIN {index_inbound} END"
    )
    op.execute(
        "CREATE TRIGGER fts_inbound_delete AFTER DELETE ON inbound_messages "
        "BEGIN DELETE FROM fts_inbound WHERE rowid = old.id; END"
    )
    op.execute(
        "CREATE TRIGGER fts_inbound_update AFTER UPDATE OF text, caption, choice_title ON inbound_messages "
        f"BEGIN DELETE FROM fts_inbound WHERE rowid = old.id; {index_inbound} END"
    )
    op.execute(
        f"CREATE TRIGGER fts_outbound_insert AFTER INSERT ON outbox_messages BEGIN {index_outbound} END"
    )
    op.execute(
        "CREATE TRIGGER fts_outbound_delete AFTER DELETE ON outbox_messages "
        "BEGIN DELETE FROM fts_outbound WHERE rowid = old.id; END"
    )
    # Only a changed payload re-indexes: state changes update outbox rows all day long.
    op.execute(
        "CREATE TRIGGER fts_outbound_update AFTER UPDATE OF payload ON outbox_messages "
        f"BEGIN DELETE FROM fts_outbound WHERE rowid = old.id; {index_outbound} END"
    )
    op.execute(
        "INSERT INTO fts_inbound(rowid, body) "
        f"SELECT id, {_SQLITE_INBOUND_BODY.format(row='inbound_messages')} FROM inbound_messages"
    )
    op.execute(
        "INSERT INTO fts_outbound(rowid, body, template) "
        f"SELECT id, {_SQLITE_OUTBOUND_BODY.format(row='outbox_messages')}, "
        f"{_SQLITE_OUTBOUND_TEMPLATE.format(row='outbox_messages')} FROM outbox_messages"
    )


def _downgrade_sqlite() -> None:
    for trigger in ("insert", "delete", "update"):
        op.execute(f"DROP TRIGGER IF EXISTS fts_inbound_{trigger}")
        op.execute(f"DROP TRIGGER IF EXISTS fts_outbound_{trigger}")
    op.execute("DROP TABLE IF EXISTS fts_inbound")
    op.execute("DROP TABLE IF EXISTS fts_outbound")


# Combining marks left by NFKD: stripping them folds accents (é -> e); letters without a decomposition
# that readers still see as accented are replaced one by one; ASCII punctuation separates words.
_PG_COMBINING_MARKS = r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
_PG_PUNCTUATION = "[!-/:-@[-`{-~]+"
_PG_LETTERS = {"ø": "o", "đ": "d", "ł": "l", "ħ": "h", "ı": "i", "ß": "ss", "æ": "ae", "œ": "oe", "þ": "th"}


def _pg_fold_expression(encoding: str) -> str:
    folded = "lower(value)"
    if encoding == "UTF8":  # normalize() needs a UTF8 database; elsewhere only case is folded
        folded = f"lower(regexp_replace(normalize(value, NFKD), '{_PG_COMBINING_MARKS}', '', 'g'))"
    for letter, plain in _PG_LETTERS.items():
        folded = f"replace({folded}, '{letter}', '{plain}')"
    return f"regexp_replace({folded}, '{_PG_PUNCTUATION}', ' ', 'g')"


def _upgrade_postgresql() -> None:
    bind = op.get_bind()
    # Names are qualified inside functions, so triggers work under any search_path.
    schema = bind.exec_driver_sql("SELECT current_schema()").scalar_one()
    encoding = bind.exec_driver_sql("SHOW server_encoding").scalar_one()
    prefix = f'"{schema}".'
    op.execute(
        f"CREATE FUNCTION {prefix}fts_fold(value text) RETURNS text "
        "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ "
        f"SELECT {_pg_fold_expression(encoding)} $$"
    )
    op.execute(
        f"CREATE FUNCTION {prefix}fts_inbound_document(text text, caption text, choice_title text) "
        "RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ "
        f"SELECT to_tsvector('simple'::regconfig, {prefix}fts_fold("
        "coalesce(text, '') || ' ' || coalesce(caption, '') || ' ' || coalesce(choice_title, ''))) $$"
    )
    # Text, buttons and template parameters; plus one lexeme naming the template (name and language),
    # so a search finds the words of its body, which live in the templates file and not in the row.
    # That lexeme starts with "_", which no searched word can (words are letters and digits).
    op.execute(
        f"CREATE FUNCTION {prefix}fts_outbound_document(payload json) RETURNS tsvector "
        "LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ "
        f"SELECT to_tsvector('simple'::regconfig, {prefix}fts_fold("
        "coalesce(payload->>'text', '') || ' ' "
        "|| coalesce(payload->'buttons'->>'body', '') || ' ' "
        "|| coalesce((SELECT string_agg(button->>'title', ' ') FROM json_array_elements("
        "CASE WHEN json_typeof(payload->'buttons'->'buttons') = 'array' "
        "THEN payload->'buttons'->'buttons' ELSE '[]'::json END) AS button), '') || ' ' "
        "|| coalesce((SELECT string_agg(parameter, ' ') FROM json_array_elements_text("
        "CASE WHEN json_typeof(payload->'template'->'parameters') = 'array' "
        "THEN payload->'template'->'parameters' ELSE '[]'::json END) AS parameter), ''))) "
        "|| CASE WHEN payload->'template'->>'name' IS NULL THEN ''::tsvector "
        "ELSE array_to_tsvector(ARRAY['_' || md5((payload->'template'->>'name') || ' ' "
        "|| coalesce(payload->'template'->>'language', ''))]) END $$"
    )
    for table, source, document in (
        ("fts_inbound", "inbound_messages", "fts_inbound_document(NEW.text, NEW.caption, NEW.choice_title)"),
        ("fts_outbound", "outbox_messages", "fts_outbound_document(NEW.payload)"),
    ):
        # `rowid` as in the FTS5 tables, so one query reads either.
        op.execute(f"CREATE TABLE {prefix}{table} (rowid bigint PRIMARY KEY, document tsvector NOT NULL)")
        op.execute(
            f"CREATE FUNCTION {prefix}{table}_sync() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF TG_OP = 'DELETE' THEN DELETE FROM {prefix}{table} WHERE rowid = OLD.id; RETURN NULL; "
            "END IF; "
            f"INSERT INTO {prefix}{table} (rowid, document) VALUES (NEW.id, {prefix}{document}) "
            "ON CONFLICT (rowid) DO UPDATE SET document = EXCLUDED.document; RETURN NULL; END $$"
        )
        columns = "text, caption, choice_title" if table == "fts_inbound" else "payload"
        # Only a change of the indexed text re-indexes: state changes update outbox rows all day long.
        op.execute(
            f"CREATE TRIGGER {table}_sync AFTER INSERT OR DELETE OR UPDATE OF {columns} ON {source} "
            f"FOR EACH ROW EXECUTE FUNCTION {prefix}{table}_sync()"
        )
    op.execute(
        "INSERT INTO fts_inbound (rowid, document) "
        "SELECT id, fts_inbound_document(text, caption, choice_title) FROM inbound_messages"
    )
    op.execute(
        "INSERT INTO fts_outbound (rowid, document) "
        "SELECT id, fts_outbound_document(payload) FROM outbox_messages"
    )
    op.execute("CREATE INDEX fts_inbound_words ON fts_inbound USING gin (document)")
    op.execute("CREATE INDEX fts_outbound_words ON fts_outbound USING gin (document)")


def _downgrade_postgresql() -> None:
    op.execute("DROP TRIGGER IF EXISTS fts_inbound_sync ON inbound_messages")
    op.execute("DROP TRIGGER IF EXISTS fts_outbound_sync ON outbox_messages")
    op.execute("DROP TABLE IF EXISTS fts_inbound")
    op.execute("DROP TABLE IF EXISTS fts_outbound")
    op.execute("DROP FUNCTION IF EXISTS fts_inbound_sync()")
    op.execute("DROP FUNCTION IF EXISTS fts_outbound_sync()")
    op.execute("DROP FUNCTION IF EXISTS fts_outbound_document(json)")
    op.execute("DROP FUNCTION IF EXISTS fts_inbound_document(text, text, text)")
    op.execute("DROP FUNCTION IF EXISTS fts_fold(text)")


def upgrade() -> None:
    """Apply this revision."""
    if op.get_bind().dialect.name == "sqlite":
        _upgrade_sqlite()
    else:
        _upgrade_postgresql()


def downgrade() -> None:
    """Undo this revision."""
    if op.get_bind().dialect.name == "sqlite":
        _downgrade_sqlite()
    else:
        _downgrade_postgresql()
