"""What `serve` (of `python -m tapaco` and `python -m opusparcus`) does: decide what the file
holds, prepare it, print the links, serve.

`--file` may be an annotation file (`sample`'s output: pairs), a set annotation file, or a
TaPaCo language file: then `--sets` sets drawn from it (seeded) are written to a set annotation
file (`--labels`, default `<name>-sets.tsv` beside it) the first time, and that file is resumed
afterwards. Before serving, the file is checked to be one that answers can be saved in (its
folder writable, room for a new copy). The server binds 127.0.0.1 unless `--host` says
otherwise.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tapaco.core.annotation.pairs import ANSWER_BYTES, malformed, read_annotations
from tapaco.core.annotation.pairs import HEADER as PAIR_HEADER
from tapaco.core.annotation.sets import HEADER as SET_HEADER
from tapaco.core.annotation.sets import (
    is_set_annotation_file,
    read_language_file,
    read_set_annotations,
    sample_sets,
    set_annotations_text,
)
from tapaco.core.annotation.web.addresses import machine_addresses
from tapaco.core.annotation.web.tasks import PairTask, SetTask, Task
from tapaco.core.disk import check_updatable
from tapaco.core.errors import cannot_write, usage_error
from tapaco.core.files import read_plain_text
from tapaco.core.outputs import MANIFEST, OutputFile

LOOPBACK_NAMES = ["127.0.0.1", "localhost"]


@dataclass(frozen=True)
class ServeOptions:
    file: Path
    annotators: int = 2
    host: str = "127.0.0.1"
    port: int = 8000
    labels: Path | None = None
    sets: int | None = 100
    seed: int = 0
    program: str = "opusparcus"  # the program running it, named in its messages


def _first_line(path: Path) -> list[str]:
    line = read_plain_text(path, "annotation files written by sample, TaPaCo language files "
                                 "and set annotation files", first_line_only=True)
    return line.rstrip("\n").split("\t")


def default_labels_path(language_file: Path) -> Path:
    """`<name>-sets.tsv` beside the language file; beside its folder (`OUT-<name>-sets.tsv`) when
    that folder is a command's output, which must keep only that command's files (the next
    `tapaco build --out OUT` would refuse it)."""
    folder = language_file.absolute().parent
    if (folder / MANIFEST).is_file():
        return folder.with_name(f"{folder.name}-{language_file.stem}-sets.tsv")
    return language_file.with_name(f"{language_file.stem}-sets.tsv")


def _set_task_from_language_file(options: ServeOptions, out: TextIO) -> SetTask:
    labels = options.labels or default_labels_path(options.file)
    language = options.file.stem
    if labels.exists() and is_set_annotation_file(labels):
        read_set_annotations(labels)
        print(f"resuming the set annotations in {labels}", file=out)
        return SetTask(labels, language)
    output = OutputFile(labels, f"{options.program} serve", (options.file,), option="--labels")
    output.check()
    members = sample_sets(read_language_file(options.file), options.sets, options.seed)
    if not members:
        raise usage_error(options.file, "holds no paraphrase set")
    try:
        output.write(set_annotations_text(members))
    except OSError as error:
        raise cannot_write(labels.absolute().parent, error) from None
    count = len({m.set_id for m in members})
    print(f"wrote {count} sets ({len(members)} sentences) to check to {labels}", file=out)
    return SetTask(labels, language)


def open_task(options: ServeOptions, out: TextIO = sys.stderr) -> Task:
    """The task `--file` asks for, its file checked (and, for sets, written) before serving."""
    header = _first_line(options.file)
    if header == PAIR_HEADER:
        if not read_annotations(options.file):
            raise usage_error(options.file, "holds no pair to annotate")
        return PairTask(options.file)
    if header == SET_HEADER:
        if not read_set_annotations(options.file):
            raise usage_error(options.file, "holds no set to check")
        return SetTask(options.file)
    if len(header) == 5:
        return _set_task_from_language_file(options, out)
    raise malformed(options.file, "is neither an annotation file (sample's output), a set "
                    "annotation file nor a TaPaCo language file", "line 1")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """A listening socket, bound before any link is printed (port 0: any free port)."""
    try:
        family, kind, protocol = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][:3]
        # with protocol 0, asyncio would not set TCP_NODELAY on accepted connections, and
        # every response would wait ~40 ms for the browser's delayed ACK
        server = socket.socket(family, kind, protocol)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        server.bind((host, port))
        server.listen(64)
    except OSError as error:
        raise usage_error(f"{host}:{port}",
                          f"cannot listen there: {error.strerror or error}") from None
    return server


WILDCARDS = ("0.0.0.0", "::")


def listened_addresses(host: str, addresses: list[str]) -> list[str]:
    """Which of this machine's `addresses` a server on every address listens on, the ones to
    name first first: `0.0.0.0` listens on IPv4 only, `::` on IPv6 (and IPv4 where the system
    maps it, as Linux does by default)."""
    ipv6 = [address for address in addresses if ":" in address]
    ipv4 = [address for address in addresses if ":" not in address]
    return ipv4 if host == "0.0.0.0" else ipv6 + ipv4


def links(host: str, port: int, tokens: dict[int, str]) -> dict[int, str]:
    shown = f"[{host}]" if ":" in host else host
    return {annotator: f"http://{shown}:{port}/a/{token}/" for annotator, token in
            tokens.items()}


def reachable_host(host: str, addresses: list[str], out: TextIO) -> str:
    """The host the links name for a server on `host`: itself, or for a server on every
    address the first of this machine's `addresses` it listens on (said on `out`, with the
    others), else the machine's name (and that annotators need one that reaches it)."""
    if host not in WILDCARDS:
        return host
    listened = listened_addresses(host, addresses)
    name = socket.gethostname()
    if not listened:
        print(f"listening on every address of this machine, but it has none but loopback: the "
              f"links name it {name}; give the annotators a name or address of it that their "
              "machines reach", file=out)
        return name
    others = f" (or {', '.join(listened[1:])})" if len(listened) > 1 else ""
    print(f"listening on every address of this machine: the links use {listened[0]}{others}; "
          f"its name {name} works too where it resolves to one of them", file=out)
    return listened[0]


def serve(options: ServeOptions, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
    """Prepare the file, print one private link per annotator and serve until interrupted."""
    import uvicorn

    from tapaco.core.annotation.web.app import create_app
    from tapaco.core.annotation.web.desk import Desk, new_tokens

    task = open_task(options, err)
    check_updatable(task.path, ANSWER_BYTES * task.path.read_bytes().count(b"\n"))
    server_socket = listen(options.host, options.port)
    port = server_socket.getsockname()[1]
    tokens = new_tokens(options.annotators)
    loopback = is_loopback(options.host)
    if not loopback:
        print(f"warning: serving on {options.host}, not only this machine: anyone who can "
              "reach this port and holds a link can annotate, over plain HTTP (across networks "
              "use an SSH tunnel or a TLS proxy instead)", file=err)
    app = create_app(Desk(task, tokens), [*LOOPBACK_NAMES, options.host] if loopback else None)
    print(f"serving {task.mode} of {task.path}; answers are saved there at once", file=err)
    addresses = machine_addresses() if options.host in WILDCARDS else []
    shown = reachable_host(options.host, addresses, err)
    for annotator, link in links(shown, port, tokens).items():
        print(f"annotator {annotator}: {link}", file=out)
    out.flush()
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[server_socket])
