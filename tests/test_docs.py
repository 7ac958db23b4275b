"""Every command is documented, and the documentation's examples run."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapkit.cli import cli

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_command_has_a_page_and_a_readme_mention(command: str) -> None:
    page = REPO / "docs" / f"{command}.md"
    assert page.is_file(), f"docs/{command}.md is missing"
    assert f"sitemapkit {command}" in page.read_text()
    assert f"sitemapkit {command}" in (REPO / "README.md").read_text()


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_option_is_documented(command: str) -> None:
    text = (REPO / "docs" / f"{command}.md").read_text()
    for parameter in cli.commands[command].params:
        for option in getattr(parameter, "opts", []):
            if option.startswith("--") and option != "--help":
                assert option in text, f"{option} of {command} is not in docs/{command}.md"
