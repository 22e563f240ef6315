"""The README's links lead somewhere. The guides' site checks its own pages' links and
headings when `.ci/run` builds it strict; the README is not part of the site, so its
relative links (to the guides and their headings) are checked here."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.MULTILINE)


def slug(heading: str) -> str:
    """A heading's anchor as the site makes it (Python-Markdown's toc slugify)."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    return {slug(heading.replace("`", "")) for heading in HEADING.findall(text)}


def test_every_relative_link_of_the_readme_leads_to_a_file_and_heading() -> None:
    readme = REPOSITORY / "README.md"
    links = [link for link in LINK.findall(readme.read_text(encoding="utf-8")) if "://" not in link]
    assert links, "the README links to no guide"
    broken = []
    for link in links:
        path, _, anchor = link.partition("#")
        target = REPOSITORY / path
        if not target.is_file():
            broken.append(f"{link}: no file {path}")
        elif anchor and anchor not in anchors(target):
            broken.append(f"{link}: {path} has no heading #{anchor}")
    assert not broken, "\n".join(broken)


def test_the_anchor_rule_matches_the_sites() -> None:
    assert slug("9. Bots in the lobby's rooms") == "9-bots-in-the-lobbys-rooms"
    assert slug("Narrow screens (a phone)") == "narrow-screens-a-phone"


def test_the_readme_stays_short() -> None:
    """What gameroom is, the set-up, one example per user (docs/CONVENTIONS.md): the rest
    belongs in the guides."""
    lines = (REPOSITORY / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 250, f"README.md has {lines} lines; move the detail to the user's guide"
