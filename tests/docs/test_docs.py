"""The documentation sources: README size, relative links, the benchmark tables."""

from __future__ import annotations

import importlib.util
import json
import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
RESULTS = REPO / "benchmarks" / "results"
ARCHIVE = RESULTS / "archive"
README_LIMIT = 12 * 1024

# [text](target) and [text](target "title"), images included; not inside code.
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")


def _hook():
    spec = importlib.util.spec_from_file_location(
        "docs_hook_benchmarks", DOCS / "hooks" / "benchmarks.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _markdown_files() -> list[Path]:
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


def _relative_links(text: str) -> list[str]:
    text = _INLINE_CODE.sub("", _FENCE.sub("", text))
    out = []
    for target in _LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue  # http:, mailto:, in-page anchors
        out.append(target)
    return out


def test_readme_is_under_12_kb():
    size = (REPO / "README.md").stat().st_size
    assert size < README_LIMIT, f"README.md is {size} bytes; the limit is {README_LIMIT}"


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_every_registered_model_has_a_row_in_the_status_table(page):
    import bayeswe  # noqa: F401 (registers the models)
    from bayeswe.model_spec import available_models

    rows = {
        m.group(1)
        for m in re.finditer(r"^\| `(\w+)`", (REPO / page).read_text(encoding="utf-8"), re.M)
    }
    missing = set(available_models()) - rows
    assert not missing, f"{page}: no status row for {sorted(missing)}"


def _generated_report_page(path: Path) -> bool:
    """docs/reproduce/TARGET.md, which docs/hooks/reproductions.py makes from a report."""
    path = path.resolve()
    return (
        path.parent == DOCS / "reproduce"
        and path.suffix == ".md"
        and (REPO / "reproductions" / path.stem / "REPORT.md").is_file()
    )


def test_link_extraction_skips_code_and_urls():
    text = (
        "[a](docs/x.md) [b](https://example.org) [c](#top) `[d](nope.md)`\n"
        '```\n[e](nope2.md)\n```\n![f](img.png "title")'
    )
    assert _relative_links(text) == ["docs/x.md", "img.png"]


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_point_to_existing_files(path):
    missing = []
    for target in _relative_links(path.read_text(encoding="utf-8")):
        file_part = target.split("#", 1)[0]
        if file_part and not (path.parent / file_part).exists():
            if not _generated_report_page(path.parent / file_part):
                missing.append(target)
    assert missing == [], f"{path.relative_to(REPO)} links to missing files: {missing}"


def _fake_repo(tmp_path: Path, headline: str) -> Path:
    """A repository with the real benchmark registry, two results files and ``headline``."""
    (tmp_path / "bayeswe" / "bench").mkdir(parents=True)
    (tmp_path / "bayeswe" / "bench" / "__init__.py").write_text(
        (REPO / "bayeswe" / "bench" / "__init__.py").read_text(encoding="utf-8")
    )
    results = tmp_path / "benchmarks" / "results"
    (results / "archive").mkdir(parents=True)
    new = {
        "benchmark": "pg-gibbs",
        "summary": {
            "ess_per_s_ratio_vs_nuts": 11.77, "ess_per_s_ratio_vs_nuts_min": 9.5,
            "ess_per_s_ratio_vs_nuts_max": 14.0, "ratio_setting": {"K": 20, "V": 200, "N": 500000},
            "nested": {"a": 1}, "missing": None,
        },
        "run": {
            "command": "bayeswe bench pg-gibbs --json --output x.json",
            "commit": "abc1234def", "started_utc": "2026-11-23T10:00:00Z",
            "cpu_model": "Test CPU", "cpu_count": 2, "load_average_start": [0.5, 0.4, 0.3],
        },
        "settings": [{"V": 200, "K": 20, "rate": 1.5}],
    }  # fmt: skip
    old = {"summary": {"tokens_per_s_ratio_vs_tomotopy_k50": 1.5, "sweeps": 30, "peer": 10}}
    (results / "pg_gibbs_new.json").write_text(json.dumps(new))
    (results / "lda_old.json").write_text(json.dumps(old))
    (results / "archive" / "lda_explore.json").write_text(json.dumps(old))
    (tmp_path / "benchmarks" / "headline.toml").write_text(headline)
    return tmp_path


_HEADLINE = """
[[comparison]]
benchmark = "pg-gibbs"
what = "PG-Gibbs"
peer = "NUTS"
measure = "bulk ESS per second"
file = "pg_gibbs_new.json"
key = "ess_per_s_ratio_vs_nuts"
low = "ess_per_s_ratio_vs_nuts_min"
high = "ess_per_s_ratio_vs_nuts_max"
setting = "K = {summary[ratio_setting][K]}, N = {summary[ratio_setting][N]:,}"

[[comparison]]
benchmark = "lda"
what = "cgs"
peer = "a peer"
measure = "sweeps"
file = "lda_old.json"
numerator = "sweeps"
denominator = "peer"
setting = "synthetic"
"""


def test_page_opens_with_a_headline_read_from_the_files(tmp_path):
    hook = _hook()
    root = _fake_repo(tmp_path, _HEADLINE)
    out = hook.render_page(root, {"pg-gibbs": ["fig.png"]})
    table = out.split("\n\n")[0].splitlines()
    assert table[0].startswith("| bayeswe against its peer | measure | ratio |")
    assert table[2] == (
        "| PG-Gibbs against NUTS | bulk ESS per second | **11.8×** (9.50–14.0) "
        "| K = 20, N = 500,000 | [pg_gibbs_new](#file-pg-gibbs-new), 2026-11-23 |"
    )
    assert "| **3.00×** | synthetic | [lda_old](#file-lda-old), not recorded |" in table[3]
    # one section per benchmark, headline order; the figure; the run facts; collapsed summary
    pg, lda = out.index("## `bayeswe bench pg-gibbs`"), out.index("## `bayeswe bench lda`")
    assert pg < lda
    section = out[pg:lda]
    assert "![pg-gibbs](benchmarks/figures/fig.png)" in section
    assert '<span id="file-pg-gibbs-new"></span>' in section
    assert "[`pg_gibbs_new.json`](benchmarks/results/pg_gibbs_new.json)" in section
    assert "| 2026-11-23 | `abc1234` | Test CPU (2 cores) | 0.5 |" in section
    assert '??? info "`pg_gibbs_new.json`: summary (8 keys) and command"' in section
    assert "    Command: `bayeswe bench pg-gibbs --json --output x.json`" in section
    assert "    | `ratio_setting.N` | 500,000 |" in section and "    | `missing` | – |" in section
    # archived runs are listed with a link, not rendered
    archive = out[out.index("## Archived runs") :]
    assert "[`lda_explore.json`](benchmarks/results/archive/lda_explore.json)" in archive
    assert "| `lda` | not recorded |" in archive and "summary" not in archive


def test_page_fails_on_what_it_cannot_render(tmp_path):
    hook = _hook()
    root = _fake_repo(tmp_path, _HEADLINE)
    results = root / "benchmarks" / "results"
    # a results file the headline does not cite belongs to the archive
    (results / "corpus_pairs_extra.json").write_text(json.dumps({"summary": {}}))
    with pytest.raises(hook.ResultsError, match="corpus_pairs_extra.json not cited"):
        hook.render_page(root)
    (results / "corpus_pairs_extra.json").unlink()
    for broken, message in (
        (_HEADLINE.replace("pg_gibbs_new.json", "lda_explore.json"), "is archived"),
        (_HEADLINE.replace('key = "ess_per_s_ratio_vs_nuts"', 'key = "nope"'), "'nope'"),
        (_HEADLINE.replace("{summary[ratio_setting][K]}", "{summary[x]}"), "setting"),
        (_HEADLINE.replace('numerator = "sweeps"', ""), "key or numerator"),
    ):
        (root / "benchmarks" / "headline.toml").write_text(broken)
        with pytest.raises(hook.ResultsError, match=message):
            hook.render_page(root)
    (root / "benchmarks" / "headline.toml").write_text(_HEADLINE)
    (results / "lda_old.json").write_text(json.dumps({"results": []}))
    with pytest.raises(hook.ResultsError, match="summary"):
        hook.render_page(root)
    (results / "lda_old.json").write_text("{not json")
    with pytest.raises(hook.ResultsError, match="JSON"):
        hook.render_page(root)


def test_the_real_page_cites_every_kept_file_and_draws_its_figures(tmp_path):
    hook = _hook()
    drawn = hook.draw_figures(RESULTS, tmp_path)
    assert set(drawn) == set(hook.FIGURES)
    for names in drawn.values():
        for name in names:
            assert (tmp_path / name).stat().st_size > 10_000  # a PNG with content
    out = hook.render_page(REPO, drawn)
    headline = tomllib.loads((REPO / "benchmarks" / "headline.toml").read_text("utf-8"))
    cited = {row["file"] for row in headline["comparison"]}
    assert cited == {p.name for p in RESULTS.glob("*.json")}
    assert out.count("\n| ") >= len(headline["comparison"])
    for path in sorted(ARCHIVE.glob("*.json")):
        assert f"[`{path.name}`](benchmarks/results/archive/{path.name})" in out


def test_benchmarks_page_holds_the_placeholder_and_no_typed_table():
    hook = _hook()
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    assert hook.PLACEHOLDER in text
    assert "| summary key |" not in text and "|---" not in text


def _mixing_file(sides: dict[str, dict], summary: dict) -> dict:
    return {
        "benchmark": "gaussian-lda-mixing",
        "summary": {"corpus": "synthetic, pca10", "type_moves": 0, **summary},
        "settings": {
            "seeds": [1, 2, 3],
            "budgets_cpu_s": {"100": [60.0, 300.0]},
            "shared_start_cpu_s": 240.0,
            "shared_start_method": "alias-mh",
        },
        "results": [
            {
                "K": 100,
                "seed": seed,
                "cgs": {"ess": 10.0 * seed, "window_sweeps": 100},
                # seed 3's ratio does not count, so its windows are left out of the pooling
                "alias_ess_per_cpu_s_ratio_vs_cgs": None if seed == 3 else 1.0,
                **{
                    name: {**side, "ess": 20.0, "window_sweeps": 400 * seed}
                    for name, side in sides.items()
                },
            }
            for seed in (1, 2, 3)
        ],
    }


def test_mixing_table_reads_every_side_from_its_file(tmp_path):
    hook = _hook()
    key = "ess_per_cpu_s_ratio_vs_cgs_k100"
    sides = {
        "alias": {"mh_steps": 2, "scan": "word", "rebuild_every": "word"},
        "alias_m16_frozen_fd": {
            "mh_steps": 16, "scan": "document", "rebuild_every": "frozen", "fresh_doc": True,
        },
        "alias_m2_rK_a5": {
            "mh_steps": 2, "scan": "document", "rebuild_every": 100, "max_table_age": 5,
        },
    }  # fmt: skip
    summary = {
        # the default side's sweep and level keys carry no prefix
        f"alias_{key}": 0.5, f"alias_{key}_min": 0.25, f"alias_{key}_max": 4.0,
        f"alias_{key}_seeds": 3, f"alias_{key}_pooled": 1.25,
        "sweep_speed_ratio_k100": 2.0, "level_gap_sd_k100": -0.125,
        f"alias_heldout_{key}": None, f"alias_heldout_{key}_seeds": 0,
        f"alias_m16_frozen_fd_{key}": 3.5, f"alias_m16_frozen_fd_{key}_seeds": 1,
        f"alias_m16_frozen_fd_{key}_min": 3.5, f"alias_m16_frozen_fd_{key}_max": 3.5,
        "alias_m16_frozen_fd_sweep_speed_ratio_k100": 4.75,
        "alias_m16_frozen_fd_level_gap_sd_k100": 1.5,
    }  # fmt: skip
    (tmp_path / "gaussian_lda_mixing_fake.json").write_text(
        json.dumps(_mixing_file(sides, summary))
    )
    (tmp_path / "pg_gibbs_other.json").write_text(json.dumps({"summary": {"x": 1}}))
    rows = hook.mixing_rows(tmp_path)
    assert list(rows) == [100] and len(rows[100]) == 3
    by_setting = {cells[5]: cells for cells in rows[100]}
    assert set(by_setting) == {"`2:W`", "`16:F:D`", "`2:K:5`"}
    default = by_setting["`2:W`"]
    assert default[:5] == ["`fake`", "synthetic, pca10", "0", "alias-mh, 240 s", "60 + 300"]
    # per sweep, pooled over seeds 1 and 2: (40 / 1200) / (30 / 200)
    assert default[6:] == [
        "2", "0.5 (3/3)", "0.25–4", "1.25", "0.2222", "– (0/3)", "–", "–", "-0.125",
    ]  # fmt: skip
    frozen = by_setting["`16:F:D`"]
    assert frozen[6:11] == ["4.75", "3.5 (1/3)", "3.5", "–", "–"] and frozen[-1] == "1.5"
    assert (
        hook.mixing_variant({"mh_steps": 4, "scan": "document", "rebuild_every": 50}, 100) == "4:50"
    )
    # a start made with block moves that the windows leave out says so
    start_moves = _mixing_file(sides, summary)
    start_moves["settings"].update(shared_start_type_moves=1, type_moves=0)
    (tmp_path / "gaussian_lda_mixing_fake.json").write_text(json.dumps(start_moves))
    assert hook.mixing_rows(tmp_path)[100][0][3] == "alias-mh, 240 s, 1 block-move pass"
    start_moves["settings"].update(shared_start_type_moves=2, type_moves=2)
    (tmp_path / "gaussian_lda_mixing_fake.json").write_text(json.dumps(start_moves))
    assert hook.mixing_rows(tmp_path)[100][0][3] == "alias-mh, 240 s"
    assert by_setting["`2:K:5`"][6:] == [
        "–", "– (–/3)", "–", "–", "–", "– (–/3)", "–", "–", "–",
    ]  # fmt: skip

    page = hook.on_page_markdown(
        f"before\n{hook.MIXING_PLACEHOLDER}\nafter",
        page=None,
        config={"config_file_path": str(tmp_path / "mkdocs.yml")},
        files=None,
    )
    assert page.startswith("before") and hook.MIXING_PLACEHOLDER not in page
    assert "**K = 100**" not in page  # the hook reads <root>/benchmarks/results/archive
    results = tmp_path / "benchmarks" / "results" / "archive"
    results.mkdir(parents=True)
    (results / "gaussian_lda_mixing_fake.json").write_text(json.dumps(_mixing_file(sides, summary)))
    page = hook.on_page_markdown(
        hook.MIXING_PLACEHOLDER, page=None,
        config={"config_file_path": str(tmp_path / "mkdocs.yml")}, files=None,
    )  # fmt: skip
    table = [line for line in page.splitlines() if line.startswith("| `fake`")]
    assert page.startswith("**K = 100**") and len(table) == 3
    assert all(line.count(" | ") == hook.MIXING_HEADER.count(" | ") for line in table)


def test_mixing_table_has_a_row_for_every_real_run():
    hook = _hook()
    rows = hook.mixing_rows(ARCHIVE)
    expected = set()
    for path in ARCHIVE.glob("gaussian_lda_mixing*.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        for record in result["results"]:
            for side in record.values():
                if isinstance(side, dict) and "mh_steps" in side:
                    run = path.stem.removeprefix("gaussian_lda_mixing_")
                    K = int(record["K"])
                    expected.add((K, f"`{run}`", hook.mixing_variant(side, K)))
    got = {(K, cells[0], cells[5].strip("`")) for K, table in rows.items() for cells in table}
    assert expected and got == expected
    text = (DOCS / "studies" / "gaussian-lda-mixing.md").read_text(encoding="utf-8")
    assert hook.MIXING_PLACEHOLDER in text and "| run | corpus |" not in text


# The strict build and the checks of the built site: test_site.py.


# A measured speed typed into prose: "3.2x faster", "12.8× NUTS", "398k tokens/s",
# "0.5 µs per token", "a speed-up of 5". Such figures belong to the Benchmarks page,
# which the hook generates from benchmarks/results/*.json.
_SPEED_CLAIM = re.compile(
    r"\d+(?:\.\d+)?\s?[x×]\s+(?:faster|slower|speed|the speed|NUTS|cgs|tomotopy|its peer)"
    r"|\d[\d,.]*\s?[kM]?\s?(?:tokens|token visits|sweeps|draws|samples|words|gradients)/s\b"
    r"|\d+(?:\.\d+)?\s?(?:µs|us|ms) per (?:token|sweep|gradient)"
    r"|(?:speed-?up|faster) (?:of|by) \d",
    re.I,
)


def _speed_claims(text: str) -> list[str]:
    text = _INLINE_CODE.sub("", _FENCE.sub("", text))
    return [m.group(0) for m in _SPEED_CLAIM.finditer(text)]


def test_speed_claim_detector() -> None:
    text = "Gibbs is 3.2x faster than NUTS; cgs runs at 398k tokens/s, 0.5 µs per token.\n"
    assert len(_speed_claims(text)) == 3
    assert _speed_claims("4 × 4 register blocks; 2 × 1000 draws; 4 x 30,000 sweeps") == []
    assert _speed_claims("```\nspeed-up of 5\n```\n") == []  # code is output, not a claim


@pytest.mark.parametrize(
    "path",
    [p for p in _markdown_files() if p.name not in {"benchmarks.md", "changelog.md"}],
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_no_typed_speed_figures_outside_the_generated_page(path: Path) -> None:
    """Speeds and speed ratios appear only where a results file generates them."""
    assert _speed_claims(path.read_text(encoding="utf-8")) == []


# --------------------------------------------------------------------------- SBC page


def _sbc_hook():
    spec = importlib.util.spec_from_file_location("docs_hook_sbc", DOCS / "hooks" / "sbc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sbc_page_is_generated_from_a_results_file_of_every_sampler() -> None:
    from bayeswe.sbc import CASES

    hook = _sbc_hook()
    page = (DOCS / "sbc.md").read_text(encoding="utf-8")
    assert hook.PLACEHOLDER in page
    assert "family p" not in page.split(hook.PLACEHOLDER)[0].lower().split("## results")[-1]
    results = REPO / hook.RESULTS
    table = hook.render(results)
    for name in CASES:
        record = json.loads((results / name / "results.json").read_text(encoding="utf-8"))
        summary = record["summary"]
        assert summary["sampler"] == name and summary["replications"] >= 200
        assert (results / name / "histogram.png").is_file()
        assert f"[{name}](sbc-results/{name}/histogram.png)" in table
        # written by `bayeswe sbc` at a clean commit
        assert record["run"]["commit"] and record["run"]["dirty"] is False
        assert " sbc " in f" {record['run']['command']} "


# ------------------------------------------------------- typed numbers and their files
# A passage of the docs that names a results file (`NAME.json` in benchmarks/results/ or
# its archive/) types figures read from it. Each number typed in such a passage (a paragraph, or a
# top-level bullet with its sub-bullets) must be a value of one of the files it names, at
# the precision it is written: "0.46" matches 0.4580, "267,000" any value within 500 of
# it, "1.5 %" also a share of 0.015. A number that no file holds (a setting, a year, a
# constant of the code) is listed in _NOT_FROM_THE_FILE with its reason. Small integers
# match almost any file, so the test guards mainly the decimals and the large counts.
# The changelog is history, whose files may since have been rerun, and is not checked.
_NUMBER = re.compile(
    r"(?<![\w.-])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,-])\d+(?:\.\d+)?(?![\w])"
)
_RESULTS_NAME = re.compile(r"[A-Za-z0-9_]+\.json")
_MATH = re.compile(r"\\\(.*?\\\)", re.S)
_NOT_FROM_THE_FILE = {
    ("docs/studies/pg-gibbs-vs-nuts.md", "15"): (
        "NUTS's time limit in minutes; the file has --nuts-timeout 900"
    ),
    ("docs/sgns.md", "2013"): "the year of a citation",
    ("docs/sgns.md", "512"): "bins of the sampler's PG(1, z) table, a constant of the code",
    ("docs/sgns.md", "24"): "the sampler's switch between two PG methods, a constant of the code",
}


def _passages(text: str) -> list[str]:
    """Paragraphs and top-level bullets (with their sub-bullets), code blocks dropped."""
    passages, current = [], []
    for line in _FENCE.sub("", text).splitlines():
        starts = line.startswith(("- ", "#", "|")) or not line.strip()
        if starts and current:
            passages.append("\n".join(current))
            current = []
        if line.strip():
            current.append(line)
    if current:
        passages.append("\n".join(current))
    return passages


def _numbers_of(value, out: list[float]) -> list[float]:
    if isinstance(value, dict):
        for key, item in value.items():
            _numbers_of(key, out)
            _numbers_of(item, out)
    elif isinstance(value, list):
        for item in value:
            _numbers_of(item, out)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        out.append(float(value))
    elif isinstance(value, str):
        out.extend(float(m.replace(",", "")) for m in _NUMBER.findall(value))
    return out


def _half_unit(typed: str) -> float:
    """Half a unit in the last significant place of a typed number."""
    digits = typed.replace(",", "")
    if "." in digits:
        return 0.5 * 10 ** -len(digits.split(".")[1])
    zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
    return 0.5 * 10**zeros


def _unbacked_numbers(
    text: str, page: str, exempt: dict[tuple[str, str], str] = _NOT_FROM_THE_FILE
) -> list[str]:
    paths = {p.name: p for p in [*RESULTS.glob("*.json"), *ARCHIVE.glob("*.json")]}
    names = set(paths)
    cache: dict[str, list[float]] = {}
    out = []
    for passage in _passages(text):
        files = sorted({n for n in _RESULTS_NAME.findall(passage) if n in names})
        if not files:
            continue
        values = []
        for name in files:
            if name not in cache:
                cache[name] = _numbers_of(json.loads(paths[name].read_text("utf-8")), [])
            values += cache[name]
        prose = _MATH.sub(" ", _INLINE_CODE.sub(" ", passage))
        for typed in _NUMBER.findall(prose):
            if (page, typed) in exempt:
                continue
            x, tol = float(typed.replace(",", "")), _half_unit(typed) * (1 + 1e-9)
            if not any(abs(v - x) <= tol or abs(100 * v - x) <= tol for v in values):
                out.append(f"{page}: {typed} not in {', '.join(files)}")
    return out


def test_a_typed_number_off_its_file_is_caught():
    text = (
        "- At K = 100 (`gaussian_lda_alias_kernel_hot_k100.json`) the hot sets were 7.0"
        " (h = 1) and 22.9 after 60 s, and 1.15 % of the tokens lay beyond 0.1."
    )
    assert _unbacked_numbers(text, "x.md") == []
    assert _unbacked_numbers(text.replace("7.0", "7.1"), "x.md") == [
        "x.md: 7.1 not in gaussian_lda_alias_kernel_hot_k100.json"
    ]
    assert _unbacked_numbers(text.replace("22.9", "23"), "x.md") == []  # 22.858 to 2 digits
    assert _unbacked_numbers(text.replace("22.9", "22.90"), "x.md") != []
    assert _half_unit("267,000") == 500 and _half_unit("0.46") == 0.005


_CHECKED_PAGES = [p for p in _markdown_files() if p.name != "changelog.md"]


@pytest.mark.parametrize("path", _CHECKED_PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_numbers_typed_beside_a_results_file_are_in_it(path: Path) -> None:
    page = str(path.relative_to(REPO))
    assert _unbacked_numbers(path.read_text(encoding="utf-8"), page) == []


def test_every_exempt_number_is_still_needed():
    for page, typed in _NOT_FROM_THE_FILE:
        others = {key: why for key, why in _NOT_FROM_THE_FILE.items() if key != (page, typed)}
        found = _unbacked_numbers((REPO / page).read_text(encoding="utf-8"), page, others)
        assert any(f": {typed} not in" in line for line in found), (page, typed)


def test_hdp_table_averages_each_settings_seeds_from_the_records(tmp_path):
    hook = _hook()
    base = {"corpus": "nyt", "setting": "k50to100", "alpha0": 5.0, "gamma": 0.3,
            "initial_topics": 70, "iterations": 100}  # fmt: skip
    records = []
    for seed, (ours, tomo, gens) in enumerate([(-7.0, -7.5, -8.0), (-6.0, -6.5, -8.0)], 1):
        records += [
            base | {"seed": seed, "tool": "bayeswe", "rate": 4.0 * seed, "live_topics": 70,
                    "heldout": ours},
            base | {"seed": seed, "tool": "tomotopy", "rate": 2.0, "live_topics": 80,
                    "heldout": tomo},
            base | {"seed": seed, "tool": "gensim", "seconds": 10.0, "live_topics": 90,
                    "heldout": gens, "bayeswe_seconds_to_this_heldout": 2.0 if seed == 1 else None},
        ]  # fmt: skip
    (tmp_path / "hdp.json").write_text(json.dumps({"summary": {}, "results": records}))
    [row] = hook.hdp_rows(tmp_path / "hdp.json")
    sd = f"{(0.5**0.5):.3f}"  # sd of (-7, -6)
    assert row == [
        "nyt", "`k50to100` (5, 0.3, 70)", "100 × 2", "70, 80", "3.00 (2.00–4.00)",
        f"-6.500 ± {sd}", f"-7.000 ± {sd}", "-8.000 ± 0.000", "0.500 ± 0.000",
        f"1.500 ± {sd}", "5.00 (5.00–5.00) (1/2 seeds)",
    ]  # fmt: skip
    assert "| nyt |" in hook.render_hdp(tmp_path)
    assert "No `hdp.json`" in hook.render_hdp(tmp_path / "missing")


def test_chains_table_reads_both_sides_from_the_file(tmp_path):
    hook = _hook()
    side = {"rhat_n_topics": 1.004, "ess_bulk": {"lp": 900.0, "gamma": 410.0},
            "ess_bulk_min": 410.0, "live_topics_by_chain": [80.5, 81, 79.9, 80.2],
            "wall_s": 1234.5, "diagnosable": True}  # fmt: skip
    peer = side | {"rhat_n_topics": 1.3, "ess_bulk": {"live_k": 12.0}, "ess_bulk_min": 12.0,
                   "diagnosable": False}  # fmt: skip
    study = {"summary": {"corpus": "nyt"}, "starts": {"bayeswe": [1, 300], "tomotopy": [2, 300]},
             "warmup": 500, "draws": 1000, "peer_warmup": 100, "peer_draws": 200,
             "bayeswe": side, "tomotopy": peer}  # fmt: skip
    (tmp_path / "benchmarks" / "studies").mkdir(parents=True)
    (tmp_path / "benchmarks" / "studies" / "hdp_chains_nyt.json").write_text(json.dumps(study))
    ours, theirs = hook.chains_rows(tmp_path / "benchmarks" / "studies" / "hdp_chains_nyt.json")
    assert ours == ["bayeswe", "nyt", "1, 300", "500 + 1000", "1.004", "410 (`gamma`)",
                    "80.5, 81, 79.9, 80.2", "–", "1234", "yes",
                    "`hdp_chains_nyt.json`"]  # fmt: skip
    assert theirs[3:6] == ["100 + 200", "1.300", "12 (`live_k`)"] and theirs[9] == "no"
    assert "| tomotopy | nyt |" in hook.render_chains_study(tmp_path)
    assert "No `hdp_chains*.json`" in hook.render_chains_study(tmp_path / "missing")
    # fixed concentrations and split-merge proposals are named where they apply
    study |= {"concentrations": "fixed", "alpha0": 5.0, "gamma": 0.3}
    study["bayeswe"] = side | {"split_merge": 10, "split_merge_accepted": 7}
    (tmp_path / "benchmarks" / "studies" / "hdp_chains_nyt.json").write_text(json.dumps(study))
    ours, theirs = hook.chains_rows(tmp_path / "benchmarks" / "studies" / "hdp_chains_nyt.json")
    assert ours[:2] == ["bayeswe, 10 split-merge proposals per sweep (7 accepted)",
                        "nyt, α0 = 5 and γ = 0.3 fixed"]  # fmt: skip
    assert theirs[:2] == ["tomotopy", "nyt, α0 = 5 and γ = 0.3 fixed"]
    # the log joint by chain: ours per training token, tomotopy's already per word
    study["train_tokens"] = 1000
    study["bayeswe"]["mean_by_chain"] = {"lp": [-8000.0, -8001.5, -7900.0, -7899.25]}
    study["tomotopy"] = peer | {"mean_by_chain": {"ll_per_word": [-8.1, -8.0, -7.9, -7.95]}}
    (tmp_path / "benchmarks" / "studies" / "hdp_chains_nyt.json").write_text(json.dumps(study))
    ours, theirs = hook.chains_rows(tmp_path / "benchmarks" / "studies" / "hdp_chains_nyt.json")
    assert ours[7] == "-8.000, -8.002, -7.900, -7.899"
    assert theirs[7] == "-8.100, -8.000, -7.900, -7.950"


def test_refactor_table_pairs_the_two_sides_of_each_metric(tmp_path):
    hook = _hook()
    runs = [
        {"repeat": r, "side": side, "speeds": {"glda_alias_k20_tokens_per_s": v,
                                               "pg_gibbs_sweeps_per_s": 60.0}}
        for r, side, v in [(0, "old", 1000.0), (0, "new", 950.0), (1, "old", 1100.0),
                           (1, "new", 1200.0), (2, "old", 990.0), (2, "new", 1000.0)]
    ]  # fmt: skip
    summary = {
        "speed_ratio_new_over_old": {"glda_alias_k20_tokens_per_s": 0.95,
                                     "pg_gibbs_sweeps_per_s": 1.0},
        "speed_ratio_min": {"glda_alias_k20_tokens_per_s": 0.9, "pg_gibbs_sweeps_per_s": 1.0},
        "speed_ratio_max": {"glda_alias_k20_tokens_per_s": 1.1, "pg_gibbs_sweeps_per_s": 1.0},
        "tolerance": 0.97,
    }  # fmt: skip
    (tmp_path / "benchmarks" / "studies").mkdir(parents=True)
    path = tmp_path / "benchmarks" / "studies" / "refactor_speed.json"
    path.write_text(json.dumps({"summary": summary, "runs": runs}))
    alias, pg = hook.refactor_rows(path)
    # the median pair of (0.95, 1.09, 1.01) is repeat 2's: 990 before, 1,000 after
    assert alias == ["`gaussian-lda`", "alias-MH word scan, tokens per s, K = 20", "990",
                     "1,000", "0.950", "0.900–1.100", "**no**",
                     "`refactor_speed.json`"]  # fmt: skip
    assert pg[:2] == ["`pg-gibbs-profile`", "PG-Gibbs, sweeps per s"] and pg[6] == "yes"
    assert "| `gaussian-lda` |" in hook.render_refactor_study(tmp_path)
    assert "No `refactor_speed*.json`" in hook.render_refactor_study(tmp_path / "missing")


def test_stick_order_table_gives_each_sampler_its_estimates_and_z(tmp_path):
    hook = _hook()
    run = {
        "n_occupied": [3.2, 0.01],
        "alpha": [0.64, 0.002],
        "wall_s": 15.2,
        "lpd": [[-2.1, 0.001], [-3.1, 0.002], [-2.9, 0.001], [-5.6, 0.01], [-11.0, 0.1]],
    }
    study = {"settings": {"cluster_sizes": [42, 24, 14]},
             "samplers": {"collapsed_gibbs": run, "nuts": run},
             "summary": {"max_abs_z": {"collapsed_gibbs-nuts": 6.7}}}  # fmt: skip
    (tmp_path / "benchmarks" / "studies").mkdir(parents=True)
    path = tmp_path / "benchmarks" / "studies" / "dp_stick_order.json"
    path.write_text(json.dumps(study))
    header = hook.stick_order_header(path)
    assert "log density, centre of the 14" in header and "beside the 14" in header
    collapsed, nuts = hook.stick_order_rows(path)
    assert collapsed[:3] == ["collapsed Gibbs (`cgs`)", "3.200 ± 0.010", "0.640 ± 0.002"]
    assert collapsed[-3] == "-" and nuts[-3] == "6.7" and nuts[-2] == "15"
    assert header.count("|") - 1 == len(nuts)
    assert "| NUTS (`dp_mixture.stan`) |" in hook.render_stick_order_study(tmp_path)
    assert "No `dp_stick_order*.json`" in hook.render_stick_order_study(tmp_path / "x")


def test_twin_tables_give_each_quantity_its_z_and_each_nuts_run_its_diagnostics(tmp_path):
    hook = _hook()

    def stat(mean, mcse, rhat=1.0, ess=1000.0):
        return {"mean": mean, "mcse": mcse, "rhat": rhat, "ess_bulk": ess}

    cgs = {"n_occupied": stat(4.22, 0.01), "beta_(1)": stat(0.4369, 0.0004),
           "p(w4 | d13)": stat(0.0027, 0.00001)}  # fmt: skip
    nuts = {"n_occupied": stat(9.63, 0.46, 1.17, 16.2), "beta_(1)": stat(0.4036, 0.0062),
            "p(w4 | d13)": stat(0.0046, 0.0001)}  # fmt: skip
    run = {"statistics": nuts, "wall_s": 285.7, "divergences": 0, "max_depth_share": 1.0,
           "leftover_mean": 0.0156,
           "largest_topic_stick_by_chain": [[0, 2, 998], [1000, 0, 0]]}  # fmt: skip
    z = {"n_occupied": 11.89, "beta_(1)": -5.36, "p(w4 | d13)": 17.38}
    study = {"samplers": {"collapsed_gibbs": {"statistics": cgs}, "nuts": run,
                          "nuts_ordered_start": run},
             "summary": {"z_vs_cgs": {"nuts": z, "nuts_ordered_start": z}},
             "run": {"commit": "1f293b6be40f64da"}}  # fmt: skip
    (tmp_path / "benchmarks" / "studies").mkdir(parents=True)
    path = tmp_path / "benchmarks" / "studies" / "hdp_twin_agreement.json"
    path.write_text(json.dumps(study))
    occupied, weight, rare = hook.twin_rows(path)
    assert occupied == ["occupied topics", "4.22 ± 0.01", "9.63 ± 0.46", "+11.9",
                        "9.63 ± 0.46", "+11.9"]  # fmt: skip
    assert weight[0] == "top-level weight, 1st largest" and weight[3] == "-5.4"
    assert rare[:2] == ["p(w4 | d13)", "0.00270 ± 0.00001"]
    random_start, _ = hook.twin_run_rows(path)
    assert random_start == ["NUTS, Stan's random starts", "286", "0", "100 %", "1.6e-02",
                            "1.17", "16", "3, 1", "`hdp_twin_agreement.json`"]  # fmt: skip
    assert hook.TWIN_HEADER.count("|") - 1 == len(occupied)
    assert hook.TWIN_RUN_HEADER.count("|") - 1 == len(random_start)
    page = hook.render_twin_study(tmp_path)
    assert "`hdp_twin_agreement.json` (commit `1f293b6be40f`)" in page
    assert "| p(w4 \\| d13) |" in page  # the bar escaped, not a column
    assert "No `hdp_twin_agreement*.json`" in hook.render_twin_study(tmp_path / "x")


def test_exactness_table_gives_each_sampler_its_mean_and_z(tmp_path):
    hook = _hook()
    case = {"exact_mean_topics": 2.20786, "bayeswe": {"mean": 2.2027, "mcse": 0.006, "z": -0.87},
            "tomotopy": {"mean": 2.0577, "mcse": 0.0032, "z": -46.2}}  # fmt: skip
    (tmp_path / "benchmarks" / "studies").mkdir(parents=True)
    path = tmp_path / "benchmarks" / "studies" / "hdp_exactness.json"
    path.write_text(json.dumps({"cases": {"2 documents, 7 tokens": case}}))
    (row,) = hook.exactness_rows(path)
    assert row == ["2 documents, 7 tokens", "2.2079", "2.2027 ± 0.0060", "-0.9",
                   "2.0577 ± 0.0032", "-46.2", "`hdp_exactness.json`"]  # fmt: skip
    assert hook.EXACT_HEADER.count("|") - 1 == len(row)
    assert "No `hdp_exactness*.json`" in hook.render_exactness_study(tmp_path / "x")


def test_split_merge_tables_summarize_the_seeds_and_the_nyt_chains(tmp_path):
    hook = _hook()

    def seed(s, accepted, rhat, ess, sweep_s):
        return {"seed": s, "sweep_s": sweep_s, "accepted_per_proposal": accepted,
                "rhat": {"n_topics": rhat, "lp": 1.0},
                "ess_bulk": {"n_topics": ess, "lp": ess / 2},
                "ess_per_s": {"n_topics": ess / sweep_s, "lp": ess / 2 / sweep_s}}  # fmt: skip

    study = {
        "sim": {"split_merge_0": [seed(1, None, 1.01, 400, 4.0), seed(2, None, 1.09, 200, 4.0)],
                "split_merge_10": [seed(1, 0.02, 1.002, 600, 20.0)],
                "split_merge_10_scans_3": [seed(1, 0.05, 1.001, 900, 30.0)]},
        "nyt": {"chains": [{"initial_topics": 300, "proposals": 6000, "splits_accepted": 0,
                            "merges_accepted": 0, "n_topics_every_50": [400, 450],
                            "token_sweep_s_per_sweep": 0.1484, "moves_s_per_sweep": 0.026},
                           {"initial_topics": 1, "scans": 3, "proposals": 6000,
                            "splits_accepted": 9, "merges_accepted": 1,
                            "n_topics_every_50": [20, 40], "token_sweep_s_per_sweep": 0.05,
                            "moves_s_per_sweep": 0.3}]},
    }  # fmt: skip
    (tmp_path / "benchmarks" / "studies").mkdir(parents=True)
    path = tmp_path / "benchmarks" / "studies" / "hdp_split_merge.json"
    path.write_text(json.dumps(study))
    plain, moves, scanned = hook.split_merge_sim_rows(path)
    assert plain == ["0", "0", "2", "–", "1.090", "300 ± 141", "150 ± 71", "75.0 ± 35.4",
                     "37.5 ± 17.7", "4.0 ± 0.0", "`hdp_split_merge.json`"]  # fmt: skip
    assert moves[:5] == ["10", "0", "1", "0.0200", "1.002"] and moves[5] == "600 ± nan"
    assert scanned[:5] == ["10", "3", "1", "0.0500", "1.001"]
    assert hook.SPLIT_SIM_HEADER.count("|") - 1 == len(plain)
    nyt, nyt_scanned = hook.split_merge_nyt_rows(path)
    assert nyt_scanned[:5] == ["1", "3", "6,000", "9", "1"]
    assert nyt == ["300", "0", "6,000", "0", "0", "400, 450", "0.148", "0.026",
                   "`hdp_split_merge.json`"]  # fmt: skip
    assert hook.SPLIT_NYT_HEADER.count("|") - 1 == len(nyt)
    assert "On NYT:" in hook.render_split_merge_study(tmp_path)
    assert "No `hdp_split_merge*.json`" in hook.render_split_merge_study(tmp_path / "x")


def test_drift_rows_show_each_chains_topics_and_log_joint(tmp_path):
    hook = _hook()
    study = {"sweeps": 2000, "every": 100, "alpha0": 5.0, "gamma": 0.3,
             "chains": [{"initial_topics": 150, "n_topics": [160, 190],
                         "lp_per_token": [-8.1234, -8.0987]}]}  # fmt: skip
    (tmp_path / "benchmarks" / "studies").mkdir(parents=True)
    path = tmp_path / "benchmarks" / "studies" / "hdp_nyt_drift.json"
    path.write_text(json.dumps(study))
    (row,) = hook.drift_rows(path)
    assert row == ["150", "160, 190", "-8.123 → -8.099", "2,000 (a draw every 100)",
                   "5, 0.3", "`hdp_nyt_drift.json`"]  # fmt: skip
    assert hook.DRIFT_HEADER.count("|") - 1 == len(row)
    assert "`hdp_nyt_drift.json`" in hook.render_drift_study(tmp_path)
    assert "No `hdp_nyt_drift*.json`" in hook.render_drift_study(tmp_path / "x")


def test_infinite_gaussian_lda_rows_name_the_start_the_moves_and_the_prior(tmp_path):
    hook = _hook()
    chain = {"initial_topics": 1, "sweep": [5, 10], "n_topics": [90, 120], "lp": [1.0, 2e6],
             "heldout_mean_kept": 70.04, "npmi": {"mean": -0.5}, "cpu_s": 12.3}  # fmt: skip
    glda = {"K": 120, "sweep": [10], "lp": [1.5e6], "heldout_mean_kept": 69.0,
            "npmi": {"mean": -0.6}, "cpu_s": 4.0}  # fmt: skip
    study = {"prior": {"nu": 52.0, "split_merge_per_sweep": 50}, "hdp": {"chains": [chain]},
             "gaussian_lda": glda, "lda": {"K": 120, "npmi": {"mean": 0.1}},
             "corpus": {"name": "newsgroups"}}  # fmt: skip
    path = tmp_path / "hdp_gaussian_lda_newsgroups.json"
    path.write_text(json.dumps(study))
    hdp, finite, lda = hook.iglda_rows(path)
    assert hdp[:7] == ["mini 20 Newsgroups", "infinite Gaussian LDA, ν = 52",
                       "1 topic, 50 split-merge proposals per sweep", "10", "120", "2,000,000",
                       "70.0"]  # fmt: skip
    assert finite[1] == "Gaussian LDA, K = 120, ν = 52" and lda[-2] == "-"
    del study["prior"]["split_merge_per_sweep"], study["corpus"]  # older files: Lee, no moves
    path.write_text(json.dumps(study))
    assert hook.iglda_rows(path)[0][:3] == ["Lee", "infinite Gaussian LDA, ν = 52", "1 topic"]
    assert hook.IGLDA_HEADER.count("|") - 1 == len(hdp)


def test_heldout_table_pairs_the_two_samplers_by_seed(tmp_path):
    hook = _hook()

    def row(tool, seed, heldout, live, setting="k300"):
        return {"corpus": "reuters", "setting": setting, "tool": tool, "seed": seed,
                "iterations": 1000, "heldout": heldout, "live_topics": live}  # fmt: skip

    results = [row("bayeswe", 1, -6.78, 320), row("tomotopy", 1, -6.74, 350),
               row("bayeswe", 2, -6.80, 330), row("tomotopy", 2, -6.75, 360),
               row("gensim", 1, -7.3, 97), row("bayeswe", 3, -6.5, 300)]  # fmt: skip
    (tmp_path / "benchmarks" / "studies").mkdir(parents=True)
    path = tmp_path / "benchmarks" / "studies" / "hdp_reuters_1000.json"
    path.write_text(json.dumps({"results": results}))
    (line,) = hook.heldout_rows(path)
    # seed 3 has no tomotopy run and gensim is not a Gibbs sampler: both left out
    assert line == ["reuters", "kept", "`k300`", "1000", "2", "-6.790 ± 0.014",
                    "-6.745 ± 0.007", "-0.045 ± 0.007", "325 / 355",
                    "`hdp_reuters_1000.json`"]  # fmt: skip
    assert hook.HELDOUT_HEADER.count("|") - 1 == len(line)
    summary = {"by_corpus": {"reuters": {"repeated_docs_dropped": 12}}}
    path.write_text(json.dumps({"results": results, "repeat_cosine": 0.95, "summary": summary}))
    assert hook.heldout_rows(path)[0][1] == "12 dropped (cosine ≥ 0.95)"
    assert "| `k300` |" in hook.render_heldout_study(tmp_path)
    assert "no `hdp_reuters*.json`" in hook.render_heldout_study(tmp_path / "x")


def test_cli_page_lists_every_benchmark():
    from bayeswe.bench import BENCHMARKS

    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert [name for name in BENCHMARKS if f"| `{name}` |" not in page] == []


@pytest.mark.parametrize(
    "name",
    sorted(n for n in dir(_hook()) if n.endswith("_PLACEHOLDER")),
)
def test_every_study_placeholder_is_filled_on_a_page_of_its_own(name):
    hook = _hook()
    placeholder = getattr(hook, name)
    page = hook.on_page_markdown(
        f"before\n{placeholder}\nafter", page=None,
        config={"config_file_path": str(REPO / "mkdocs.yml")}, files=None,
    )  # fmt: skip
    assert placeholder not in page and page.startswith("before") and page.endswith("after")


def test_sparsity_table_gives_mean_and_sd_over_seeds_at_the_first_and_last_record(tmp_path):
    hook = _hook()

    def rec(iteration, live, per_doc, word, held):
        return {"iteration": iteration, "live_topics": live, "topics_per_document": per_doc,
                "word_term_per_token": word, "heldout": held, "tables": 0}  # fmt: skip

    chains = [
        {"seed": 1, "records": [rec(100, 10, 4.0, -5.0, -7.0), rec(1000, 12, 3.0, -6.0, -6.9)],
         "last": {"heldout_near_duplicates": -6.0, "heldout_rest": -7.0}},
        {"seed": 2, "records": [rec(100, 14, 6.0, -5.5, -7.2), rec(1000, 16, 5.0, -6.5, -6.8)],
         "last": {"heldout_near_duplicates": -6.2, "heldout_rest": -7.0}},
    ]  # fmt: skip
    study = {"arms": [{"tool": "tomotopy", "setting": "k300", "alpha0": 10.0, "gamma": 0.5,
                       "chains": chains}]}  # fmt: skip
    path = tmp_path / "hdp_document_sparsity.json"
    path.write_text(json.dumps(study))
    (row,) = hook.sparsity_rows(path)
    assert row == [
        "`k300`", "tomotopy", "10, 0.5", "12 ± 3 → 14 ± 3", "5.0 ± 1.4 → 4.0 ± 1.4",
        "-5.250 ± 0.354 → -6.250 ± 0.354", "-7.100 ± 0.141 → -6.850 ± 0.071",
        "-6.100 ± 0.141 / -7.000 ± 0.000", "2",
        "`hdp_document_sparsity.json`",
    ]  # fmt: skip
