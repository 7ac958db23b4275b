"""URL sources, fetched trees and robots.txt cross-submission, on real servers on 127.0.0.1."""

from __future__ import annotations

import gzip

import pytest
from pytest_httpserver import HTTPServer

from sitemapkit.errors import FetchError
from sitemapkit.validate import validate
from sitemapkit.validate.fetch import UrllibFetcher, parse_robots_sitemaps

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


def urlset(*locs: str) -> str:
    body = "".join(f"  <url><loc>{loc}</loc></url>\n" for loc in locs)
    return f'{DECL}<urlset xmlns="{SM}">\n{body}</urlset>\n'


def index(*locs: str) -> str:
    body = "".join(f"  <sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    return f'{DECL}<sitemapindex xmlns="{SM}">\n{body}</sitemapindex>\n'


def test_a_url_is_its_own_location(httpserver: HTTPServer) -> None:
    base = httpserver.url_for("/")
    httpserver.expect_request("/shop/sitemap.xml").respond_with_data(
        urlset(f"{base}shop/a", f"{base}blog/b"), content_type="application/xml"
    )
    report = validate(httpserver.url_for("/shop/sitemap.xml"))
    assert report.files == [httpserver.url_for("/shop/sitemap.xml")]
    rules = [issue.rule for issue in report.issues]
    assert rules == ["SM-S01", "SM-L08"]
    assert "(d) it is not under the sitemap's folder /shop/" in report.errors[0].message


def test_gzip_over_http_and_redirects(httpserver: HTTPServer) -> None:
    base = httpserver.url_for("/")
    httpserver.expect_request("/old.xml").respond_with_data(
        "", status=301, headers={"Location": httpserver.url_for("/sitemap.xml.gz")}
    )
    httpserver.expect_request("/sitemap.xml.gz").respond_with_data(
        gzip.compress(urlset(f"{base}a").encode()), content_type="application/gzip"
    )
    report = validate(httpserver.url_for("/old.xml"))
    assert report.ok, [str(issue) for issue in report.issues]
    assert report.urls == 1


def test_unreachable_source_raises_fetch_error(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/gone.xml").respond_with_data("no", status=404)
    with pytest.raises(FetchError) as error:
        validate(httpserver.url_for("/gone.xml"))
    assert error.value.status == 404


def test_recursive_over_http_reports_unfetchable_and_nested(httpserver: HTTPServer) -> None:
    base = httpserver.url_for("/")
    httpserver.expect_request("/index.xml").respond_with_data(
        index(f"{base}one.xml", f"{base}missing.xml", f"{base}nested.xml")
    )
    httpserver.expect_request("/one.xml").respond_with_data(urlset(f"{base}p1", f"{base}p2"))
    httpserver.expect_request("/missing.xml").respond_with_data("", status=500)
    httpserver.expect_request("/nested.xml").respond_with_data(index(f"{base}two.xml"))
    httpserver.expect_request("/two.xml").respond_with_data(urlset(f"{base}p2", f"{base}p3"))
    report = validate(httpserver.url_for("/index.xml"), recursive=True)
    assert len(report.files) == 4
    assert report.urls == 4
    found = {(issue.rule, issue.line) for issue in report.issues}
    assert ("SM-FETCH-01", 4) in found  # missing.xml, on its line of the index
    assert ("SM-I07", 5) in found  # nested.xml is an index
    [duplicate] = [issue for issue in report.issues if issue.rule == "SM-L11"]
    assert duplicate.file == f"{base}two.xml"
    assert not report.ok


def test_recursion_survives_a_loop(httpserver: HTTPServer) -> None:
    base = httpserver.url_for("/")
    httpserver.expect_request("/a.xml").respond_with_data(index(f"{base}b.xml"))
    httpserver.expect_request("/b.xml").respond_with_data(index(f"{base}a.xml"))
    report = validate(httpserver.url_for("/a.xml"), recursive=True)
    assert len(report.files) == 2


def test_cross_host_urls_need_robots_txt_proof(httpserver: HTTPServer) -> None:
    """127.0.0.1 and localhost are two hosts on the same server: a cross-submission."""
    port = httpserver.port
    sitemap_url = f"http://127.0.0.1:{port}/sitemap.xml"
    other = f"http://localhost:{port}"
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        urlset(f"http://127.0.0.1:{port}/own", f"{other}/page")
    )
    httpserver.expect_request("/robots.txt").respond_with_data(
        f"User-agent: *\nDisallow:\nsitemap: {sitemap_url}\n"
    )
    assert validate(sitemap_url).ok


def test_cross_host_without_proof_is_an_error(httpserver: HTTPServer) -> None:
    port = httpserver.port
    sitemap_url = f"http://127.0.0.1:{port}/sitemap.xml"
    httpserver.expect_request("/sitemap.xml").respond_with_data(
        urlset(f"http://localhost:{port}/a", f"http://localhost:{port}/b")
    )
    httpserver.expect_request("/robots.txt").respond_with_data(
        "Sitemap: https://elsewhere.example/sitemap.xml\n"
    )
    report = validate(sitemap_url)
    assert [issue.rule for issue in report.errors] == ["SM-S03", "SM-S03"]
    assert "does not list this sitemap" in report.errors[0].message


def test_local_file_does_not_fetch_unless_asked(httpserver: HTTPServer, tmp_path) -> None:  # type: ignore[no-untyped-def]
    port = httpserver.port
    path = tmp_path / "sitemap.xml"
    path.write_text(urlset(f"http://localhost:{port}/a"))
    location = f"http://127.0.0.1:{port}/sitemap.xml"
    httpserver.expect_request("/robots.txt").respond_with_data(f"Sitemap: {location}\n")
    offline = validate(path, location=location)
    assert [issue.rule for issue in offline.errors] == ["SM-L08"]
    assert "fetching is off" in offline.errors[0].message
    assert len(httpserver.log) == 0
    assert validate(path, location=location, fetch=True).ok
    assert len(httpserver.log) == 1


def test_fetcher_caps_the_body(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/big").respond_with_data(b"x" * 5000)
    fetched = UrllibFetcher().open(httpserver.url_for("/big"), max_bytes=1000)
    with pytest.raises(FetchError, match="larger than 1,000 bytes"):
        b"".join(fetched.chunks)


def test_fetcher_refuses_other_schemes() -> None:
    with pytest.raises(FetchError):
        UrllibFetcher().open("file:///etc/passwd", max_bytes=1000)


def test_robots_sitemap_lines() -> None:
    text = (
        "User-agent: *\nSITEMAP: https://a.example/s.xml\nsitemap:/rel.xml # comment\n"
        "Disallow: /x\nSitemap: //[bad/s.xml\n"
    )
    assert parse_robots_sitemaps(text, "https://b.example/robots.txt") == {
        "https://a.example/s.xml",
        "https://b.example/rel.xml",
    }
