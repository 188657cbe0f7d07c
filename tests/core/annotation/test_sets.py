"""Set annotation files: drawn from a real TaPaCo language file, labelled, agreement."""

from __future__ import annotations

import csv

import pytest
from conftest import SAMPLE

from tapaco.core.annotation.sets import (
    Member,
    is_set_annotation_file,
    read_language_file,
    read_set_annotations,
    sample_sets,
    save_set_answer,
    set_agreement,
    set_annotations_text,
)
from tapaco.core.errors import InputError
from tapaco.filters import FilterOptions
from tapaco.pipeline import BuildOptions, build


@pytest.fixture(scope="module")
def english(tmp_path_factory):
    out = tmp_path_factory.mktemp("tapaco") / "out"
    build(SAMPLE, out, BuildOptions(FilterOptions(min_sets=1)))
    return out / "en.txt"


def test_language_file_members_are_its_rows(english):
    with open(english, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    members = read_language_file(english)
    assert [(str(m.set_id), m.sentence_id, m.sentence) for m in members] == [
        (row[0], row[1], row[2]) for row in rows]
    assert all(m.labels == [None, None] for m in members)


def test_sampled_sets_are_whole_seeded_and_in_file_order(english):
    members = read_language_file(english)
    set_ids = list(dict.fromkeys(m.set_id for m in members))
    assert len(set_ids) >= 4
    chosen = sample_sets(members, 3, seed=5)
    chosen_ids = list(dict.fromkeys(m.set_id for m in chosen))
    assert len(chosen_ids) == 3 and chosen_ids == [s for s in set_ids if s in chosen_ids]
    for set_id in chosen_ids:  # every member of a drawn set, none of the others
        assert [m for m in chosen if m.set_id == set_id] == [
            m for m in members if m.set_id == set_id]
    assert sample_sets(members, 3, seed=5) == chosen
    drawn = {frozenset(m.set_id for m in sample_sets(members, 3, seed)) for seed in range(20)}
    assert len(drawn) > 1  # the seed decides the draw
    assert sample_sets(members, None, 0) == members == sample_sets(members, 10**6, 0)


def test_file_round_trip_and_answers_per_annotator(english, tmp_path):
    path = tmp_path / "en-sets.tsv"
    members = sample_sets(read_language_file(english), 2, seed=1)
    path.write_text(set_annotations_text(members), encoding="utf-8")
    assert is_set_annotation_file(path) and not is_set_annotation_file(english)
    assert read_set_annotations(path) == members
    first = members[0]
    outlier = next(m for m in members if m.set_id == first.set_id and m is not first)
    save_set_answer(path, first.set_id, 2, {outlier.sentence_id})
    labels = {(m.set_id, m.sentence_id): m.labels for m in read_set_annotations(path)}
    for m in members:
        expected = (None if m.set_id != first.set_id else
                    "outlier" if m.sentence_id == outlier.sentence_id else "ok")
        assert labels[(m.set_id, m.sentence_id)] == [None, expected]
    save_set_answer(path, first.set_id, 2, None)
    assert read_set_annotations(path) == members
    with pytest.raises(InputError, match="no sentence"):
        save_set_answer(path, first.set_id, 1, {"no-such-id"})
    with pytest.raises(InputError, match="no longer holds set"):
        save_set_answer(path, 10**9, 1, set())
    assert read_set_annotations(path) == members


@pytest.mark.parametrize("text, message", [
    ("set_id\tsentence\n", "expected the header"),
    ("set_id\tsentence_id\tsentence\tannotator1\tannotator2\nx\t1\tHi\t\t\n", "whole number"),
    ("set_id\tsentence_id\tsentence\tannotator1\tannotator2\n1\t1\tHi\tmaybe\t\n",
     "unknown label"),
    ("set_id\tsentence_id\tsentence\tannotator1\tannotator2\n1\t1\tHi\t\t\n1\t1\tHo\t\t\n",
     "occurs twice"),
])
def test_malformed_set_files_name_the_line(tmp_path, text, message):
    path = tmp_path / "bad.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_set_annotations(path)


def test_a_language_file_needs_five_fields(tmp_path):
    path = tmp_path / "de.txt"
    path.write_text("1\t2\tHallo\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1.*5 tab-separated fields"):
        read_language_file(path)


def test_agreement_by_hand():
    members = [Member(1, "a", "", ["ok", "ok"]), Member(1, "b", "", ["outlier", "ok"]),
               Member(2, "c", "", ["ok", "outlier"]), Member(2, "d", "", ["ok", "outlier"]),
               Member(3, "e", "", ["outlier", "outlier"]), Member(3, "f", "", ["ok", "ok"]),
               Member(4, "g", "", ["ok", None])]
    agreement = set_agreement(members)
    assert agreement.counts == {"both ok": 2, "both outlier": 1,
                                "outlier for annotator 1 only": 1,
                                "outlier for annotator 2 only": 2}
    # six members labelled by both: observed 3/6; annotator 1 ok 4/6, annotator 2 ok 3/6
    expected = (4 / 6) * (3 / 6) + (2 / 6) * (3 / 6)
    assert agreement.kappa == pytest.approx((0.5 - expected) / (1 - expected))
    assert (agreement.sets_agreed, agreement.sets) == (1, 3)
