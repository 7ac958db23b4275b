"""An XSL stylesheet that makes sitemaps readable in a browser.

Linked from every sitemap with ``<?xml-stylesheet type="text/xsl" href="..."?>``, it turns a
``<urlset>`` into a table of links (with lastmod, changefreq, priority and extension counts)
and a ``<sitemapindex>`` into a list of its sitemaps. Search engines ignore the processing
instruction. The stylesheet is self-contained: no scripts, fonts or requests elsewhere.
"""

from __future__ import annotations

from typing import Final

__all__ = ["SITEMAP_XSL"]

SITEMAP_XSL: Final = """\
<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="1.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"
    xmlns:old="http://www.google.com/schemas/sitemap/0.84"
    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
    xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
    xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
    xmlns:xhtml="http://www.w3.org/1999/xhtml"
    exclude-result-prefixes="sm old image video news xhtml">
  <xsl:output method="html" encoding="UTF-8" indent="yes"
      doctype-system="about:legacy-compat"/>

  <xsl:template match="/">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <meta name="robots" content="noindex"/>
        <title>
          <xsl:choose>
            <xsl:when test="//sm:sitemap | //old:sitemap">Sitemap index</xsl:when>
            <xsl:otherwise>Sitemap</xsl:otherwise>
          </xsl:choose>
        </title>
        <style>
          body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem;
                 padding: 0 1rem; color: #1f2328; }
          h1 { font-size: 1.4rem; margin-bottom: .25rem; }
          p.note { color: #59636e; margin-top: 0; }
          table { border-collapse: collapse; width: 100%; }
          th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid #d1d9e0;
                   vertical-align: top; }
          th { background: #f6f8fa; position: sticky; top: 0; }
          td.url { word-break: break-all; }
          td.num { text-align: right; font-variant-numeric: tabular-nums; }
          a { color: #0969da; }
        </style>
      </head>
      <body>
        <xsl:apply-templates select="sm:sitemapindex | old:sitemapindex"/>
        <xsl:apply-templates select="sm:urlset | old:urlset"/>
      </body>
    </html>
  </xsl:template>

  <xsl:template match="sm:sitemapindex | old:sitemapindex">
    <h1>Sitemap index</h1>
    <p class="note">
      <span id="count"><xsl:value-of select="count(sm:sitemap | old:sitemap)"/></span>
      sitemaps. This page is for people; search engines read the XML.
    </p>
    <table id="sitemaps">
      <thead><tr><th>#</th><th>Sitemap</th><th>Last modified</th></tr></thead>
      <tbody>
        <xsl:for-each select="sm:sitemap | old:sitemap">
          <tr>
            <td class="num"><xsl:value-of select="position()"/></td>
            <td class="url">
              <a href="{sm:loc | old:loc}"><xsl:value-of select="sm:loc | old:loc"/></a>
            </td>
            <td><xsl:value-of select="sm:lastmod | old:lastmod"/></td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>

  <xsl:template match="sm:urlset | old:urlset">
    <h1>Sitemap</h1>
    <p class="note">
      <span id="count"><xsl:value-of select="count(sm:url | old:url)"/></span>
      URLs. This page is for people; search engines read the XML.
    </p>
    <table id="urls">
      <thead>
        <tr><th>#</th><th>URL</th><th>Last modified</th><th>Change frequency</th>
            <th>Priority</th><th>Images</th><th>Languages</th></tr>
      </thead>
      <tbody>
        <xsl:for-each select="sm:url | old:url">
          <tr>
            <td class="num"><xsl:value-of select="position()"/></td>
            <td class="url">
              <a href="{sm:loc | old:loc}"><xsl:value-of select="sm:loc | old:loc"/></a>
              <xsl:if test="news:news">
                <br/><small>News: <xsl:value-of select="news:news/news:title"/></small>
              </xsl:if>
              <xsl:if test="video:video">
                <br/><small>Video: <xsl:value-of select="video:video/video:title"/></small>
              </xsl:if>
            </td>
            <td><xsl:value-of select="sm:lastmod | old:lastmod"/></td>
            <td><xsl:value-of select="sm:changefreq | old:changefreq"/></td>
            <td class="num"><xsl:value-of select="sm:priority | old:priority"/></td>
            <td class="num">
              <xsl:if test="image:image"><xsl:value-of select="count(image:image)"/></xsl:if>
            </td>
            <td>
              <xsl:for-each select="xhtml:link[@rel='alternate']">
                <a href="{@href}" hreflang="{@hreflang}"><xsl:value-of select="@hreflang"/></a>
                <xsl:if test="position() != last()"><xsl:text> </xsl:text></xsl:if>
              </xsl:for-each>
            </td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>
</xsl:stylesheet>
"""
