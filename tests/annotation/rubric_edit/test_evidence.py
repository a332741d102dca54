"""Evidence carried to the rubric editor: signed, so a link cannot forge it, and recorded
after the author's note without ever cutting the author's words."""

from django.core import signing

from annotation.rubric_edit.evidence import (
    NOTE_MAX,
    evidence_from_token,
    evidence_token,
    note_with_evidence,
)


def test_a_token_carries_its_text_to_its_case_and_a_forged_one_nothing():
    text = "experts split on 2 of 6"
    token = evidence_token(text, case_id=7)
    assert evidence_from_token(token, case_id=7) == text
    assert evidence_from_token(token, case_id=8) == ""  # another case's editor
    assert evidence_from_token("", case_id=7) == ""
    assert evidence_from_token("made up", case_id=7) == ""
    assert evidence_from_token(signing.dumps({"case": 7, "text": "x"}), case_id=7) == ""


def test_the_note_keeps_the_authors_words_and_the_evidence_fits():
    assert note_with_evidence("Clearer", "health") == "Clearer (health)"
    assert note_with_evidence("  ", "health") == ""  # no note: the editor asks for one
    assert note_with_evidence("Clearer (health)", "health") == "Clearer (health)"
    long = note_with_evidence("x" * 400, "e" * 300)
    assert len(long) == NOTE_MAX and long.startswith("x" * 400 + " (") and long.endswith("…)")
    assert note_with_evidence("x" * NOTE_MAX, "evidence") == "x" * NOTE_MAX
