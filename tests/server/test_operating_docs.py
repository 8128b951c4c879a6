"""docs/operating.md says what the server and its deploy files do now: the service and the
image set no ``LUMIN_STATIC`` (the packaged client is served by default), ``--static``'s
default is that client, and ``lumin admin`` finds its server in the order
:func:`lumin.server_option.server_url` uses, with a link to docs/install.md for the rest."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPERATING = (ROOT / "docs" / "operating.md").read_text()


def test_no_deploy_file_sets_lumin_static_and_the_docs_say_none_does() -> None:
    for name in ("deploy/lumin.service", "deploy/Dockerfile"):
        assert "LUMIN_STATIC=" not in (ROOT / name).read_text(), name
    assert "LUMIN_STATIC=" not in OPERATING, "the service and the image set no LUMIN_STATIC"
    [row] = [line for line in OPERATING.splitlines() if line.startswith("| `--static` |")]
    assert "| none |" not in row and "the client this install carries" in row


def test_lumin_admin_finds_its_server_in_the_order_the_command_uses() -> None:
    start = OPERATING.index("**`lumin admin`** is the same API at a terminal")
    paragraph = OPERATING[start : OPERATING.index("```", start)]
    order = ["URL argument", "`--url URL` anywhere", "`LUMIN_ADMIN_URL`", "`LUMIN_URL`"]
    order.append("`http://127.0.0.1:8700`")
    places = [paragraph.find(source) for source in order]
    assert -1 not in places and places == sorted(places), dict(zip(order, places, strict=True))
    assert "either scheme" in paragraph.lower() and "answered by" in paragraph
    assert "standard error" in paragraph


def test_operating_links_to_the_install_page() -> None:
    assert re.search(r"\]\(install\.md\)", OPERATING)
