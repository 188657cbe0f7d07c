"""The annotation page's HTTP interface through Starlette's test client: tokens, what each
annotator may read and write, request checks, concurrent answers, the agreement view."""

from __future__ import annotations

import multiprocessing
import threading

import pytest

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")
pytest.importorskip("httpx", reason="Starlette's test client needs httpx (the 'test' extra)")

from starlette.testclient import TestClient  # noqa: E402

from tapaco.core.annotation.pairs import (  # noqa: E402
    TRASH,
    Annotation,
    read_annotations,
    save_label,
    write_annotations,
)
from tapaco.core.annotation.sets import (  # noqa: E402
    Member,
    read_set_annotations,
    set_annotations_text,
)
from tapaco.core.annotation.web.app import MAX_BODY, create_app  # noqa: E402
from tapaco.core.annotation.web.desk import Desk  # noqa: E402
from tapaco.core.annotation.web.tasks import PairTask, SetTask  # noqa: E402

TOKENS = {1: "first-annotator-token", 2: "second-annotator-token"}
ORIGIN = {"Origin": "http://testserver"}


def pairs_file(path, count=6, second=None):
    second = second or {}
    write_annotations(path, [
        Annotation(n, f"en-N{n}", f"Sentence {n} .", f"Phrase {n} !", [None, second.get(n)], 0)
        for n in range(1, count + 1)])
    return path


@pytest.fixture
def pairs(tmp_path):
    return pairs_file(tmp_path / "en.tsv")


def client(path, task=PairTask, hosts=None):
    return TestClient(create_app(Desk(task(path), TOKENS), hosts))


def url(annotator, rest=""):
    return f"/a/{TOKENS[annotator]}/{rest}"


def answer(web, annotator, unit, label, headers=ORIGIN):
    return web.post(url(annotator, "api/answer"), json={"unit": unit, "answer": label},
                    headers=headers)


def column(path, annotator):
    return [a.labels[annotator - 1] for a in read_annotations(path)]


def test_without_a_valid_token_only_the_error_page(pairs):
    web = client(pairs)
    for path in ("/", "/a/", "/a/nope/", "/a/nope/api/info", "/a/nope/api/unit?after=-1",
                 "/a/nope/app.js", f"/a/{TOKENS[1][:-1]}/api/info", "/en.tsv",
                 "/a/../en.tsv"):
        response = web.get(path)
        assert response.status_code == 404, path
        assert "This link is not valid" in response.text and "Sentence" not in response.text
    response = web.post("/a/nope/api/answer", json={"unit": "en-N1", "answer": "4"},
                        headers=ORIGIN)
    assert response.status_code == 404 and column(pairs, 1) == [None] * 6


def test_the_page_and_its_assets_under_a_token(pairs):
    web = client(pairs)
    page = web.get(url(1))
    assert page.status_code == 200 and 'src="app.js"' in page.text
    assert "It was a last minute thing." in page.text  # the paper's Table 1 examples
    assert web.get(url(1, "app.js")).headers["content-type"].startswith("text/javascript")
    assert web.get(url(1, "style.css")).headers["content-type"].startswith("text/css")
    assert web.get(url(1, "index.html")).status_code == 404
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "http" not in policy and "unsafe" not in policy
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["referrer-policy"] == "no-referrer"
    for asset in ("app.js", "style.css", ""):  # nothing loaded from elsewhere
        text = web.get(url(1, asset)).text
        assert "http://" not in text and "https://" not in text and "//cdn" not in text


def test_answers_reach_only_the_annotators_column_in_order(pairs):
    web = client(pairs)
    info = web.get(url(1, "api/info")).json()
    assert info == {"mode": "pairs", "annotator": 1, "annotators": 2, "language": "en",
                    "progress": {"done": 0, "total": 6, "everyone_done": False}}
    first = web.get(url(1, "api/unit?after=-1")).json()["unit"]
    assert first == {"index": 0, "id": "en-N1", "sentences": ["Sentence 1 .", "Phrase 1 !"],
                     "answer": None}
    result = answer(web, 1, "en-N1", "4").json()
    assert result["unit"]["id"] == "en-N2" and result["progress"]["done"] == 1
    answer(web, 1, "en-N3", "trash")
    answer(web, 2, "en-N1", "mostly-bad")
    assert column(pairs, 1) == [4, None, TRASH, None, None, None]
    assert column(pairs, 2) == [2, None, None, None, None, None]


def test_an_annotator_never_sees_the_others_labels(tmp_path):
    path = pairs_file(tmp_path / "en.tsv", 4, second={1: TRASH, 2: TRASH, 3: TRASH})
    web = client(path)
    responses = [web.get(url(1, "api/info")), web.get(url(1, "api/unit?after=-1"))]
    responses += [web.get(url(1, f"api/unit?index={i}")) for i in range(4)]
    responses.append(web.get(url(1, "api/agreement")))
    assert all("trash" not in response.text for response in responses)
    assert [r.json()["unit"]["answer"] for r in responses[2:6]] == [None] * 4
    assert web.get(url(2, "api/unit?index=0")).json()["unit"]["answer"] == "trash"
    assert web.get(url(2, "api/unit?after=-1")).json()["unit"]["id"] == "en-N4"


def test_next_unit_wraps_round_so_skipped_pairs_come_back(pairs):
    web = client(pairs)
    for unit in ("en-N1", "en-N2", "en-N4"):
        answer(web, 1, unit, "3")
    assert web.get(url(1, "api/unit?after=4")).json()["unit"]["id"] == "en-N6"
    assert web.get(url(1, "api/unit?after=5")).json()["unit"]["id"] == "en-N3"
    for unit in ("en-N3", "en-N5", "en-N6"):
        result = answer(web, 1, unit, "3").json()
    assert result["unit"] is None and result["progress"]["done"] == 6


def test_undo_clears_the_annotators_latest_answer(pairs):
    web = client(pairs)
    assert web.post(url(1, "api/undo"), json={}, headers=ORIGIN).status_code == 400
    answer(web, 1, "en-N1", "4")
    answer(web, 1, "en-N2", "1")
    answer(web, 2, "en-N2", "2")
    undone = web.post(url(1, "api/undo"), json={}, headers=ORIGIN).json()["unit"]
    assert undone == {"index": 1, "id": "en-N2", "sentences": ["Sentence 2 .", "Phrase 2 !"],
                      "answer": None}
    assert column(pairs, 1)[:2] == [4, None] and column(pairs, 2)[:2] == [None, 2]
    web.post(url(1, "api/undo"), json={}, headers=ORIGIN)
    assert column(pairs, 1)[:2] == [None, None]


def test_undo_of_a_changed_answer_gives_back_the_one_before(pairs):
    web = client(pairs)
    answer(web, 1, "en-N3", "3")
    answer(web, 1, "en-N3", "trash")  # looked back and changed it
    undone = web.post(url(1, "api/undo"), json={}, headers=ORIGIN).json()["unit"]
    assert undone["id"] == "en-N3" and undone["answer"] == "3" and column(pairs, 1)[2] == 3
    web.post(url(1, "api/undo"), json={}, headers=ORIGIN)
    assert column(pairs, 1)[2] is None


@pytest.mark.parametrize("label", ["5", "0", "", "maybe", 4, None, ["4"], "x" * 100])
def test_labels_outside_the_scale_are_refused(pairs, label):
    response = answer(client(pairs), 1, "en-N1", label)
    assert response.status_code == 400 and "error" in response.json()
    assert column(pairs, 1) == [None] * 6


@pytest.mark.parametrize("unit", ["en-N99", "", None, 7, "../en.tsv"])
def test_a_pair_id_must_exist(pairs, unit):
    response = answer(client(pairs), 1, unit, "4")
    assert response.status_code == 400 and column(pairs, 1) == [None] * 6


def test_changes_come_only_from_the_same_origin(pairs):
    web = client(pairs)
    assert answer(web, 1, "en-N1", "4", headers={}).status_code == 403
    assert answer(web, 1, "en-N1", "4", headers={"Origin": "http://evil.example"}
                  ).status_code == 403
    assert answer(web, 1, "en-N1", "4", headers={"Origin": "null"}).status_code == 403
    assert answer(web, 1, "en-N1", "4", headers={"Sec-Fetch-Site": "cross-site"}
                  ).status_code == 403
    assert column(pairs, 1) == [None] * 6
    assert answer(web, 1, "en-N1", "4", headers={"Sec-Fetch-Site": "same-origin"}
                  ).status_code == 200
    assert column(pairs, 1)[0] == 4
    assert web.get(url(1, "api/answer?unit=en-N2&answer=4")).status_code in (404, 405)
    assert column(pairs, 1)[1] is None  # changes are POST only


def test_bodies_are_json_objects_of_limited_size(pairs):
    web = client(pairs)
    post = url(1, "api/answer")
    form = web.post(post, data={"unit": "en-N1", "answer": "4"}, headers=ORIGIN)
    assert form.status_code == 415
    assert web.post(post, content=b"{not json", headers={
        **ORIGIN, "Content-Type": "application/json"}).status_code == 400
    assert web.post(post, json=["en-N1", "4"], headers=ORIGIN).status_code == 400
    padding = "x" * (MAX_BODY + 1)
    big = web.post(post, json={"unit": "en-N1", "answer": "4", "pad": padding}, headers=ORIGIN)
    assert big.status_code == 413

    def chunks():  # no Content-Length: the limit holds on the bytes read
        yield b'{"unit": "en-N1", "answer": "4", "pad": "'
        for _ in range(MAX_BODY // 1000 + 2):
            yield b"x" * 1000
        yield b'"}'

    streamed = web.post(post, content=chunks(), headers={
        **ORIGIN, "Content-Type": "application/json"})
    assert streamed.status_code == 413
    assert column(pairs, 1) == [None] * 6


def test_other_hosts_are_refused_when_serving_loopback(pairs):
    web = client(pairs, hosts=["127.0.0.1", "localhost"])
    assert web.get(url(1), headers={"Host": "attacker.example"}).status_code == 400
    assert web.get(url(1), headers={"Host": "127.0.0.1:8000"}).status_code == 200


def _labels_by_hand():
    """Six pairs, two annotators, and the paper's Tables 4-5 counts worked out by hand."""
    first = [4, 4, 3, 2, 1, TRASH]
    second = [4, 3, 3, 4, 2, 4]
    # (4,4) 4.0; (4,3) 3.5; (3,3) 3.0; (2,4) disagree; (1,2) 1.5; trash
    columns = {"4.0": 1, "3.5": 1, "3.0": 1, "2.5": 0, "2.0": 0, "1.5": 1, "1.0": 0,
               "trash": 1, "disagree": 1}
    # kappa over labels {0,1,2,3,4}: observed 2/6; expected sum_l p1(l) p2(l)
    p1 = {4: 2, 3: 1, 2: 1, 1: 1, 0: 1}
    p2 = {4: 3, 3: 2, 2: 1}
    expected = sum(p1.get(label, 0) * p2.get(label, 0) for label in range(5)) / 36
    kappa = (2 / 6 - expected) / (1 - expected)
    return first, second, columns, kappa


def test_agreement_opens_when_both_are_done_with_the_papers_counts(pairs):
    web = client(pairs)
    first, second, columns, kappa = _labels_by_hand()
    for n, (a, b) in enumerate(zip(first, second), 1):
        answer(web, 1, f"en-N{n}", "trash" if a == TRASH else str(a))
        if n < 6:
            answer(web, 2, f"en-N{n}", str(b))
    closed = web.get(url(1, "api/agreement"))
    assert closed.status_code == 409 and "both" in closed.json()["error"]
    answer(web, 2, "en-N6", str(second[5]))
    for annotator in (1, 2):
        agreement = web.get(url(annotator, "api/agreement")).json()
        assert {c["key"]: c["count"] for c in agreement["columns"]} == columns
        assert agreement["kappa"] == pytest.approx(kappa, abs=1e-4)
        assert agreement["kept"] == 4 and agreement["total"] == 6
        assert agreement["columns"][0]["title"] == "2 × Green"


def test_two_clients_answering_at_once_lose_nothing(tmp_path):
    path = pairs_file(tmp_path / "en.tsv", 40)
    app = create_app(Desk(PairTask(path), TOKENS))

    def annotate_all(annotator):
        with TestClient(app) as web:
            for n in range(1, 41):
                label = str(1 + (n + annotator) % 4)
                assert answer(web, annotator, f"en-N{n}", label).status_code == 200

    threads = [threading.Thread(target=annotate_all, args=(a,)) for a in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert column(path, 1) == [1 + (n + 1) % 4 for n in range(1, 41)]
    assert column(path, 2) == [1 + (n + 2) % 4 for n in range(1, 41)]


def _terminal_annotator(path, count):
    for n in range(1, count + 1):
        save_label(path, f"en-N{n}", 1, 1 + n % 4)


def test_the_terminal_annotator_and_the_page_on_one_file(tmp_path):
    """Another process writes annotator 1's column while the page writes annotator 2's."""
    path = pairs_file(tmp_path / "en.tsv", 200)
    other = multiprocessing.get_context("spawn").Process(target=_terminal_annotator,
                                                         args=(path, 200))
    other.start()
    with client(path) as web:
        for n in range(1, 201):
            assert answer(web, 2, f"en-N{n}", "trash").status_code == 200
    other.join(60)
    assert other.exitcode == 0
    assert column(path, 1) == [1 + n % 4 for n in range(1, 201)]
    assert column(path, 2) == [TRASH] * 200


def test_a_file_replaced_under_the_server_is_reread(pairs):
    web = client(pairs)
    assert web.get(url(1, "api/info")).json()["progress"]["total"] == 6
    pairs_file(pairs, 3)
    assert web.get(url(1, "api/info")).json()["progress"]["total"] == 3
    assert answer(web, 1, "en-N5", "4").status_code == 400


@pytest.fixture
def sets(tmp_path):
    path = tmp_path / "de-sets.tsv"
    members = [Member(7, "1", "Ich bin müde.", [None, None]),
               Member(7, "2", "Ich bin erschöpft.", [None, None]),
               Member(7, "3", "Er ist müde.", [None, None]),
               Member(12, "40", "Geh!", [None, None]),
               Member(12, "41", "Gehen Sie!", [None, None])]
    path.write_text(set_annotations_text(members), encoding="utf-8")
    return path


def test_set_mode_marks_outliers_per_annotator(sets):
    web = client(sets, SetTask)
    assert web.get(url(1, "api/info")).json()["mode"] == "sets"
    unit = web.get(url(1, "api/unit?after=-1")).json()["unit"]
    assert unit["id"] == "7" and [m["text"] for m in unit["members"]] == [
        "Ich bin müde.", "Ich bin erschöpft.", "Er ist müde."]
    result = answer(web, 1, "7", ["3"]).json()
    assert result["unit"]["id"] == "12"
    answer(web, 2, "7", [])
    labels = [(m.sentence_id, m.labels) for m in read_set_annotations(sets)]
    assert labels == [("1", ["ok", "ok"]), ("2", ["ok", "ok"]), ("3", ["outlier", "ok"]),
                      ("40", [None, None]), ("41", [None, None])]
    assert web.get(url(1, "api/unit?index=0")).json()["unit"]["answer"] == ["3"]
    assert web.get(url(2, "api/unit?index=0")).json()["unit"]["answer"] == []
    web.post(url(1, "api/undo"), json={}, headers=ORIGIN)
    assert [m.labels[0] for m in read_set_annotations(sets)][:3] == [None] * 3


@pytest.mark.parametrize("outliers", [["99"], "3", [3], None, {"3": True}])
def test_set_answers_name_members_of_the_set(sets, outliers):
    response = answer(client(sets, SetTask), 1, "7", outliers)
    assert response.status_code == 400
    assert all(m.labels == [None, None] for m in read_set_annotations(sets))


def test_set_agreement_by_hand(sets):
    web = client(sets, SetTask)
    answer(web, 1, "7", ["3"])
    answer(web, 2, "7", ["3"])
    answer(web, 1, "12", ["41"])
    assert web.get(url(2, "api/agreement")).status_code == 409
    answer(web, 2, "12", [])
    agreement = web.get(url(2, "api/agreement")).json()
    # members: (ok,ok) x3 [1, 2, 40], (outlier,outlier) [3], (outlier,ok) [41]
    assert {c["key"]: c["count"] for c in agreement["columns"]} == {
        "both ok": 3, "both outlier": 1, "outlier for annotator 1 only": 1,
        "outlier for annotator 2 only": 0}
    observed, expected = 4 / 5, (3 / 5) * (4 / 5) + (2 / 5) * (1 / 5)
    assert agreement["kappa"] == pytest.approx((observed - expected) / (1 - expected),
                                               abs=1e-4)
    assert (agreement["kept"], agreement["total"]) == (1, 2)


def test_a_token_must_match_exactly(pairs):
    web = client(pairs)
    token = TOKENS[1]
    for wrong in (token + "x", token + "/", token.upper(), token.swapcase(), " " + token,
                  token[:-1] + token[-1].upper()):
        assert wrong != token
        response = web.get(f"/a/{wrong}/api/info")
        assert response.status_code == 404, wrong
    assert web.get(f"/a/{token}/api/info").status_code == 200


def test_tokens_are_new_random_and_long_every_time():
    from tapaco.core.annotation.web.desk import new_tokens

    drawn = [new_tokens(3) for _ in range(20)]
    values = [token for tokens in drawn for token in tokens.values()]
    assert len(set(values)) == len(values)  # never fixed, never shared by annotators
    assert all(len(token) >= 22 for token in values)  # 128 bits in URL-safe base64


def test_deeply_nested_json_is_a_400_with_the_security_headers(pairs):
    from tapaco.core.annotation.web.app import SECURITY_HEADERS

    web = client(pairs)
    response = web.post(url(1, "api/answer"), content=b"[" * 30_000, headers={
        **ORIGIN, "Content-Type": "application/json"})
    assert response.status_code == 400
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value


@pytest.mark.parametrize(("bound", "host_header"), [
    ("::1", "[::1]:8000"), ("127.0.0.2", "127.0.0.2:8000"), ("localhost", "localhost:8000")])
def test_the_host_the_server_is_bound_to_is_allowed(pairs, bound, host_header):
    web = client(pairs, hosts=["127.0.0.1", "localhost", bound])
    assert web.get(url(1), headers={"Host": host_header}).status_code == 200
    assert web.get(url(1), headers={"Host": "[::2]:8000"}).status_code == 400
    assert web.get(url(1), headers={"Host": "127.0.0.3"}).status_code == 400
