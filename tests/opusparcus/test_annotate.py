import io
import os
import select
import subprocess
import sys
import threading
import time

import pytest
from conftest import PROJECT, without_compile_notice

from opusparcus.annotate import LONGEST_ANSWER, annotate
from tapaco.core.annotation.pairs import TRASH, Annotation, read_annotations, write_annotations
from tapaco.core.errors import InputError
from tests.peak_memory import wait_with_small_peak

WAIT = 10.0


@pytest.fixture
def pairs(tmp_path):
    """Five pairs; annotator 1 has already labelled the first two."""
    path = tmp_path / "en.tsv"
    write_annotations(path, [
        Annotation(1, "en-N1", "Yes .", "Yeah .", [4, None], 0),
        Annotation(2, "en-N2", "Go away !", "Leave !", [3, None], 0),
        Annotation(3, "en-N3", "I am here .", "Here I am .", [None, None], 0),
        Annotation(4, "en-N4", "Thanks .", "Thank you .", [None, None], 0),
        Annotation(5, "en-N5", "No .", "Never .", [None, None], 0),
    ])
    return path


def labels(path, annotator):
    return [a.labels[annotator - 1] for a in read_annotations(path)]


def run(path, annotator, keys):
    out = io.StringIO()
    return annotate(path, annotator, io.StringIO(keys), out), out.getvalue()


def test_answers_only_the_annotators_column(pairs):
    counts, out = run(pairs, 2, "4\n1\nq\n")
    assert counts == {"answered": 2, "remaining": 3}
    assert labels(pairs, 2) == [4, 1, None, None, None]
    assert labels(pairs, 1) == [4, 3, None, None, None]
    assert "pair 1 of 5 (5 left)  id en-N1" in out and "Yes ." in out and "keys:" in out


def test_annotator_1_starts_at_its_first_empty_label(pairs):
    counts, out = run(pairs, 1, "t\ntrash\n")
    assert "pair 3 of 5" in out and "pair 1 of 5" not in out
    assert counts == {"answered": 2, "remaining": 1}  # end of input quits
    assert labels(pairs, 1) == [4, 3, TRASH, TRASH, None]
    assert labels(pairs, 2) == [None] * 5


def test_words_and_colours(pairs):
    counts, _ = run(pairs, 2, "good\nlight-green\nMostly bad\nred\ntrash\n")
    assert counts == {"answered": 5, "remaining": 0}
    assert labels(pairs, 2) == [4, 3, 2, 1, TRASH]


def test_undo_clears_and_shows_the_pair_again(pairs):
    counts, out = run(pairs, 2, "4\ngreen\nu\n3\nu\nu\n2\nq\n")
    assert counts == {"answered": 1, "remaining": 4}
    assert labels(pairs, 2) == [2, None, None, None, None]
    assert out.count("id en-N2") == 4 and out.count("id en-N1") == 2


def test_undo_saves_at_once_and_only_this_sessions_answers(pairs):
    run(pairs, 2, "4\n")
    counts, out = run(pairs, 2, "u\n")
    assert "nothing to undo" in out
    assert counts == {"answered": 0, "remaining": 4}
    assert labels(pairs, 2) == [4, None, None, None, None]
    stdin = io.StringIO("3\nu\n")
    annotate(pairs, 2, stdin, io.StringIO())
    assert labels(pairs, 2) == [4, None, None, None, None]


def test_unknown_input_is_asked_again(pairs):
    counts, out = run(pairs, 2, "5\n\nmaybe\n4\nq\n")
    assert out.count("? unknown answer") == 3 and "'maybe'" in out
    assert out.count("id en-N1") == 1
    assert counts == {"answered": 1, "remaining": 4}
    assert labels(pairs, 2) == [4, None, None, None, None]


def test_quit_keeps_answers_and_a_second_run_resumes_then_stops(pairs):
    run(pairs, 2, "4\n3\nq\n4\n")
    assert labels(pairs, 2) == [4, 3, None, None, None]
    counts, out = run(pairs, 2, "2\n1\n4\n4\n")
    assert "pair 3 of 5 (3 left)  id en-N3" in out and "id en-N1" not in out
    assert counts == {"answered": 3, "remaining": 0}
    assert labels(pairs, 2) == [4, 3, 2, 1, 4]
    counts, out = run(pairs, 2, "4\n")
    assert counts == {"answered": 0, "remaining": 0} and "pair" not in out


def test_saved_after_every_answer(pairs, monkeypatch):
    seen = []

    class Spy(io.StringIO):
        def readline(self, *args):
            seen.append(labels(pairs, 2))
            return super().readline(*args)

    annotate(pairs, 2, Spy("4\n1\nu\nq\n"), io.StringIO())
    assert seen == [[None] * 5, [4, None, None, None, None], [4, 1, None, None, None],
                    [4, None, None, None, None]]


def test_the_keys_are_shown_once(pairs):
    _, out = run(pairs, 2, "4\n3\nbad\nq\n")
    assert out.count("pair ") == 4 and out.count("keys:") == 1


@pytest.mark.parametrize("stream", ["\0" * 5000, "4" * 5000, "x" * LONGEST_ANSWER])
def test_an_answer_without_end_is_an_error_and_earlier_answers_stay(pairs, stream):
    with pytest.raises(InputError, match="standard input: an answer of over 1,000 characters "
                                         "without a line end"):
        run(pairs, 2, "4\n" + stream)
    assert labels(pairs, 2) == [4, None, None, None, None]
    counts, _ = run(pairs, 2, "x" * (LONGEST_ANSWER - 1) + "\nq\n")  # the longest line read
    assert counts == {"answered": 0, "remaining": 4}


def _annotate_process(path, stdin) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "opusparcus", "annotate", "--file", str(path),
                             "--annotator", "2"], stdin=stdin, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=PROJECT)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
def test_annotate_from_dev_zero_ends_in_one_line_with_bounded_memory(pairs):
    with open("/dev/zero", "rb") as zeros:
        process = _annotate_process(pairs, zeros)
        wait_with_small_peak(process)
        assert process.returncode == 2
    error = without_compile_notice(process.stderr.read().decode())
    assert error.count("\n") == 1 and error.startswith("opusparcus: error: standard input: ")
    assert labels(pairs, 2) == [None] * 5


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
def test_an_endless_line_on_a_pipe_ends_in_one_line_with_bounded_memory(pairs):
    reading, writing = os.pipe()
    stop = threading.Event()

    def write_forever() -> None:
        try:
            os.write(writing, b"4\n")
            while not stop.is_set():
                os.write(writing, b"4" * 65536)
        except OSError:  # the reader is gone
            pass
        finally:
            os.close(writing)

    writer = threading.Thread(target=write_forever, daemon=True)
    process = _annotate_process(pairs, reading)
    os.close(reading)
    writer.start()
    try:
        wait_with_small_peak(process)
        assert process.returncode == 2
    finally:
        stop.set()
        writer.join(WAIT)
    assert "an answer of over 1,000 characters" in process.stderr.read().decode()
    assert labels(pairs, 2) == [4, None, None, None, None]


def test_a_byte_that_is_not_utf8_is_an_unknown_answer(pairs):
    # strict, as under a UTF-8 locale such as en_US.UTF-8 (C and C.UTF-8 escape bad bytes)
    strict = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run([sys.executable, "-m", "opusparcus", "annotate", "--file", str(pairs),
                           "--annotator", "2"], input=b"4\n\xff\n3\nq\n", capture_output=True,
                          cwd=PROJECT, timeout=60, env=strict)
    assert (done.returncode, done.stderr) == (0, b"")
    assert "? unknown answer '\ufffd'" in done.stdout.decode()
    assert labels(pairs, 2) == [4, 3, None, None, None]


def test_bad_annotator(pairs):
    with pytest.raises(ValueError):
        annotate(pairs, 3, io.StringIO(""), io.StringIO())


class Terminal:
    """`python -m opusparcus annotate` on a pseudo-terminal, every wait bounded."""

    def __init__(self, path, annotator):
        self.master, slave = os.openpty()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "opusparcus", "annotate", "--file", str(path), "--annotator",
             str(annotator)], stdin=slave, stdout=slave, stderr=slave, cwd=PROJECT, env=env,
            close_fds=True)
        os.close(slave)
        self.output = ""

    def expect(self, text):
        deadline = time.monotonic() + WAIT
        while text not in self.output:
            left = deadline - time.monotonic()
            assert left > 0, f"timed out waiting for {text!r}; got {self.output!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                assert chunk, f"terminal closed before {text!r}; got {self.output!r}"
                self.output += chunk.decode("utf-8", "replace")
        before, _, self.output = self.output.partition(text)
        return before + text

    def send(self, keys):
        os.write(self.master, keys.encode())

    def close(self):
        try:
            return self.process.wait(timeout=WAIT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            os.close(self.master)


def test_end_to_end_in_a_pseudo_terminal(pairs):
    terminal = Terminal(pairs, 2)
    try:
        terminal.expect("pair 1 of 5")
        terminal.expect("> ")
        terminal.send("4\n")
        terminal.expect("pair 2 of 5")
        terminal.expect("> ")
        terminal.send("bad\n")
        terminal.expect("pair 3 of 5")
        terminal.expect("> ")
        terminal.send("q\n")
        terminal.expect("2 answered, 3 remaining")
    finally:
        assert terminal.close() == 0
    assert labels(pairs, 2) == [4, 1, None, None, None]

    terminal = Terminal(pairs, 2)
    try:
        shown = terminal.expect("> ")
        assert "pair 3 of 5 (3 left)  id en-N3" in shown and "en-N1" not in shown
        for keys, next_pair in (("3\n", "pair 4 of 5"), ("t\n", "pair 5 of 5")):
            terminal.send(keys)
            terminal.expect(next_pair)
            terminal.expect("> ")
        terminal.send("yellow\n")
        terminal.expect("3 answered, 0 remaining")
    finally:
        assert terminal.close() == 0
    assert labels(pairs, 2) == [4, 1, 3, TRASH, 2]
    assert labels(pairs, 1) == [4, 3, None, None, None]
