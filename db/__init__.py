"""Storage: SQLAlchemy tables, repositories and Alembic migrations (SQLite or PostgreSQL)."""
