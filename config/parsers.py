"""The API's JSON parser: DRF's, refusing what no endpoint can use (see input_checks) with
a 400 that names the field, instead of a RecursionError or a database error later."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from config.input_checks import InputRefused, check_json, too_deep


class CheckedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(too_deep()) from exc
        try:
            check_json(data)
        except InputRefused as exc:
            raise ParseError(str(exc)) from exc
        return data
