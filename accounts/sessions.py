"""Sessions in the database, as Django keeps them (signing out ends a session everywhere),
read by one plain statement. Every signed-in request reads its session, and building that
query through the ORM cost six times the database's time to answer it
(bench/annotation_profile.py). Writing, expiring and clearing are Django's own."""

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import connections, router
from django.utils import timezone


class SessionStore(DatabaseSessionStore):
    def _get_session_from_db(self):
        model = self.model
        sql = (
            f"SELECT session_data FROM {model._meta.db_table} "
            "WHERE session_key = %s AND expire_date > %s"
        )
        with connections[router.db_for_read(model)].cursor() as cursor:
            cursor.execute(sql, [self.session_key, timezone.now()])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None  # as Django does: the next save starts a new session
            return None
        return model(session_key=self.session_key, session_data=row[0])
