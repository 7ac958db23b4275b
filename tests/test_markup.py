from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from sitemapkit.markup import escape, format_priority, render_index, urlset_open
from sitemapkit.model import IMAGE_NS, PROTOCOL_084, PROTOCOL_09, XHTML_NS, SitemapRef

# Characters XML 1.0 allows in a document.
xml_chars = st.characters(
    codec="utf-8",
    exclude_categories=("Cs",),
    exclude_characters="".join(chr(c) for c in range(32) if c not in (9, 10, 13)) + "\ufffe\uffff",
)


@given(st.text(alphabet=xml_chars))
def test_escaping_round_trips_every_character_xml_allows(text: str) -> None:
    document = f"<a>{escape(text)}</a>".encode()
    parsed = etree.fromstring(document, etree.XMLParser(resolve_entities=False))
    # XML turns CR and CRLF into LF when parsing: that is XML, not escaping.
    assert (parsed.text or "") == text.replace("\r\n", "\n").replace("\r", "\n")


def test_escape_covers_all_five() -> None:
    assert escape("&<>'\"") == "&amp;&lt;&gt;&apos;&quot;"


def test_format_priority() -> None:
    assert [format_priority(p) for p in (0, 0.5, 1, 0.125, 0.33333)] == [
        "0.0",
        "0.5",
        "1.0",
        "0.125",
        "0.3333",
    ]


def test_namespaces_declared_only_when_used() -> None:
    plain = urlset_open(PROTOCOL_09)
    assert "xmlns:" not in plain
    extended = urlset_open(PROTOCOL_09, [XHTML_NS, IMAGE_NS])
    assert f'xmlns:image="{IMAGE_NS}"' in extended
    assert f'xmlns:xhtml="{XHTML_NS}"' in extended
    assert "xmlns:video" not in extended
    assert PROTOCOL_084.namespace in urlset_open(PROTOCOL_084)


def test_render_index() -> None:
    text = render_index(
        PROTOCOL_09,
        [SitemapRef("https://e.com/a?x=1&y=2", "2024-05-01"), SitemapRef("https://e.com/b")],
    )
    root = etree.fromstring(text.encode())
    locs = [el.text for el in root.iter(f"{{{PROTOCOL_09.namespace}}}loc")]
    assert locs == ["https://e.com/a?x=1&y=2", "https://e.com/b"]
    assert text.count("<lastmod>") == 1
