"""Write tests/data/rules/: one small file per rule that breaks exactly that rule.

Run it from the repository root after changing a fixture here: ``python
tests/data/make_rule_fixtures.py``. Output is deterministic (gzip without time stamps), and
``options.json`` says which fixtures need a ``location`` or ``--recursive``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

RULES_DIR = Path(__file__).resolve().parent / "rules"

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
NS = {
    "image": "http://www.google.com/schemas/sitemap-image/1.1",
    "video": "http://www.google.com/schemas/sitemap-video/1.1",
    "news": "http://www.google.com/schemas/sitemap-news/0.9",
    "xhtml": "http://www.w3.org/1999/xhtml",
    "mobile": "http://www.google.com/schemas/sitemap-mobile/1.0",
}
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'
HOST = "https://www.example.com"


def urlset(body: str, *prefixes: str, ns: str = SM) -> str:
    declarations = "".join(f'\n        xmlns:{p}="{NS[p]}"' for p in prefixes)
    return f'{DECL}<urlset xmlns="{ns}"{declarations}>\n{body}</urlset>\n'


def url(loc: str = f"{HOST}/", extra: str = "") -> str:
    return f"  <url>\n    <loc>{loc}</loc>\n{extra}  </url>\n"


def index(body: str) -> str:
    return f'{DECL}<sitemapindex xmlns="{SM}">\n{body}</sitemapindex>\n'


def entry(loc: str) -> str:
    return f"  <sitemap>\n    <loc>{loc}</loc>\n  </sitemap>\n"


VIDEO_HEAD = (
    "      <video:thumbnail_loc>https://www.example.com/t.jpg</video:thumbnail_loc>\n"
    "      <video:title>Grilling steaks</video:title>\n"
    "      <video:description>How to grill steaks</video:description>\n"
)
NEWS_FULL = (
    "    <news:news>\n      <news:publication>\n        <news:name>The Times</news:name>\n"
    "        <news:language>en</news:language>\n      </news:publication>\n"
    "      <news:publication_date>2008-12-23</news:publication_date>\n"
    "      <news:title>Merger talks</news:title>\n    </news:news>\n"
)
PADDING = 52_500_000  # just over the 52,428,800-byte limit, under the reader's cap


def padded(document: str) -> bytes:
    """``document`` grown past the size limit with comment lines (valid for the schema)."""
    head, _, tail = document.partition("\n")
    line = "<!--" + "x" * 1000 + "-->\n"
    lines = (PADDING - len(document)) // len(line) + 1
    return (head + "\n" + line * lines + tail).encode()


def many_urls(count: int, extra: str = "", *prefixes: str) -> str:
    return urlset("".join(url(f"{HOST}/p{i}", extra) for i in range(count)), *prefixes)


FIXTURES: dict[str, str | bytes] = {
    "SM-F01.xml": urlset(url() + "  <url><loc>https://www.example.com/a</loc></uri>\n"),
    "SM-F02.xml": urlset(url()).replace("UTF-8", "ISO-8859-1"),
    "SM-F03.xml": urlset(url()).removeprefix(DECL),
    "SM-F04.xml": "\ufeff" + urlset(url()),
    "SM-F05.xml.gz": padded(urlset(url())),
    "SM-F06.xml.gz": many_urls(50_001),
    "SM-U01.xml": urlset(url(), ns="https://www.sitemaps.org/schemas/sitemap/0.9"),
    "SM-U02.xml": urlset("  <url>\n    <lastmod>2005-01-01</lastmod>\n  </url>\n"),
    "SM-U03.xml": urlset(""),
    "SM-U04.xml": urlset(
        url(extra="    <priority>0.5</priority>\n    <lastmod>2005-01-01</lastmod>\n")
    ),
    "SM-U05.xml": urlset(url(extra="    <title>Home</title>\n")),
    "SM-U06.xml": urlset(
        url(
            extra="    <image:image><image:loc>https://www.example.com/i.jpg"
            "</image:loc></image:image>\n    <lastmod>2005-01-01</lastmod>\n"
        ),
        "image",
    ),
    "SM-U07.xml": urlset(url(extra="    <shop:price>10</shop:price>\n")).replace(
        "<urlset ", '<urlset xmlns:shop="https://shop.example.com/ns" '
    ),
    "SM-L01.xml": urlset(url("/relative/page.html")),
    "SM-L02.xml": urlset(url(f"{HOST}/" + "a" * 2100)),
    "SM-L03.xml": urlset(url(f"{HOST}/release notes.html")),
    "SM-L04.xml": urlset(url(f"{HOST}/catalog?item=12&desc=vacation")),
    "SM-L05.xml": urlset(url(f"{HOST}/ümlat.php")),
    "SM-L07.xml": urlset(url(f"{HOST}/") + url("https://store.example.com/")),
    "SM-L08.xml": urlset(url(f"{HOST}/catalog/page1.html") + url(f"{HOST}/images/show.html")),
    "SM-L11.xml": urlset(url(f"{HOST}/") + url(f"{HOST}/")),
    "SM-M01.xml": urlset(url(extra="    <lastmod>yesterday</lastmod>\n")),
    "SM-M02.xml": urlset(url(extra="    <lastmod>2005-02-30</lastmod>\n")),
    "SM-M03.xml": urlset(url(extra="    <lastmod>2005-01-01T18:00:15</lastmod>\n")),
    "SM-M04.xml": urlset(url(extra="    <lastmod>2005-01</lastmod>\n")),
    "SM-M05.xml": urlset(url(extra="    <lastmod>2005-01-01Z</lastmod>\n")),
    "SM-M06.xml": urlset(url(extra="    <lastmod>2005-01-01T24:00:00Z</lastmod>\n")),
    "SM-M07.xml": urlset(url(extra="    <lastmod>2999-01-01</lastmod>\n")),
    "SM-M08.xml": many_urls(20, "    <lastmod>2024-05-01T10:00:00+00:00</lastmod>\n"),
    "SM-C01.xml": urlset(url(extra="    <changefreq>Daily</changefreq>\n")),
    "SM-P01.xml": urlset(url(extra="    <priority>5E-1</priority>\n")),
    "SM-P03.xml": many_urls(3, "    <priority>1.0</priority>\n"),
    "SM-I01.xml": index(entry(f"{HOST}/sitemap1.xml") + url(f"{HOST}/page.html")),
    "SM-I02.xml": index("  <sitemap>\n    <lastmod>2005-01-01</lastmod>\n  </sitemap>\n"),
    "SM-I03.xml.gz": index("".join(entry(f"{HOST}/s{i}.xml") for i in range(50_001))),
    "SM-I04.xml.gz": padded(index(entry(f"{HOST}/sitemap1.xml"))),
    "SM-I05.xml": index(entry(f"{HOST}/sitemap1.xml") + entry("https://other.example.org/s.xml")),
    "SM-I06.xml": index(entry(f"{HOST}/public/sitemap1.xml") + entry(f"{HOST}/private/s.xml")),
    "SM-I07.xml": index(entry(f"{HOST}/support/nested-index.xml")),
    "SM-E01.xml": urlset(
        url(
            extra="    <image:image>\n      <image:loc>https://www.example.com/"
            "i.jpg</image:loc>\n      <image:caption>Salt & pepper"
            "</image:caption>\n    </image:image>\n"
        ),
        "image",
    ),
    "SM-E02.xml": urlset(url(f"{HOST}/o'brien.html")),
    "SM-S01.xml": urlset(url(f"{HOST}/shop/")),
    "SM-S02.txt": f"{HOST}/shop/page.html\n",
    "SM-S03.xml": urlset(url("http://localhost:9/page.html")),
    "SM-T01.txt": b"https://www.example.com/caf\xe9.html\n",
    "SM-T02.txt": f"{HOST}/a.html {HOST}/b.html\n",
    "SM-T03.txt": "www.example.com/page.html\n",
    "SM-T04.txt.gz": "".join(f"{HOST}/p{i}\n" for i in range(50_001)),
    "SM-T05.txt": f"# pages of example.com\n{HOST}/\n",
    "SM-D01.xml": f'{DECL}<rss version="2.0">\n  <channel>\n    <title>News</title>\n'
    f"    <link>{HOST}/</link>\n    <item>\n      <title>No link here</title>\n"
    "    </item>\n  </channel>\n</rss>\n",
    "SM-D03.xml": f'{DECL}<feed xmlns="http://www.w3.org/2005/Atom">\n  <title>News</title>\n'
    f'  <entry>\n    <title>Post</title>\n    <link href="{HOST}/post"/>\n'
    "  </entry>\n</feed>\n",
    "SM-V04.xml": urlset(url()).replace(
        "<urlset ",
        '<urlset xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xsi:schemaLocation="{SM} http://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd" ',
    ),
    "SM-IMG-01.xml": urlset(
        url(
            extra="    <image:image>\n      <image:caption>A view"
            "</image:caption>\n    </image:image>\n"
        ),
        "image",
    ),
    "SM-IMG-02.xml.gz": urlset(
        url(
            extra="".join(
                f"    <image:image><image:loc>{HOST}/i{i}.jpg</image:loc></image:image>\n"
                for i in range(1_001)
            )
        ),
        "image",
    ),
    "SM-IMG-03.xml": urlset(
        url(
            extra="    <image:image>\n      <image:loc>https://www.example."
            "com/i.jpg</image:loc>\n      <image:title>A view</image:title>"
            "\n    </image:image>\n"
        ),
        "image",
    ),
    "SM-VID-01.xml": urlset(
        url(
            extra="    <video:video>\n"
            + VIDEO_HEAD
            + "      <video:content_loc>https://www.example.com/v.mp4"
            "</video:content_loc>\n      <video:platform relationship="
            '"allow">web</video:platform>\n      <video:live>no</video:live>\n'
            "      <video:family_friendly>yes</video:family_friendly>\n"
            "    </video:video>\n"
        ),
        "video",
    ),
    "SM-VID-02.xml": urlset(
        url(extra="    <video:video>\n" + VIDEO_HEAD + "    </video:video>\n"), "video"
    ),
    "SM-VID-03.xml": urlset(
        url(
            extra="    <video:video>\n"
            + VIDEO_HEAD
            + "      <video:player_loc>https://www.example.com/player"
            "</video:player_loc>\n      <video:category>Grilling"
            "</video:category>\n    </video:video>\n"
        ),
        "video",
    ),
    "SM-NEWS-01.xml": urlset(
        url(extra=NEWS_FULL.replace("        <news:language>en</news:language>\n", "")), "news"
    ),
    "SM-NEWS-02.xml.gz": many_urls(1_001, NEWS_FULL, "news"),
    "SM-HREF-01.xml": urlset(
        url(extra='    <xhtml:link rel="alternate" href="https://www.example.de/"/>\n'), "xhtml"
    ),
    "SM-MOB-01.xml": urlset(url(extra="    <mobile:mobile>yes</mobile:mobile>\n"), "mobile"),
    "SM-FETCH-01.xml": index(entry(f"{HOST}/missing-sitemap.xml")),
    "support/nested-index.xml": index(entry(f"{HOST}/support/child.xml")),
    "support/child.xml": urlset(url(f"{HOST}/support/page.html")),
}

OPTIONS = {
    "SM-L08.xml": {"location": f"{HOST}/catalog/sitemap.xml"},
    "SM-I06.xml": {"location": f"{HOST}/public/sitemap_index.xml"},
    "SM-I07.xml": {"location": f"{HOST}/sitemap_index.xml", "recursive": True},
    "SM-S01.xml": {"location": f"{HOST}/shop/sitemap.xml"},
    "SM-S02.txt": {"location": f"{HOST}/shop/sitemap.txt"},
    "SM-S03.xml": {"location": "http://127.0.0.1:9/sitemap.xml", "fetch": True},
    "SM-FETCH-01.xml": {"location": f"{HOST}/sitemap_index.xml", "recursive": True},
}


def main() -> None:
    for name, content in FIXTURES.items():
        path = RULES_DIR / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode() if isinstance(content, str) else content
        if name.endswith(".gz"):
            data = gzip.compress(data, compresslevel=9, mtime=0)
        path.write_bytes(data)
    (RULES_DIR / "options.json").write_text(json.dumps(OPTIONS, indent=2) + "\n")


if __name__ == "__main__":
    main()
