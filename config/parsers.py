"""The API's parsers: DRF's, refusing what no endpoint can use (see input_checks) with a 400
that names the field, instead of a RecursionError or a database error later. Every body the
API reads goes through one of them: JSON, form-encoded or multipart."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles, FormParser, JSONParser, MultiPartParser

from config.input_checks import InputRefused, check_json, check_parameters, too_deep


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


def _pairs(data):
    for name, values in data.lists():
        for value in values:
            yield name, value


def _check_form(pairs) -> None:
    try:
        check_parameters(pairs, where="form")
    except InputRefused as exc:
        raise ParseError(str(exc)) from exc


class CheckedFormParser(FormParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        _check_form(_pairs(data))
        return data


class CheckedMultiPartParser(MultiPartParser):
    """Fields and the names of uploaded files are checked; a file's content is the
    importer's to read (it names the line)."""

    def parse(self, stream, media_type=None, parser_context=None) -> DataAndFiles:
        parsed = super().parse(stream, media_type, parser_context)
        _check_form(_pairs(parsed.data))
        _check_form((field, upload.name or "") for field, upload in parsed.files.items())
        return parsed
