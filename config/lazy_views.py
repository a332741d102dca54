"""Views imported on their first use rather than with the URL configuration.

Every command, worker and page process loads the URL configuration (the system checks walk
it). The API's views bring Django REST framework's serializers and drf-spectacular (and
with them django.test and unittest); the leaderboard's pages bring the statistics and numpy.
Few paths need either, yet together they were about a third of `manage.py check`'s time.
A `LazyView` stands in the URL pattern; the view is imported on its first request, or as
soon as anything looks at it (drf-spectacular's schema, the CSRF middleware, the permission
matrix), so it behaves as the view itself. A web process imports them all before its
first request (config/wsgi.py)."""

from importlib import import_module
from threading import Lock

_lock = Lock()
_made: list["LazyView"] = []


class LazyView:
    """The view at `dotted` ("package.module.Name"); a class-based view is made with
    `as_view()`, once."""

    __slots__ = ("_dotted", "_view")

    def __init__(self, dotted: str) -> None:
        self._dotted = dotted
        self._view = None

    def _load(self):
        if self._view is None:
            with _lock:
                if self._view is None:
                    module, _, name = self._dotted.rpartition(".")
                    view = getattr(import_module(module), name)
                    self._view = view.as_view() if hasattr(view, "as_view") else view
        return self._view

    def __call__(self, request, *args, **kwargs):
        return self._load()(request, *args, **kwargs)

    def __getattr__(self, name: str):
        # Only for what the object itself lacks: everything the view carries (csrf_exempt,
        # cls, initkwargs, view_class, __name__...). The URL resolver names every pattern's
        # view when it fills its tables (the first reverse() of a process): it gets the
        # view's name from the dotted path, not by importing every view.
        if self._view is None:
            if name == "view_class":
                raise AttributeError(name)
            if name in ("__name__", "__qualname__"):
                return self._dotted.rpartition(".")[2]
        return getattr(self._load(), name)

    def __repr__(self) -> str:
        return f"<LazyView {self._dotted}>"


def lazy_view(dotted: str) -> LazyView:
    view = LazyView(dotted)
    _made.append(view)
    return view


def lazy_views_load() -> int:
    """Import every view that stands behind a LazyView (a web process does it before its
    first request: config/wsgi.py). Returns how many there are."""
    for view in _made:
        view._load()
    return len(_made)
