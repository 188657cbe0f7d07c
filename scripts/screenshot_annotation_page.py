"""Screenshot the annotation page (`opusparcus serve`) as annotator 1 sees it, for the README.

Serves `--file` on a free loopback port, opens annotator 1's link in Chromium (Debian's package,
driven by Playwright) at a desktop and a phone size, and writes `OUT-desktop.png` and
`OUT-phone.png`. Nothing is answered, so the file is left as it was.

    python scripts/screenshot_annotation_page.py --file fr-sample.tsv --out docs/annotation-page
"""

from __future__ import annotations

import argparse
import shutil
import threading
from pathlib import Path

import uvicorn
from playwright.sync_api import expect, sync_playwright

from tapaco.core.annotation.web.app import create_app
from tapaco.core.annotation.web.desk import Desk, new_tokens
from tapaco.core.annotation.web.serve import LOOPBACK_NAMES, ServeOptions, listen, open_task

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
SIZES = {"desktop": (1000, 400), "phone": (390, 560)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, required=True, help="annotation file to show")
    parser.add_argument("--out", type=Path, required=True, help="prefix of the PNG files")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    arguments = parser.parse_args()
    tokens = new_tokens(1)
    app = create_app(Desk(open_task(ServeOptions(arguments.file)), tokens), LOOPBACK_NAMES)
    server_socket = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [server_socket]})
    thread.start()
    link = f"http://127.0.0.1:{server_socket.getsockname()[1]}/a/{tokens[1]}/"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=arguments.chromium,
                                                 args=CHROMIUM_FLAGS)
            for name, (width, height) in SIZES.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(link)
                expect(page.locator("#sentence1")).not_to_be_empty()
                path = arguments.out.with_name(f"{arguments.out.name}-{name}.png")
                path.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=path)
                print(f"wrote {path}")
            browser.close()
    finally:
        server.should_exit = True
        thread.join()


if __name__ == "__main__":
    main()
