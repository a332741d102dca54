"""The writer: one thread per lane pool that records the lanes' outcomes, many to a
transaction, so a lane goes on to its next call at once instead of waiting for the database.

An outcome still waiting here when the process dies is lost with it, which costs a call and
nothing else: its task is still leased, the lease runs out and another lane does the task
again. Every write is conditional on the lease, so nothing is written twice.
"""

import logging
import queue
import threading
from collections import defaultdict
from collections.abc import Callable

from django.db import connection, transaction

logger = logging.getLogger(__name__)

BATCH = 100  # outcomes per transaction at most

# A write makes its conditional updates and adds the rows to insert to the list: the writer
# inserts a whole batch's rows with one statement per table.
Write = Callable[[list], None]


def rows_insert(rows: list) -> None:
    """Model rows are inserted; other rows (a `rows_write` of their own, as the marks of
    calls started in services/outcomes.py) are written by their kind, in one go."""
    by_model: dict[type, list] = defaultdict(list)
    for row in rows:
        by_model[type(row)].append(row)
    for model, objects in by_model.items():
        if hasattr(model, "rows_write"):
            model.rows_write(objects)
        else:
            model.objects.bulk_create(objects, batch_size=2000)


class Writer:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Write | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="judge-writer", daemon=True)
        self._thread.start()

    def put(self, write: Write) -> None:
        self._queue.put(write)

    def close(self) -> None:
        """Write what is queued, then stop."""
        self._queue.put(None)
        self._thread.join()

    def _loop(self) -> None:
        try:
            done = False
            while not done:
                batch = [self._queue.get()]
                while len(batch) < BATCH:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                done = None in batch
                _write_all([write for write in batch if write is not None])
        finally:
            connection.close()


def _write_all(batch: list[Write]) -> None:
    if not batch:
        return
    try:
        with transaction.atomic():
            rows: list = []
            for write in batch:
                write(rows)
            rows_insert(rows)
        return
    except Exception:
        if len(batch) == 1:
            # The task stays leased; when the lease runs out another lane does it again.
            logger.exception("an outcome could not be recorded; its task will be retried")
            return
    # One bad outcome must not cost the others: write them one by one.
    for write in batch:
        _write_all([write])
