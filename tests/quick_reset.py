"""Emptying the test database after a transactional test without Django's full flush.

Django's flush empties every table (on PostgreSQL a TRUNCATE of all of them, which costs
up to a second) and then emits post_migrate, which rebuilds the rows migrations leave
behind: content types, permissions, the role groups, the taxonomy and the default prompts.
Most transactional tests write a handful of tables and never touch those rows. For them
this deletes the rows of the tables that have any, and leaves the seeded rows as they are,
once a fingerprint shows them exactly as they were after migrating. Any other test (one
that changed a seeded row, or whose rows the seeded ones reference) gets the full flush.
"""

from __future__ import annotations

import hashlib

from django.db import DatabaseError, connections, transaction
from django.test import TransactionTestCase

_seeded: dict[str, dict[str, str]] = {}


def _tables(connection) -> list[str]:
    return sorted(connection.introspection.django_table_names(only_existing=True))


def _quote(connection, table: str) -> str:
    return connection.ops.quote_name(table)


def _non_empty(connection, tables: list[str]) -> list[str]:
    if not tables:
        return []
    probes = " UNION ALL ".join(
        f"SELECT {index} FROM (SELECT 1 FROM {_quote(connection, table)} LIMIT 1) AS t{index}"
        for index, table in enumerate(tables)
    )
    with connection.cursor() as cursor:
        cursor.execute(probes)
        return [tables[row[0]] for row in cursor.fetchall()]


def _fingerprint(connection, table: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {_quote(connection, table)}")
        rows = sorted(repr(row) for row in cursor.fetchall())
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def remember_seeded_rows(alias: str = "default") -> None:
    """What the freshly migrated (or fully flushed) database holds: the state to keep."""
    connection = connections[alias]
    _seeded[alias] = {
        table: _fingerprint(connection, table)
        for table in _non_empty(connection, _tables(connection))
    }


def _quick_reset(alias: str) -> bool:
    """Empty every table that is not seeded; False if the full flush is needed instead."""
    seeded = _seeded.get(alias)
    if seeded is None:
        return False
    connection = connections[alias]
    filled = _non_empty(connection, _tables(connection))
    if not set(seeded) <= set(filled):
        return False
    if any(_fingerprint(connection, table) != seeded[table] for table in seeded):
        return False
    doomed = [table for table in filled if table not in seeded]
    try:
        # Foreign keys are deferred to the commit, so the order of the deletes is free.
        with transaction.atomic(using=alias), connection.cursor() as cursor:
            for table in doomed:
                cursor.execute(f"DELETE FROM {_quote(connection, table)}")
    except DatabaseError:
        return False
    return True


_full_teardown = TransactionTestCase._fixture_teardown


def _fixture_teardown(self) -> None:
    aliases = self._databases_names(include_mirrors=False)
    plain = self.available_apps is None and not self.serialized_rollback
    if plain and all(_quick_reset(alias) for alias in aliases):
        return
    _full_teardown(self)
    for alias in aliases:
        remember_seeded_rows(alias)


def install() -> None:
    TransactionTestCase._fixture_teardown = _fixture_teardown
