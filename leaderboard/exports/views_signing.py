from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from leaderboard.exports.bundles.keys import signing_keys_public


def signing_key_page(request: HttpRequest) -> HttpResponse:
    """The public keys that sign this installation's evidence bundles: public by design."""
    return render(request, "leaderboard/signing_key.html", {"keys": signing_keys_public()})
