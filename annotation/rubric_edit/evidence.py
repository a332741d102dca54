"""Evidence a rubric revision answers, such as a criterion's health figures: a short text
produced where the evidence is measured, carried to the rubric editor in a signed token (a
link cannot put words of its own into a change note), shown there, and recorded in the
change note of the version published from it."""

from django.core import signing

from annotation.models.rubrics import RubricVersion

_SALT = "annotation.rubric_edit.evidence"
# A link older than this shows figures that may since have changed: it is ignored.
MAX_AGE_SECONDS = 14 * 24 * 3600
NOTE_MAX = RubricVersion._meta.get_field("note").max_length


def evidence_token(text: str, *, case_id: int) -> str:
    """A token for the rubric editor of the case `case_id` (and of no other case)."""
    return signing.dumps(
        {"case": case_id, "text": text.strip()[:NOTE_MAX]}, salt=_SALT, compress=True
    )


def evidence_from_token(token: str, *, case_id: int) -> str:
    """The evidence a token carries for the case `case_id`; empty for no token, a forged or
    an expired one, or one made for another case."""
    if not token:
        return ""
    try:
        payload = signing.loads(token, salt=_SALT, max_age=MAX_AGE_SECONDS)
    except signing.BadSignature:
        return ""
    if not isinstance(payload, dict) or payload.get("case") != case_id:
        return ""
    text = payload.get("text")
    return text if isinstance(text, str) else ""


def note_with_evidence(note: str, evidence: str) -> str:
    """The author's note followed by the evidence, when there is a note to follow; the
    evidence is shortened to fit the note's length, never the author's words."""
    note = note.strip()
    if not note or not evidence or evidence in note:
        return note
    room = NOTE_MAX - len(note) - len(" ()")
    if room <= 1:
        return note
    if len(evidence) > room:
        evidence = evidence[: room - 1] + "…"
    return f"{note} ({evidence})"
