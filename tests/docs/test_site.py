"""The built site: a strict build, read offline (no script, style sheet or font from another
host), maths typeset by the vendored KaTeX, a sitemap, and a 404 page that works under the
site's sub-path. The site is built once per module."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

# Builds the site / a wheel: the full suite only (`make test`), not `make test-fast`.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results"
KATEX = "javascripts/vendor/katex"
#: The address the build is given: a sub-path, as a mirror or a versioned host serves it.
SITE_URL = "https://docs.example.org/bayeswe/0.2/"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    # No skip: `make test` installs the docs extra, so a missing mkdocs is a failure.
    out = tmp_path_factory.mktemp("site") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "BAYESWE_SITE_URL": SITE_URL}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


# ------------------------------------------------------------------ external resources


class _Resources(HTMLParser):
    """The URLs a page loads by itself: scripts, style sheets, fonts, images, frames, and
    ``url(..)`` / ``@import`` in its inline styles."""

    LOADED = {
        "script": ("src",),
        "img": ("src", "srcset"),
        "iframe": ("src",),
        "embed": ("src",),
        "object": ("data",),
        "source": ("src", "srcset"),
        "audio": ("src",),
        "video": ("src", "poster"),
        "track": ("src",),
    }
    #: <link rel=...> values that make the browser fetch (or connect to) the href.
    FETCHING_RELS = {
        "stylesheet",
        "preload",
        "prefetch",
        "preconnect",
        "dns-prefetch",
        "modulepreload",
        "icon",
        "shortcut",
        "apple-touch-icon",
        "manifest",
    }

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in self.LOADED.get(tag, ()):
            value = attrs.get(name)
            if value:
                self.urls += [part.split()[0] for part in value.split(",") if part.strip()]
        if tag == "link" and attrs.get("href"):
            rels = set((attrs.get("rel") or "").lower().split())
            if rels & self.FETCHING_RELS:
                self.urls.append(attrs["href"])
        if attrs.get("style"):
            self.urls += css_urls(attrs["style"])
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.urls += css_urls(data)


_CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


def css_urls(css: str) -> list[str]:
    return [a or b for a, b in _CSS_URL.findall(css)]


def page_resources(html: str) -> list[str]:
    parser = _Resources()
    parser.feed(html)
    return parser.urls


def is_external(url: str) -> bool:
    """A URL on another host: a scheme other than data: or blob:, or protocol-relative."""
    if url.startswith("//"):
        return True
    scheme = urlparse(url).scheme.lower()
    return scheme not in ("", "data", "blob")


def external_resources(site_dir: Path) -> dict[str, list[str]]:
    """Every page and style sheet of ``site_dir`` that loads something from another host."""
    found: dict[str, list[str]] = {}
    for path in sorted(site_dir.rglob("*")):
        if path.suffix == ".html":
            urls = page_resources(path.read_text(encoding="utf-8"))
        elif path.suffix == ".css":
            urls = css_urls(path.read_text(encoding="utf-8"))
        else:
            continue
        external = [u for u in urls if is_external(u)]
        if external:
            found[str(path.relative_to(site_dir))] = external
    return found


def test_the_detector_finds_every_kind_of_external_resource(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    page = (
        '<html><head><link rel="preconnect" href="https://fonts.gstatic.com">'
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'
        '<link rel="canonical" href="https://example.org/a/">'  # a name, not a load
        '<script src="//cdn.example.org/x.js"></script>'
        '<style>@import "https://example.org/s.css";</style></head>'
        '<body style="background: url(http://example.org/bg.png)">'
        '<a href="https://example.org/">a link is not a load</a>'
        '<img src="../img/local.png" srcset="local@2x.png 2x, https://example.org/i.png 3x">'
        '<img src="data:image/png;base64,AAAA"></body></html>'
    )
    (tmp_path / "a" / "index.html").write_text(page, encoding="utf-8")
    (tmp_path / "x.css").write_text(
        "@font-face{src:url(fonts/k.woff2) format('woff2'),url('https://example.org/k.ttf')}"
    )
    assert external_resources(tmp_path) == {
        "a/index.html": [
            "https://fonts.gstatic.com",
            "https://fonts.googleapis.com/css?family=Roboto",
            "//cdn.example.org/x.js",
            "https://example.org/s.css",
            "http://example.org/bg.png",
            "https://example.org/i.png",
        ],
        "x.css": ["https://example.org/k.ttf"],
    }


def _pages(site_dir: Path) -> list[Path]:
    return sorted(site_dir.rglob("*.html"))


def test_no_page_loads_anything_from_another_host(site: Path) -> None:
    assert len(_pages(site)) > 20
    assert external_resources(site) == {}


def test_every_local_resource_of_every_page_is_in_the_site(site: Path) -> None:
    missing = []
    for path in _pages(site):
        rel = "/" + str(path.relative_to(site))
        for url in page_resources(path.read_text(encoding="utf-8")):
            if is_external(url) or url.startswith("data:"):
                continue
            target = urlparse(urljoin(rel, url)).path
            base = urlparse(SITE_URL).path
            if target.startswith(base):  # 404.html links from the site's root
                target = "/" + target[len(base) :]
            file = site / target.lstrip("/")
            if not (file.is_file() or (file / "index.html").is_file()):
                missing.append(f"{rel}: {url}")
    assert missing == []


def test_maths_is_typeset_by_the_vendored_katex(site: Path) -> None:
    vendored = site / KATEX
    assert (vendored / "katex.min.js").is_file() and (vendored / "katex.min.css").is_file()
    fonts = css_urls((vendored / "katex.min.css").read_text(encoding="utf-8"))
    assert fonts and all((vendored / url).is_file() for url in fonts)
    with_maths = 0
    for path in _pages(site):
        html = path.read_text(encoding="utf-8")
        if 'class="arithmatex"' not in html:
            continue
        with_maths += 1
        scripts = [u for u in page_resources(html) if u.endswith(".js")]
        katex = [i for i, u in enumerate(scripts) if u.endswith(f"{KATEX}/katex.min.js")]
        math = [i for i, u in enumerate(scripts) if u.endswith("javascripts/math.js")]
        assert katex and math and katex[0] < math[0], path
        assert "mathjax" not in html.lower(), path
    assert with_maths >= 5  # the model pages


# ------------------------------------------------------------------ the build's contents


def test_mkdocs_build_strict(site: Path) -> None:
    page = (site / "benchmarks" / "index.html").read_text(encoding="utf-8")
    for path in sorted(RESULTS.glob("*.json")):
        assert path.name in page
    # Included, not copied: the Stan program and the changelog are in the pages.
    assert "sgns_partial_loglik" in (site / "sgns" / "index.html").read_text(encoding="utf-8")
    assert "Keep a Changelog" in (site / "changelog" / "index.html").read_text(encoding="utf-8")


def test_sitemap_lists_every_page_at_the_site_url(site: Path) -> None:
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    root = ET.parse(site / "sitemap.xml").getroot()
    urls = [loc.text for loc in root.findall("s:url/s:loc", ns)]
    pages = [p for p in _pages(site) if p.name == "index.html"]
    assert len(urls) == len(pages) > 20
    assert all(url.startswith(SITE_URL) for url in urls)


def test_404_page_links_its_assets_from_the_sub_path(site: Path) -> None:
    """Served for any missing address, however deep, the 404 page must not link its
    style sheets, scripts and navigation relative to that address."""
    html = (site / "404.html").read_text(encoding="utf-8")
    base = urlparse(SITE_URL).path
    loaded = page_resources(html)
    assert any(u.endswith(".css") for u in loaded) and any(u.endswith(".js") for u in loaded)
    assert all(u.startswith(base) for u in loaded), loaded
    links = re.findall(r'<a [^>]*href="([^"#]+)"', html)
    local = [u for u in links if not is_external(u)]
    assert local and all(u.startswith(base) for u in local), local


def test_every_full_run_has_its_page_linked_from_the_overview(site: Path) -> None:
    overview = (site / "reproduce" / "index.html").read_text(encoding="utf-8")
    targets = sorted(p.parent.name for p in (REPO / "reproductions").glob("*/REPORT.md"))
    assert targets
    for target in targets:
        page = site / "reproduce" / target / "index.html"
        assert page.is_file(), target
        assert f'href="{target}/"' in overview, target
        html = page.read_text(encoding="utf-8")
        # its figures are in the site, and each links to itself (opens full size)
        for src in re.findall(r'<img[^>]*src="([^"]+\.png)"', html):
            assert (page.parent / src).resolve().is_file(), (target, src)
            assert f'<a href="{src}"><img' in html, (target, src)
