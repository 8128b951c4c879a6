"""Lumin carries its own sources: the rulebooks and decisions the games implement live in
``docs/rules/``, and everything in the repository that cites one cites a file it holds.

``../shared/rules/`` (beside the checkout) stays the source: where it exists, every file in it
must have a byte-for-byte copy of the same name in ``docs/rules/``. A clone elsewhere has no
``../shared`` and skips that check. Wherever it runs, every rulebook or decisions file cited in
the docs, the code and the tests must be in ``docs/rules/``, and nothing may cite the design
document or ``shared/`` outside the repository (the design as built is ``docs/architecture.md``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
SHARED_RULES = ROOT.parent / "shared" / "rules"
GAMES = ("flash8", "flip-over-frog", "neon-flip", "neon-hex")

#: Where citations are looked for: (folder, file name suffix), every depth below the folder.
SCANNED = (
    ("docs", ".md"),
    ("engine", ".py"),
    ("server", ".py"),
    ("protocol", ".py"),
    ("tests", ".py"),
    ("clients", ".py"),
    ("clients/web/src", ".ts"),
    ("clients/web/src", ".css"),
    # beyond the folders the issue names: everything else that cites rules
    ("clients/web/tests", ".ts"),
    ("lumin", ".py"),
    ("scripts", ".py"),
    ("benchmarks", ".py"),
)
SKIPPED_DIRS = frozenset({"node_modules", "dist", ".venv", "__pycache__"})

#: ``flash8.rulebook.txt``, ``neon-hex.decisions.md`` and the short ``flash8.decisions 5``.
SOURCE_NAME = re.compile(
    r"(?<![\w.-])([a-z0-9][a-z0-9_-]*)\.(rulebook\.txt|decisions\.md|decisions)\b"
)
#: The design document, as ``DESIGN.md`` or ``DESIGN "The engine contract"``.
DESIGN = re.compile(r"\bDESIGN(?:\.md)?\b")
#: A path into ``shared/`` beside the checkout: ``shared/rules/...``, ``../shared``.
SHARED = re.compile(r"\.\./shared\b|/work/shared\b|(?<![\w./-])shared/")


def scanned_files() -> Iterator[Path]:
    """README.md and every file of :data:`SCANNED`, skipping build output and environments.
    This module is left out: it names the patterns it looks for."""
    yield ROOT / "README.md"
    seen: set[Path] = set()
    for folder, suffix in SCANNED:
        for top, dirs, files in os.walk(ROOT / folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            for name in sorted(files):
                path = Path(top) / name
                if name.endswith(suffix) and path not in seen and path != Path(__file__).resolve():
                    seen.add(path)
                    yield path


def citations() -> Iterator[tuple[str, int, str, str]]:
    """``(file, line number, line, problem)`` for every citation that does not resolve."""
    for path in scanned_files():
        where = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in SOURCE_NAME.finditer(line):
                kind = "rulebook.txt" if match[2] == "rulebook.txt" else "decisions.md"
                name = f"{match[1]}.{kind}"
                if not (RULES / name).is_file():
                    yield where, number, line, f"cites {match[0]}, but docs/rules/{name} is absent"
            if DESIGN.search(line):
                yield (
                    where,
                    number,
                    line,
                    "cites the design document, which is not in the repository; "
                    "cite docs/architecture.md (the design as built) instead",
                )
            for match in SHARED.finditer(line):
                yield (
                    where,
                    number,
                    line,
                    f"cites {match[0]} (../shared beside the checkout), which a clone does not "
                    "hold; cite the copy in docs/rules/ instead",
                )


def test_every_cited_source_is_in_the_repository() -> None:
    broken = [
        f"{where}:{number}: {problem}\n    {line.strip()}"
        for where, number, line, problem in citations()
    ]
    assert not broken, "citations that do not resolve inside Lumin:\n" + "\n".join(broken)


def test_the_scan_finds_the_citations_it_looks_for() -> None:
    # a pattern that matched nothing would pass the test above without checking anything
    found: set[str] = set()
    for path in scanned_files():
        for match in SOURCE_NAME.finditer(path.read_text(encoding="utf-8")):
            found.add(f"{match[1]}.{match[2]}")
    for game in GAMES:
        assert f"{game}.rulebook.txt" in found, game
        assert f"{game}.decisions.md" in found, game
    assert DESIGN.search('see DESIGN.md and DESIGN "Rooms"')
    assert SHARED.search("`shared/rules/flash8.rulebook.txt`")
    assert SHARED.search("../shared")
    assert not SHARED.search("a shared victory, clients/web/src/shared/x.ts")


def test_each_rules_document_cites_its_sources_in_docs_rules() -> None:
    for game in GAMES:
        text = (RULES / f"{game}.md").read_text(encoding="utf-8")
        for source in (f"docs/rules/{game}.rulebook.txt", f"docs/rules/{game}.decisions.md"):
            assert (ROOT / source).is_file(), source
            assert f"`{source}`" in text, f"docs/rules/{game}.md does not cite {source}"


@pytest.mark.skipif(
    not SHARED_RULES.is_dir(),
    reason=f"no {SHARED_RULES} beside the repository (a clone elsewhere): "
    "the copies in docs/rules/ cannot be compared with their source",
)
def test_docs_rules_holds_an_identical_copy_of_every_source() -> None:
    problems = []
    sources = sorted(path for path in SHARED_RULES.iterdir() if path.is_file())
    assert sources, f"{SHARED_RULES} holds no files"
    for source in sources:
        copy = RULES / source.name
        refresh = f"cp ../shared/rules/{source.name} docs/rules/ (from the repository root)"
        if not copy.is_file():
            problems.append(f"{source.name} has no copy in docs/rules/; refresh: {refresh}")
        elif copy.read_bytes() != source.read_bytes():
            problems.append(f"docs/rules/{source.name} differs from its source; refresh: {refresh}")
    names = {source.name for source in sources}
    for copy in sorted(RULES.glob("*")):
        if copy.name.endswith((".rulebook.txt", ".decisions.md")) and copy.name not in names:
            problems.append(
                f"docs/rules/{copy.name} has no source in {SHARED_RULES}; "
                f"git rm docs/rules/{copy.name} if its source is gone"
            )
    assert not problems, "\n".join(problems)
