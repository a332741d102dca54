"""The API's page size, on its pagination class rather than as DRF's global `PAGE_SIZE`:
with that setting, DRF's own system check loads the pagination class (and with it DRF's
serializers and their optional dependencies) in every process that runs the checks."""

from rest_framework.pagination import PageNumberPagination


class ApiPagination(PageNumberPagination):
    page_size = 50
