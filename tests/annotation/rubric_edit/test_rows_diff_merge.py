"""Rubric rows as plain data: actions, diffs and three-way rebases."""

from annotation.rubric_edit.diff import Change, diff_rows, has_changes
from annotation.rubric_edit.merge import rebase
from annotation.rubric_edit.rows import RubricRow, apply_action, parse_weight_input


def row(key, text="t", weight=3, ability="温暖"):
    return RubricRow(key=key, ability=ability, weight=weight, text=text)


A, B, C = row("a", "点出疲惫"), row("b", "询问细节", 4, "好奇心"), row("c", "说教", -5, "言语表达")


def test_actions_add_remove_and_move():
    rows = [A, B, C]
    assert [r.key for r in apply_action(rows, "up:b")] == ["b", "a", "c"]
    assert [r.key for r in apply_action(rows, "up:a")] == ["a", "b", "c"]
    assert [r.key for r in apply_action(rows, "down:b")] == ["a", "c", "b"]
    assert [r.key for r in apply_action(rows, "down:c")] == ["a", "b", "c"]
    assert [r.key for r in apply_action(rows, "remove:b")] == ["a", "c"]
    added = apply_action(rows, "add")
    assert len(added) == 4 and added[-1].text == "" and added[-1].key not in {"a", "b", "c"}
    assert apply_action(rows, "remove:zzz") == rows
    assert rows == [A, B, C]  # the input is not modified


def test_weight_input_parsing():
    assert parse_weight_input(" -4 ") == -4
    assert parse_weight_input("") is None
    assert parse_weight_input("3.5") == "3.5"


def test_diff_matches_criteria_by_key_and_names_changed_fields():
    new = [row("b", "询问细节", 6, "好奇心"), row("a", "点出疲惫与压力"), row("d", "新标准")]
    entries = diff_rows([A, B, C], new)
    kinds = [(e.change, (e.old or e.new).key) for e in entries]
    # A removed criterion is shown after its old predecessor (c came after b).
    assert kinds == [
        (Change.CHANGED, "b"),
        (Change.REMOVED, "c"),
        (Change.CHANGED, "a"),
        (Change.ADDED, "d"),
    ]
    assert entries[0].fields == {"weight"} and entries[0].moved
    assert entries[2].fields == {"text"}
    assert has_changes(entries)


def test_diff_of_identical_rubrics_has_no_changes():
    entries = diff_rows([A, B], [A, B])
    assert [e.change for e in entries] == [Change.UNCHANGED, Change.UNCHANGED]
    assert not has_changes(entries)


def test_diff_from_nothing_is_all_added():
    assert [e.change for e in diff_rows([], [A, B])] == [Change.ADDED, Change.ADDED]


def test_rebase_keeps_both_editors_independent_changes():
    base = [A, B, C]
    mine = [row("a", "点出疲惫和无力感"), B, C, row("m", "我加的标准")]  # edit a, add m
    theirs = [
        A,
        row("b", "询问细节", 6, "好奇心"),
        row("t", "他们加的标准"),
    ]  # edit b, drop c, add t
    result = rebase(base, mine, theirs)
    assert [(r.key, r.text, r.weight) for r in result.rows] == [
        ("a", "点出疲惫和无力感", 3),
        ("b", "询问细节", 6),
        ("m", "我加的标准", 3),  # after its nearest surviving predecessor in my draft
        ("t", "他们加的标准", 3),
    ]
    assert result.conflicts == {}


def test_rebase_flags_a_criterion_both_changed_and_keeps_my_wording():
    base = [A, B]
    mine = [row("a", "我的改法"), B]
    theirs = [row("a", "他们的改法"), B]
    result = rebase(base, mine, theirs)
    assert result.rows[0].text == "我的改法"
    assert result.conflicts == {"a": theirs[0]}


def test_rebase_keeps_what_i_changed_when_they_removed_it():
    result = rebase([A, B], [row("a", "我的改法"), B], [B])
    assert [r.key for r in result.rows] == ["a", "b"]
    assert result.conflicts == {"a": None}


def test_rebase_keeps_their_change_to_what_i_removed_and_flags_it():
    theirs_b = row("b", "他们改过", 4, "好奇心")
    result = rebase([A, B], [A], [A, theirs_b])
    assert [r.key for r in result.rows] == ["a", "b"]
    assert result.conflicts == {"b": theirs_b}


def test_rebase_drops_what_they_removed_and_i_left_alone():
    result = rebase([A, B, C], [A, B, C], [A, C])
    assert [r.key for r in result.rows] == ["a", "c"]
    assert result.conflicts == {}
