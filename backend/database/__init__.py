"""Models, engine, sessions, migrations. Imports SQLAlchemy and alembic, never web or ui."""

from backend.database.engine import Database, create_database
from backend.database.migrate import upgrade_database

__all__ = ["Database", "create_database", "upgrade_database"]
