"""Usernames that look alike are the same name. A new username is stored in Unicode's
compatibility form (NFKC: full-width "ＥＸＰＥＲＴ１" is "EXPERT1"), and it is refused when
its skeleton equals an existing account's: the skeleton case-folds the name and replaces
each letter that imitates a Latin one (the Cyrillic "о" of "coordinatоr", the Greek "ο")
by that letter, with the confusables data of Unicode's security mechanisms (UTS #39) that
the confusable_homoglyphs package keeps. Chinese and other names keep their characters."""

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables
from django.contrib.auth import get_user_model


def username_normalise(name: str) -> str:
    return unicodedata.normalize("NFKC", name.strip())


@lru_cache(maxsize=4096)
def _latin_twin(char: str) -> str:
    """The ASCII letter or digit `char` imitates, else `char` itself."""
    if char.isascii():
        return char
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin", "common"])
    for entry in found or []:
        for glyph in entry["homoglyphs"]:
            twin = glyph["c"]
            if len(twin) == 1 and twin.isascii() and twin.isalnum():
                return twin.casefold()
    return char


def username_skeleton(name: str) -> str:
    """What `name` looks like: equal skeletons are names a reader cannot tell apart."""
    folded = username_normalise(name).casefold()
    return "".join(_latin_twin(char) for char in unicodedata.normalize("NFKC", folded))


def username_taken(name: str) -> bool:
    """Whether an account's name looks like `name`. Every name is read: a team has hundreds
    of accounts, and a sign-up is rare."""
    wanted = username_skeleton(name)
    names = get_user_model().objects.values_list("username", flat=True).iterator()
    return any(username_skeleton(existing) == wanted for existing in names)
