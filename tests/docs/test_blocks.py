"""The collector's rules (tests/docs/blocks.py) on small pages: what is run, written or
skipped, what is refused, and how ports are found and replaced."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.blocks import PageError, background_ports, blocks, ports, with_ports

PAGE = """# A page

```sh
gameroom serve fish --port 45680 &
curl -fsS http://127.0.0.1:8000/
```

- a step in a list:

  <!-- file: bots.toml -->
  ```toml
  [[bots]]
  ```

<!-- illustrative: a synopsis -->
```sh
gameroom league GAME --bots FILE
```

```python
print("45680")
```
"""


def write(tmp_path: Path, text: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    return page


def test_each_block_gets_its_action_and_line(tmp_path: Path) -> None:
    found = blocks(write(tmp_path, PAGE))
    assert [(b.action, b.language, b.line, b.argument) for b in found] == [
        ("run", "sh", 3, ""), ("file", "toml", 11, "bots.toml"), ("illustrative", "sh", 16, "a synopsis"),
        ("run", "python", 20, "")]
    assert found[1].text == "[[bots]]\n"   # de-indented as a reader sees it


def test_ports_are_found_in_run_and_file_blocks_and_replaced_everywhere(tmp_path: Path) -> None:
    found = blocks(write(tmp_path, PAGE))
    assert ports(found) == [45680, 8000]
    mapping = {45680: 20001, 8000: 20002}
    assert with_ports(found[0].text, mapping) == ("gameroom serve fish --port 20001 &\n"
                                                  "curl -fsS http://127.0.0.1:20002/\n")
    assert with_ports('print("45680")', mapping) == 'print("20001")'
    assert with_ports("--games 145680 1.45680", mapping) == "--games 145680 1.45680"   # not a port


def test_a_background_line_waits_for_the_ports_it_or_its_files_name() -> None:
    mapping = {45680: 20001, 8100: 20003}
    assert background_ports("gameroom serve fish --port 20001 &", mapping, "--port 20001") == [20001]
    assert background_ports("gameroom arena --config a.toml &", mapping, 'listen = "127.0.0.1:20003"') == [20003]
    assert background_ports("true && gameroom play q --port 20001", mapping, "20001") == []
    assert background_ports("a && b &&", mapping, "20001") == []


@pytest.mark.parametrize("text, message", [
    ("```toml\n[[bots]]\n```\n", "neither run nor marked"),
    ("    gameroom play q\n", "indented code block"),
    ("<!-- illustrative -->\n```sh\nls\n```\n", "say why"),
    ("<!-- file: /etc/passwd -->\n```toml\nx\n```\n", "relative path"),
    ("<!-- illustrative: why -->\n\nSome words.\n\n```sh\nls\n```\n", "not followed by a fenced block"),
])
def test_a_block_the_rules_cannot_place_is_refused_with_its_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(PageError, match=message):
        blocks(write(tmp_path, text))
