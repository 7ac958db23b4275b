"""A small real site with every trap a crawler meets, served by :class:`FaultServer`.

Each page is a route of the fault server, so the tests can read its request log: what was
asked for, and how often. ``EXPECTED_LISTED`` and ``EXPECTED_EXCLUDED`` say what a crawl from
``/`` with ``max_per_pattern=10`` must give.
"""

from __future__ import annotations

from tests.fault_server import FaultServer

LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"
CALENDAR_MONTHS = 120  # "endless" for the test: far more than the cap lets through
CHAIN = 30


def page(title: str, *links: str, head: str = "", body: str = "") -> str:
    anchors = "".join(f'<a href="{link}">{link}</a>\n' for link in links)
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head>"
        f"<body>{anchors}{body}</body></html>"
    )


def chain_name(step: int) -> str:
    """Letters only, so the chain is not one URL pattern (digits would make it one)."""
    return "abcdefghijklmnopqrstuvwxyz"[step // 26] + "abcdefghijklmnopqrstuvwxyz"[step % 26]


def month(index: int) -> str:
    return f"/calendar/{2024 + index // 12}/{index % 12 + 1}"


HTML = {"Content-Type": "text/html; charset=utf-8"}


def build(server: FaultServer) -> None:
    add = server.add

    def html(path: str, text: str, **kwargs: object) -> None:
        headers = {**HTML, **kwargs.pop("headers", {})}  # type: ignore[dict-item]
        add(path, text, headers=headers, **kwargs)

    add(
        "/robots.txt",
        "User-agent: *\nDisallow: /private/\n\nSitemap: /sitemap.xml\n",
        headers={"Content-Type": "text/plain"},
    )
    add(
        "/sitemap.xml",
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{server.base}/orphan.html</loc></url></urlset>",
        headers={"Content-Type": "application/xml"},
    )
    html(
        "/",
        page(
            "Home",
            "/about.html",
            "/about.html#team",
            "/private/secret.html",
            "/noindex-meta.html",
            "/noindex-header.html",
            "/noindex-follow.html",
            "/dup.html",
            "/old",
            "/missing.html",
            "/broken",
            "http://external.example/page",
            "/page.html?PHPSESSID=abc123&x=1",
            "/page.html;jsessionid=XYZ?x=1",
            "/docs/",
            "/frames.html",
            f"/chain/{chain_name(1)}",
            month(0),
            "/slow.html",
            "/reset.html",
            "/file.pdf",
            "mailto:someone@example.com",
            "javascript:void(0)",
            head='<link rel="alternate" hreflang="de" href="/de/">',
            body='<a rel="nofollow" href="/hidden-nofollow.html">n</a>'
            '<map name="m"><area href="/area.html" alt="a"></map>'
            '<img src="/img/logo.png">',
        ),
    )
    html(
        "/about.html",
        page(
            "About us",
            "/",
            head='<link rel="alternate" hreflang="en" href="/about.html">'
            '<link rel="alternate" hreflang="fr" href="/fr/about.html">',
            body='<img src="/img/team.jpg"><img src="https://cdn.example.net/x.png">',
        ),
        headers={"Last-Modified": LAST_MODIFIED},
    )
    html("/private/secret.html", page("Secret"))
    html(
        "/noindex-meta.html",
        page("NI", head='<meta name="googlebot" content="noindex">'),
    )
    html("/noindex-header.html", page("NIH"), headers={"X-Robots-Tag": "noindex"})
    html(
        "/noindex-follow.html",
        page("NIF", "/from-noindex.html", head='<meta name="robots" content="noindex, follow">'),
    )
    html("/from-noindex.html", page("Found on a noindex page"))
    html("/dup.html", page("Dup", head='<link rel="canonical" href="/original.html">'))
    html("/original.html", page("Original", head='<link rel="canonical" href="/original.html">'))
    add("/old", status=301, headers={"Location": "/new.html"})
    html("/new.html", page("New"))
    add("/broken", status=500, body=b"oops")
    html("/page.html", page("Page"))
    html(
        "/docs/",
        page("Docs", "intro.html", "../v2/intro.html#x", head='<base href="/docs/v2/">'),
    )
    html("/docs/v2/intro.html", page("Intro"))
    html(
        "/frames.html",
        '<html><head><title>Frames</title></head><frameset><frame src="/frame-a.html">'
        "</frameset><body><iframe src='/frame-b.html'></iframe></body></html>",
    )
    html("/frame-a.html", page("A"))
    html("/frame-b.html", page("B"))
    html("/area.html", page("Area"))
    html("/hidden-nofollow.html", page("Hidden"))
    html("/orphan.html", page("Orphan"))
    html("/slow.html", page("Slow", "/after-slow.html"), stall=0.4)
    html("/after-slow.html", page("After slow"))
    html("/reset.html", page("Reset") + " " * 2000, reset=True)
    add("/file.pdf", b"%PDF-1.4 fake", headers={"Content-Type": "application/pdf"})
    for step in range(1, CHAIN + 1):
        next_link = (f"/chain/{chain_name(step + 1)}",) if step < CHAIN else ()
        html(f"/chain/{chain_name(step)}", page(f"Chain {step}", *next_link))
    for index in range(CALENDAR_MONTHS):
        around = (month(index + 1), month(index - 1)) if index else (month(index + 1),)
        html(month(index), page(f"Month {index}", *around))


def expected_listed(base: str) -> set[str]:
    paths = {
        "/",
        "/about.html",
        "/from-noindex.html",
        "/original.html",
        "/new.html",
        "/page.html?x=1",
        "/docs/",
        "/docs/v2/intro.html",
        "/frames.html",
        "/frame-a.html",
        "/frame-b.html",
        "/area.html",
        "/slow.html",
        "/after-slow.html",
    }
    paths |= {f"/chain/{chain_name(step)}" for step in range(1, CHAIN + 1)}
    paths |= {month(index) for index in range(11)}  # the first month and 10 more (the cap)
    return {base + path for path in paths}


EXPECTED_EXCLUDED = {
    "/private/secret.html": "robots-txt",
    "/noindex-meta.html": "noindex",
    "/noindex-header.html": "noindex",
    "/noindex-follow.html": "noindex",
    "/dup.html": "canonical",
    "/old": "redirect",
    "/missing.html": "http-4xx",
    "/broken": "http-5xx",
    "/reset.html": "fetch-error",
    "/file.pdf": "content-type",
    "/calendar/2024/12": "max-per-pattern",
}
