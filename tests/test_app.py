"""The Space's Gradio app (app.py), served as a Space serves it.

One server per module: ``arts publish-space`` assembles a Space folder and
``python app.py`` runs there (its own copy of the package, examples and agreement
tables), on 127.0.0.1 at the port given by ``GRADIO_SERVER_PORT``. Real headless
Chromium opens every tab, enters or uploads the example inputs, clicks and checks
that results and figures appear (screenshots under each test's temporary folder);
``gradio_client`` checks that every tab's function returns the numbers of the
package's API called directly. LLM judges: offered only when an endpoint is
configured, tested in-process against the real HTTP test server.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import gradio as gr
import numpy as np
import pandas as pd
import pytest
from browser import chromium
from gradio_client import Client, handle_file
from llm_server import ReplayServer

from arts_metric.data import load_pool_rows
from arts_metric.pool import load_pool
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.config import ScoringConfig
from arts_metric.space_app.actions import PAIRWISE_HEADING
from arts_metric.space_app.publish import assemble_space
from arts_metric.systems import compare_systems
from arts_metric.text.reading import read_rows

# One test process runs them all: the module starts one Space server and one browser.
pytestmark = pytest.mark.xdist_group("app")

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
SECRETS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ARTS_LLM_MODELS")
DEFAULT_POOL = ScoringConfig.default("pool")
SLOW = 240_000  # ms: the machine is shared; scoring on a busy CPU can take a while


def _load_app(path: Path = REPO / "app.py"):
    spec = importlib.util.spec_from_file_location("arts_app", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lines(path: Path) -> list[str]:
    return [r["text"] for r in read_rows(path)]


def _pairs() -> tuple[list[str], list[str]]:
    with open(EXAMPLES / "pairs.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    return [a for a, _ in rows], [b for _, b in rows]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``python app.py`` in a Space folder assembled by ``arts publish-space``; yields its URL."""
    space = assemble_space(tmp_path_factory.mktemp("space") / "arts")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in SECRETS and k not in ("PYTHONPATH", "GRADIO_SERVER_NAME")}
    env.update(
        GRADIO_SERVER_PORT=str(port),
        GRADIO_ANALYTICS_ENABLED="False",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        GRADIO_TEMP_DIR=str(tmp_path_factory.mktemp("gradio")),
    )
    proc = subprocess.Popen(
        [sys.executable, "app.py"], cwd=space, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output: list[str] = []
    threading.Thread(target=lambda: output.extend(proc.stdout), daemon=True).start()  # never blocks the test
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while not any(f"Running on local URL:  {url}" in line for line in output):
        assert proc.poll() is None, "app.py exited:\n" + "".join(output)[-3000:]
        assert time.monotonic() < deadline, "app.py did not start:\n" + "".join(output)[-3000:]
        time.sleep(0.5)
    yield {"url": url, "space": space, "output": output}
    proc.terminate()
    proc.wait(timeout=30)
    # Bad input is a message to the visitor, not an exception of the app's (Gradio itself logs
    # a traceback when it refuses a value outside a menu's choices).
    log = "".join(output)
    assert f'File "{space / "app.py"}"' not in log and 'app.py", line' not in log, log[-3000:]


@pytest.fixture(scope="module")
def client(server, tmp_path_factory):
    return Client(server["url"], verbose=False, download_files=str(tmp_path_factory.mktemp("downloads")))


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(server["url"])
    page.get_by_role("tab", name="Score texts").wait_for(timeout=SLOW)
    yield page
    page.close()


def _shot(page, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 20_000


def _plot_shown(page, elem_id: str) -> None:
    img = page.locator(f"#{elem_id} img")
    img.wait_for(timeout=SLOW)
    assert page.evaluate(f"document.querySelector('#{elem_id} img').naturalWidth") > 300


# --------------------------------------------------------------------------- in the browser


@pytest.mark.slow
def test_score_tab_in_the_browser(page, tmp_path):
    texts = _lines(EXAMPLES / "texts.txt")
    assert page.get_by_label("Judge").count() == 0  # no endpoint configured: no judge choice at all
    box = page.locator("#texts textarea")
    box.fill("\n".join(texts))
    _shot(page, tmp_path, "score-before")
    page.get_by_role("button", name="Score", exact=True).click()
    page.locator("#score-summary", has_text="Mean ARTS").wait_for(timeout=SLOW)
    _plot_shown(page, "score-plot")
    table = page.locator("#score-table")
    for text in texts:  # a long text is cut in its cell (a click shows it whole)
        assert table.get_by_text(text[:60]).count() >= 1, text
    assert page.get_by_text("higher = easier").count() >= 1  # the legend: FRE the other way round
    page.locator("#score-csv", has_text="arts_scores").wait_for(timeout=SLOW)
    page.locator("#score-sentences", has_text="Each of these texts is one sentence.").wait_for(timeout=SLOW)
    _shot(page, tmp_path, "score")
    # An error clears the previous results, and its toast closes by itself.
    box.fill("\n".join(f"Text {i}." for i in range(2001)))
    page.get_by_role("button", name="Score", exact=True).click()
    toast = page.get_by_text("2001 texts: this Space scores at most")
    toast.wait_for(timeout=SLOW)
    assert "Mean ARTS" not in page.locator("#score-summary").inner_text()
    assert "Sentence by sentence" not in page.locator("#score-sentences").inner_text()
    assert (
        page.locator("#score-plot img").count() == 0 and "arts_scores" not in page.locator("#score-csv").inner_text()
    )
    _shot(page, tmp_path, "score-error")
    toast.wait_for(state="detached", timeout=30_000)


def test_score_tab_breaks_a_paragraph_into_its_sentences_the_hardest_marked(page, tmp_path):
    paragraph = (
        "The cat sat on the mat. Notwithstanding the foregoing, the lessee shall indemnify the lessor against "
        "all liabilities arising hereunder. Then it went <i>home</i>."
    )
    page.locator("#texts textarea").fill(f"{paragraph}\nThe dog ran to the park.")
    page.get_by_role("button", name="Score", exact=True).click()
    page.locator("#score-summary", has_text="Mean ARTS").wait_for(timeout=SLOW)
    breakdown = page.locator("#score-sentences")
    breakdown.locator(".arts-text").first.wait_for(timeout=SLOW)
    assert breakdown.locator(".arts-text").count() == 1  # line 2 is one sentence: not broken down
    assert breakdown.get_by_text("weighted by their words").count() == 1  # the legend
    assert breakdown.get_by_text("marks the hardest sentence of each text").count() == 1
    rows = breakdown.locator(".arts-text tbody tr").evaluate_all(
        "rows => rows.map(r => [[...r.querySelectorAll('td')].map(c => c.innerText.trim()), "
        "getComputedStyle(r).backgroundColor])"
    )
    assert [cells[3] for cells, _ in rows] == [
        "The cat sat on the mat.",
        "Notwithstanding the foregoing, the lessee shall indemnify the lessor against all liabilities arising "
        "hereunder.",
        "Then it went <i>home</i>.",  # the visitor's text is shown, not run as HTML
    ]
    arts = [float(cells[1]) for cells, _ in rows]
    marked = [k for k, (cells, _) in enumerate(rows) if cells[0].startswith("▲")]
    assert marked == [arts.index(max(arts))] == [1], rows
    colours = [colour for _, colour in rows]
    assert colours[1] == "rgb(255, 224, 138)" and colours[0] == colours[2] != colours[1], colours
    assert breakdown.locator("i").count() == 0
    _shot(page, tmp_path, "score-sentences")


def test_score_tab_in_french_in_the_browser(page, tmp_path):
    """Choosing French: the formulas become French's, and the texts are placed in the French pool."""
    assert page.locator("#language input").input_value() == "English"
    page.locator("#language input").click()
    page.get_by_role("option", name="French").click()
    page.get_by_role("checkbox", name="kandel_moles").wait_for(timeout=SLOW)
    assert page.get_by_role("checkbox", name="fkgl", exact=True).count() == 0
    # the table's label follows the formulas: French's reads higher = easier, and FRE is not reported
    page.get_by_role("grid", name="Scores (arts: higher = harder; kandel_moles: higher = easier)").wait_for(
        timeout=SLOW
    )
    assert "FRE" not in page.locator("#score-table [role=grid]").get_attribute("aria-label")
    page.locator("#texts textarea").fill("Le chat dort sur le tapis.\nLa jurisprudence subordonne la recevabilité.")
    page.get_by_role("button", name="Score", exact=True).click()
    summary = page.locator("#score-summary", has_text="readmepp_fr")
    summary.wait_for(timeout=SLOW)
    assert "French texts are scored against the French pool" in summary.inner_text()
    assert page.locator("#score-table").get_by_text("kandel_moles").count() >= 1
    _plot_shown(page, "score-plot")
    _shot(page, tmp_path, "score-french")


def test_pairs_tab_uploads_a_csv_and_colours_verdicts(page, tmp_path):
    originals, simplified = _pairs()
    page.get_by_role("tab", name="Original vs simplification").click()
    page.locator("#originals textarea").fill("")
    page.locator("#pairs-file input[type=file]").set_input_files(str(EXAMPLES / "pairs.csv"))
    page.wait_for_function("document.querySelector('#originals textarea').value.length > 0", timeout=SLOW)
    assert page.locator("#originals textarea").input_value() == "\n".join(originals)
    assert page.locator("#simplifications textarea").input_value() == "\n".join(simplified)
    page.get_by_role("button", name="Compare pairs").click()
    page.locator("#pairs-summary", has_text="simplifications easier").wait_for(timeout=SLOW)
    _plot_shown(page, "pairs-plot")
    table = page.locator("#pairs-table")
    colours = table.locator(".body-cell").evaluate_all(  # Gradio 6 draws the table as div cells
        "cells => cells.map(c => [c.innerText.trim(), getComputedStyle(c).backgroundColor])"
    )
    verdicts = {}
    for text, colour in colours:
        if text in ("easier", "harder"):
            verdicts.setdefault(text, set()).add(colour)
    # pairs.csv has one simplification that is harder; both verdict columns are coloured
    assert verdicts == {"easier": {"rgb(200, 236, 201)"}, "harder": {"rgb(248, 201, 196)"}}, colours
    _shot(page, tmp_path, "pairs")


def test_a_later_success_closes_the_toasts_of_an_earlier_error(page):
    page.locator("#texts textarea").fill("The cat sat.\n\nThe dog ran.")
    page.get_by_role("button", name="Score", exact=True).click()
    error = page.locator(".toast-body", has_text="blank line")
    error.first.wait_for(timeout=SLOW)
    page.locator("#texts textarea").fill("The cat sat.\nThe dog ran.")
    page.get_by_role("button", name="Score", exact=True).click()
    page.locator("#score-summary", has_text="Mean ARTS").wait_for(timeout=SLOW)
    assert error.count() == 0
    page.get_by_role("tab", name="Compare systems").click()
    page.get_by_role("button", name="Compare systems").wait_for(timeout=SLOW)
    assert page.get_by_text("Pairwise tests").count() == 0  # no heading over tests not run yet


def test_an_error_names_the_line_and_shows_no_traceback(page, tmp_path):
    page.get_by_role("tab", name="Original vs simplification").click()
    page.locator("#originals textarea").fill("The cat sat.\nThe dog barked loudly.\nBirds sing.")
    page.locator("#simplifications textarea").fill("The cat sat.\n\nBirds sing.")
    page.get_by_role("button", name="Compare pairs").click()
    page.get_by_text("Line 2: the simplification is empty").wait_for(timeout=SLOW)
    assert page.get_by_text("Traceback").count() == 0
    _shot(page, tmp_path, "pairs-error")


def _visible_in(page, elem_id: str, name: str) -> bool:
    """Whether the text ``name`` inside ``#elem_id`` is drawn within the element's visible box."""
    return page.evaluate(
        """([id, name]) => {
            const box = document.getElementById(id);
            const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
            let node;
            while ((node = walker.nextNode())) {
                if (!node.textContent.includes(name)) continue;
                const r = node.parentElement.getBoundingClientRect();
                let el = node.parentElement, ok = r.height > 0;
                while (ok && el && el !== box.parentElement) {
                    const c = el.getBoundingClientRect(), style = getComputedStyle(el);
                    if (style.overflowY !== 'visible' && (r.top < c.top - 1 || r.bottom > c.bottom + 1)) ok = false;
                    el = el.parentElement;
                }
                if (ok) return true;
            }
            return false;
        }""",
        [elem_id, name],
    )


#: The headers matching a selector whose words (split at spaces and hyphens) break across lines.
BROKEN_WORDS_JS = """(selector) => [...document.querySelectorAll(selector)].flatMap(th => {
    const broken = [], walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
        for (const m of node.textContent.matchAll(/[^\\s-]+/g)) {
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
            if (tops.size > 1) broken.push(th.innerText.trim() + ': ' + m[0]);
        }
    }
    return broken;
})"""


def test_systems_tab_uploads_files_and_offers_downloads(page, tmp_path):
    compare = EXAMPLES / "compare"
    page.set_viewport_size({"width": 1366, "height": 768})
    page.get_by_role("tab", name="Compare systems").click()
    page.locator("#sources-file input[type=file]").set_input_files(str(compare / "sources.txt"))
    copy = tmp_path / "copy.txt"
    copy.write_text((compare / "sources.txt").read_text(encoding="utf-8"), encoding="utf-8")
    page.locator("#system-files input[type=file]").set_input_files(
        [str(compare / "light.txt"), str(compare / "strong.txt"), str(copy)]
    )
    page.wait_for_function(
        "document.querySelector('#sources-file').textContent.includes('sources') && "
        "['light', 'strong', 'copy'].every(n => "
        "document.querySelector('#system-files').textContent.includes(n))",
        timeout=SLOW,
    )
    for name in ("light", "strong", "copy"):  # the upload box shows every file, none scrolled out of view
        assert _visible_in(page, "system-files", name), name
    page.get_by_role("button", name="Compare systems").click()
    page.locator("#leaderboard table").wait_for(timeout=SLOW)
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == 3
    assert rows.nth(0).locator("td").nth(1).inner_text() == "strong"  # simplest first
    assert rows.nth(2).locator("td").nth(1).inner_text() == "copy"
    assert page.evaluate(BROKEN_WORDS_JS, "#leaderboard th, #pairwise th") == []  # headers wrap between words
    for header in ("ARTS mean [95% CI]", "simplicity rating [95% CI]", "judged simpler", "meaning kept (flagged)"):
        assert page.locator("#leaderboard th", has_text=header).count() == 1, header
    assert (
        page.locator("#leaderboard", has_text="It counts content kept, not whether it is said correctly").count() == 1
    )
    assert page.locator("#pairwise tbody tr").count() == 3
    # nothing clipped at 1366 px: each table ends inside its box and inside the window
    for elem_id in ("leaderboard", "pairwise"):
        fits = page.evaluate(
            f"""(() => {{ const box = document.getElementById('{elem_id}');
                const t = box.querySelector('table'), r = t.getBoundingClientRect();
                return [t.scrollWidth <= t.clientWidth + 1, r.right <= box.getBoundingClientRect().right + 1,
                        r.right <= window.innerWidth]; }})()"""
        )
        assert fits == [True, True, True], (elem_id, fits)
    _plot_shown(page, "compare-plot")
    downloads = page.locator("#downloads").text_content()
    for name in ("leaderboard", "pairwise", "win_rates", "per_output"):  # Gradio shows "leaderboard .csv"
        assert name in downloads, downloads
    _shot(page, tmp_path, "systems")


def test_about_tab_shows_agreement_citation_and_card(page, tmp_path):
    page.get_by_role("tab", name="About").click()
    agreement = page.locator("#agreement")
    agreement.get_by_text("learned judge (learned-1, learned:v1)", exact=True).wait_for(timeout=SLOW)
    assert agreement.locator("table tbody tr").count() >= 5
    assert page.locator("#cite", has_text="@inproceedings{engelmann-etal-2024-arts").count() == 1
    page.get_by_text("Every approach, beside the ARTS paper's Table 3").click()
    page.locator("#approaches table").first.wait_for(timeout=SLOW)
    about = page.locator("#agreement").inner_text() + page.locator("#approaches").inner_text()
    assert "alin=" not in about and "python" not in about
    long_texts = page.locator("#long-texts")
    assert long_texts.get_by_text("weighted by their words").count() == 1
    assert long_texts.get_by_text('long_texts="team"').count() == 1
    page.get_by_text("The metric card").click()
    page.locator("#card", has_text="Metric Card for ARTS").wait_for(timeout=SLOW)
    _shot(page, tmp_path, "about")


# --------------------------------------------------------------------------- the API: same numbers as the package


def _records(table: dict) -> pd.DataFrame:
    return pd.DataFrame(table["data"], columns=table["headers"])


def test_score_api_returns_the_package_numbers(client):
    texts = _lines(EXAMPLES / "texts.txt")
    table, plot, summary, csv_file, sentences = client.predict(
        "\n".join(texts), "arts3000", ["fkgl", "fre"], "learned", api_name="/score"
    )
    got = _records(table)
    want = score_texts(texts, formulas=["fkgl", "fre"])
    assert list(got.columns) == ["line", "arts", "arts_elo", "fkgl", "fre", "text"]
    assert list(got["text"]) == texts and list(got["line"]) == list(range(1, len(texts) + 1))
    for key in ("arts", "arts_elo", "fkgl", "fre"):  # arts_elo: the package's own number, the figure's axis
        assert list(got[key]) == pytest.approx(want[key], abs=1e-9), key
    downloaded = pd.read_csv(csv_file)
    assert list(downloaded.columns) == list(got.columns)
    assert list(downloaded["arts"]) == pytest.approx(want["arts"], abs=1e-12)
    assert f"{want['arts_mean']:.3f}" in summary
    assert plot["type"] == "matplotlib" and plot["plot"].startswith("data:image/")
    assert "Each of these texts is one sentence." in sentences  # the example texts are one sentence each


def test_score_api_takes_the_language_of_the_texts(client):
    """French texts with the language French: the numbers of ``language="fr"``, the French pool
    and formula, whatever English pool is chosen."""
    texts = ["Le chat dort sur le tapis.", "La jurisprudence constante subordonne la recevabilité du pourvoi."]
    table, _, summary, _, _ = client.predict(
        "\n".join(texts), "arts3000", ["fkgl", "fre"], "learned", "fr", api_name="/score"
    )
    got = _records(table)
    want = score_texts(texts, language="fr")
    assert list(got.columns) == ["line", "arts", "arts_elo", "kandel_moles", "text"]
    for key in ("arts", "arts_elo", "kandel_moles"):
        assert list(got[key]) == pytest.approx(want[key], abs=1e-9), key
    assert "readmepp_fr" in summary and "not arts3000" in summary


def test_pairs_api_returns_the_package_numbers(client):
    originals, simplified = _pairs()
    table, plot, summary = client.predict(
        "\n".join(originals), "\n".join(simplified), "arts300", "learned", api_name="/compare_pairs"
    )
    got = _records(table)
    want = score_texts(simplified, sources=originals, formulas=["fkgl"], pool="arts300")
    for key in ("source_arts", "arts", "arts_delta", "p_output_easier", "source_fkgl", "fkgl"):
        assert list(got[key]) == pytest.approx(want[key], abs=1e-9), key
    assert list(got["ARTS verdict"]) == ["easier" if p > 0.5 else "harder" for p in want["p_output_easier"]]
    assert list(got["FKGL verdict"]) == [
        "easier" if s > o else "harder" for s, o in zip(want["source_fkgl"], want["fkgl"])
    ]
    assert "harder" in list(got["ARTS verdict"]) and "easier" in list(got["ARTS verdict"])
    assert f"{want['arts_delta_mean']:+.3f}" in summary and "arts300" in summary
    assert plot["plot"].startswith("data:image/")


def test_systems_api_returns_the_package_numbers(client):
    compare = EXAMPLES / "compare"
    board_md, plot, pairwise_md, board, files = client.predict(
        handle_file(str(compare / "sources.txt")),
        [handle_file(str(compare / "light.txt")), handle_file(str(compare / "strong.txt"))],
        "gentle, bold",
        "arts3000",
        ["pool", "head_to_head"],
        "learned",
        api_name="/compare_systems",
    )
    want = compare_systems(
        {"gentle": _lines(compare / "light.txt"), "bold": _lines(compare / "strong.txt")},
        sources=_lines(compare / "sources.txt"),
    )
    got = _records(board)
    assert list(got["system"]) == list(want.leaderboard["system"]) == ["bold", "gentle"]
    for key in (
        "arts_mean",
        "arts_mean_low",
        "arts_mean_high",
        "arts_delta_mean",
        "p_output_easier_mean",
        "rating",
        "rating_low",
        "rating_high",
        "win_rate",
        "simplicity_rating",
        "judged_simpler",
        "rank",
    ):
        assert list(got[key]) == pytest.approx(list(want.leaderboard[key]), abs=1e-9), key
    assert pairwise_md == (PAIRWISE_HEADING + want.pairwise_markdown()).strip()
    # the meaning-kept guard: the light rewrite keeps more of its sources than the strong one, with its caveat
    by = got.set_index("system")
    assert 0 < by.loc["bold", "meaning_kept"] < by.loc["gentle", "meaning_kept"] <= 1
    assert (
        "meaning kept (flagged)" in board_md and "It counts content kept, not whether it is said correctly" in board_md
    )
    assert "higher = simpler" in board_md
    by_name = {Path(f).name: Path(f) for f in files}
    assert sorted(by_name) == ["leaderboard.csv", "pairwise.csv", "per_output.csv", "win_rates.csv"]
    downloaded = pd.read_csv(by_name["pairwise.csv"])
    assert list(downloaded["p_value"]) == pytest.approx(list(want.pairwise["p_value"]), abs=1e-12)
    assert len(pd.read_csv(by_name["per_output.csv"])) == 2 * len(_lines(compare / "sources.txt"))
    assert plot["plot"].startswith("data:image/")


def test_api_errors_name_the_line(client, tmp_path):
    with pytest.raises(Exception, match=r"Line 3: the original is empty"):
        client.predict("a b c.\nd e f.\n\ng h.", "a.\nd.\nx.\ng.", "arts3000", "learned", api_name="/compare_pairs")
    with pytest.raises(Exception, match=r"originals have 2 lines but the simplifications have 3"):
        client.predict("a.\nb.", "a.\nb.\nc.", "arts3000", "learned", api_name="/compare_pairs")
    with pytest.raises(Exception, match=r"2001 texts: this Space scores at most 2000 per click"):
        client.predict("\n".join(f"Text {i}." for i in range(2001)), "arts3000", [], "learned", api_name="/score")
    short = tmp_path / "short.txt"
    short.write_text("Only one.\nTwo.\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"'short' has 2"):
        client.predict(
            handle_file(str(EXAMPLES / "compare" / "sources.txt")),
            [handle_file(str(EXAMPLES / "compare" / "light.txt")), handle_file(str(short))],
            "",
            "arts3000",
            ["pool"],
            "learned",
            api_name="/compare_systems",
        )
    blank = tmp_path / "blank.txt"
    blank.write_text("One.\n\nThree.\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"blank.txt line 2: blank line"):
        client.predict(
            None, [handle_file(str(blank))], "", "arts3000", ["pool"], "learned", api_name="/compare_systems"
        )


def test_api_offers_only_the_configured_judges_and_builtin_pools(client):
    """Visitors choose from menus, but the API takes any string: a path or a URL must not get
    through (Gradio checks the menus' choices; the app checks again, see the in-process test)."""
    refused = r"not in the list of choices|Unknown (pool|judge)"
    with pytest.raises(Exception, match=refused):
        client.predict("The cat sat.", "/etc/passwd", [], "learned", api_name="/score")
    with pytest.raises(Exception, match=refused):
        client.predict("The cat sat.", "arts3000", [], "openai:m@http://127.0.0.1:9/v1", api_name="/score")
    with pytest.raises(Exception, match=refused):
        client.predict("The cat sat.", "arts3000", [], "history:/etc/passwd", api_name="/compare_pairs")


def test_long_inputs_report_progress(client):
    texts = [
        f"Sentence number {i} says that the {w} committee met on day {i % 28 + 1}."
        for i, w in ((i, ("small", "large", "municipal", "federal")[i % 4]) for i in range(600))
    ]
    job = client.submit("\n".join(texts), "arts3000", [], "learned", api_name="/score")
    progress = []
    while not job.done():
        status = job.status()
        if status.progress_data:
            progress += [(p.desc, p.index, p.length) for p in status.progress_data]
        time.sleep(0.05)
    assert len(_records(job.result()[0])) == 600
    assert any(length and length > 1 for _, _, length in progress), progress  # the learned judge's batches


# --------------------------------------------------------------------------- LLM judges: only when configured


def test_llm_judges_appear_only_when_the_owner_configures_an_endpoint():
    app = _load_app()
    assert app.configured_judges({}) == ["learned"]
    assert app.configured_judges({"OPENAI_API_KEY": "k"}) == ["learned", "openai:gpt-4o-mini"]
    assert app.configured_judges({"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "ARTS_LLM_MODELS": "a, b"}) == [
        "learned",
        "openai:a",
        "openai:b",
    ]


def test_llm_judge_from_the_spaces_secrets(monkeypatch, data_dir, tmp_path, capfd):
    """An endpoint in the environment (a Space's secrets) adds its judge; the key and the URL
    appear nowhere in the page's configuration or in the output, and a click is scored by it."""
    secret = "sk-test-never-shown-4711"
    srv = ReplayServer([r["text"] for r in load_pool_rows("arts94", data_dir)], api_key=secret)
    url = srv.start()
    try:
        for k in SECRETS:
            monkeypatch.delenv(k, raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", secret)
        monkeypatch.setenv("ARTS_LLM_MODELS", "replay")
        monkeypatch.setenv("ARTS_DATA_DIR", str(data_dir))
        monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
        app = _load_app()
        demo = app.build_app()
        config = json.dumps(demo.get_config_file(), default=str)
        assert secret not in config and url not in config and "replay" in config
        judge = next(b for b in demo.blocks.values() if isinstance(b, gr.Dropdown) and b.label == "Judge")
        assert judge.visible and [c[0] for c in judge.choices] == ["learned", "openai:replay"]
        texts = "The dog ran.\nNotwithstanding the foregoing, the lessee shall indemnify the lessor hereunder."
        styled, _, summary, _, _ = app.score(texts, "arts94", ["fkgl"], "openai:replay", progress=lambda *a, **k: None)
        assert srv.chat_requests > 0 and "openai:replay" in summary
        table = styled.data
        assert table["arts"].between(0, 1).all() and table["arts"].iloc[0] < table["arts"].iloc[1]
        with pytest.raises(gr.Error, match="Unknown judge"):
            app.score("The dog ran.", "arts94", [], "openai:gpt-4o", progress=lambda *a, **k: None)
        with pytest.raises(gr.Error, match="Unknown pool"):
            app.score("The dog ran.", "/etc/passwd", [], "learned", progress=lambda *a, **k: None)
        with pytest.raises(gr.Error, match="line 3 is not valid Unicode"):  # no browser sends this; a script can
            app.score(
                "Fine text.\nOther text.\nBroken \ud800 text.", "arts94", [], "learned", progress=lambda *a, **k: None
            )
        message = app.hide_endpoint(f"openai:replay: {url}/chat/completions unreachable (key {secret})")
        assert url not in message and secret not in message and "[the Space's endpoint]" in message
    finally:
        srv.stop()
    out, err = capfd.readouterr()
    assert secret not in out + err and url not in out + err


# --------------------------------------------------------------------------- figures and tables, in-process


def _strong_rewrites(n: int = 30) -> tuple[list[int], dict, dict, dict]:
    """Pairs whose outputs fall far below the originals' range (strong rewrites)."""
    before = {"ARTS": [0.80 + 0.005 * (k % 10) for k in range(n)], "FKGL": [14.0 + 0.1 * k for k in range(n)]}
    after = {"ARTS": [0.05 + 0.02 * (k % 10) for k in range(n)], "FKGL": [3.0 + 0.1 * k for k in range(n)]}
    verdicts = {"ARTS": ["easier"] * n, "FKGL": ["easier"] * n}
    return list(range(1, n + 1)), before, after, verdicts


def test_pairs_figure_keeps_every_arrow_inside_its_axis():
    app = _load_app()
    lines, before, after, verdicts = _strong_rewrites()
    fig = app.pairs_figure(lines, before, after, verdicts)
    for ax, panel in zip(fig.axes, ("ARTS", "FKGL")):
        low, high = ax.get_xlim()
        arrows = [t for t in ax.texts if t.arrow_patch is not None]
        assert len(arrows) == 30
        for ann, b, a in zip(arrows, before[panel], after[panel]):
            assert low < a < high and low < b < high, (panel, a, b, low, high)


def _bars(ax) -> list[float]:
    """The heights of the pool histogram's bars, not the shaded range behind them (zorder 0)."""
    return [p.get_height() for p in ax.patches if p.get_zorder() > 0]


def test_score_figure_draws_each_text_at_its_arts_elo_and_marks_texts_beyond():
    """One Elo scale: each text at the ``arts_elo`` the table shows, never moved into the pool's
    range; dashed outside that range; a text beyond the axis at its edge, with its rating."""
    app = _load_app()
    ratings = np.sort(load_pool("arts3000").ratings)
    elo = [700.0, 1200.0, 1300.0, 5000.0, None]  # easier than the pool, inside, harder, far beyond, no score
    fig = app.pool_figure("arts3000", [1, 2, 3, 4, 5], elo)
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    drawn = {line.get_xdata()[0]: line.get_linestyle() for line in ax.lines}
    assert sorted(drawn) == [700.0, 1200.0, 1300.0]  # where the table puts them, not within the pool's range
    assert drawn[1200.0] == "-" and drawn[700.0] == drawn[1300.0] == "--"  # dashed: beyond the pool's range
    assert low < 700.0 and 1300.0 < high < 5000.0 and low < ratings[0] and ratings[-1] < high
    beyond = [t for t in ax.texts if "beyond the axis" in t.get_text()]
    assert [t.get_text() for t in beyond] == ["4 at 5000, beyond the axis"]
    assert beyond[0].xy[0] == pytest.approx(high)  # its arrow points at the right edge
    assert "arts_elo" in ax.get_xlabel() and f"{ratings[0]:.0f} to {ratings[-1]:.0f}" in ax.get_xlabel()


@pytest.mark.parametrize("pool", ["arts3000", "arts300", "arts94"])
def test_the_pool_figure_draws_a_distribution_not_a_barcode(pool):
    """The pool's ratings bunch at the steps of its rating schedule: the histogram's bins are
    wide enough that no bar dips below its neighbours by more than chance (40 narrow bins drew
    a barcode: empty bins between full ones)."""
    app = _load_app()
    bars = _bars(app.pool_figure(pool, [1], [1200.0]).axes[0])
    assert 4 <= len(bars) <= 30 and sum(bars) == len(load_pool(pool).ratings)
    near = [min(bars[k - 1], bars[k + 1]) for k in range(1, len(bars) - 1)]
    dips = [k + 1 for k, m in enumerate(near) if bars[k + 1] < 0.8 * m and bars[k + 1] < m - 2 * m**0.5]
    assert not dips, bars


def test_score_figure_with_500_texts_is_a_histogram_not_a_barcode():
    app = _load_app()
    elo = list(np.linspace(600.0, 1800.0, 500))
    fig = app.pool_figure("arts3000", list(range(1, 501)), elo)
    assert sum(len(ax.lines) for ax in fig.axes) == 0  # no line per text
    assert len(fig.axes[-1].patches) >= 1 and "your texts" in fig.axes[-1].get_ylabel()


def test_about_tab_shows_no_developer_internals():
    app = _load_app()
    text = "\n".join(app.about_markdown())
    for internal in ("alin=", "CV choice", ".venv/bin/python", "Regenerate", "Where the code lives"):
        assert internal not in text, internal
    assert "learned judge (learned-1" in text  # the tables stay


def _drawn_arrows(page, elem_id: str, tmp_path: Path) -> list[int]:
    """Arrows per panel in the figure as the browser shows it: the bands of rows holding a
    green or red stroke (the verdicts' colours), in each half of the decoded image."""
    import base64
    import io

    import numpy as np
    from PIL import Image
    from scipy import ndimage

    src = page.locator(f"#{elem_id} img").get_attribute("src")
    image = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB")
    image.save(tmp_path / f"{elem_id}.png")
    rgb = np.asarray(image).astype(int)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    coloured = ((g - r > 25) & (g - b > 25)) | ((r - g > 60) & (r - b > 60))
    half = coloured.shape[1] // 2
    return [int(ndimage.label(part.sum(axis=1) >= 20)[1]) for part in (coloured[:, :half], coloured[:, half:])]


def test_pairs_plot_draws_every_arrow_of_strong_rewrites(page, tmp_path):
    subjects = ("council", "ministry", "committee", "board", "tribunal", "agency")
    actions = ("postponed", "reconsidered", "suspended", "reviewed", "deferred")
    originals = [
        f"Notwithstanding considerable opposition, the {subjects[i % 6]} {actions[i % 5]} its deliberations "
        f"concerning the proposed amendments to regulation {i + 3} until the auditors had completed their review."
        for i in range(30)
    ]
    simplified = [f"The {('cat', 'dog', 'boy', 'girl', 'man')[i % 5]} sat. It was day {i + 1}." for i in range(30)]
    page.get_by_role("tab", name="Original vs simplification").click()
    page.locator("#originals textarea").fill("\n".join(originals))
    page.locator("#simplifications textarea").fill("\n".join(simplified))
    page.get_by_role("button", name="Compare pairs").click()
    page.locator("#pairs-summary", has_text="simplifications easier").wait_for(timeout=SLOW)
    _plot_shown(page, "pairs-plot")
    _shot(page, tmp_path, "pairs-30")
    assert _drawn_arrows(page, "pairs-plot", tmp_path) == [30, 30]  # ARTS and FKGL panels: every pair's arrow


def _markdown_table(page, elem_id: str) -> list[dict[str, str]]:
    """The rows of the first table in ``#elem_id`` as the browser shows them, by header."""
    return page.evaluate(
        """(id) => { const t = document.querySelector('#' + id + ' table');
            const head = [...t.querySelectorAll('thead th')].map(h => h.innerText.trim());
            return [...t.querySelectorAll('tbody tr')].map(r => Object.fromEntries(
                [...r.querySelectorAll('td')].map((c, k) => [head[k], c.innerText.trim()]))); }""",
        elem_id,
    )


def _compare_in_page(page, tmp_path: Path, sources: list[str], systems: dict[str, list[str]]) -> None:
    src = tmp_path / "sources.txt"
    src.write_text("\n".join(sources) + "\n", encoding="utf-8")
    files = []
    for name, lines in systems.items():
        files.append(tmp_path / f"{name}.txt")
        files[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    page.get_by_role("tab", name="Compare systems").click()
    page.locator("#sources-file input[type=file]").set_input_files(str(src))
    page.locator("#system-files input[type=file]").set_input_files([str(f) for f in files])
    page.wait_for_function(
        f"{list(systems)}.every(n => document.querySelector('#system-files').textContent.includes(n))",
        timeout=SLOW,
    )
    page.get_by_role("button", name="Compare systems").click()
    page.locator("#leaderboard table").wait_for(timeout=SLOW)


def test_systems_tab_flags_a_system_that_cuts_its_sources_short(page, tmp_path):
    sources = _lines(EXAMPLES / "compare" / "sources.txt")
    cut = [" ".join(s.split()[:9]) for s in sources]  # keeps the first 9 words: broken sentences
    _compare_in_page(page, tmp_path, sources, {"light": _lines(EXAMPLES / "compare" / "light.txt"), "cut": cut})
    rows = {r["system"]: r for r in _markdown_table(page, "leaderboard")}
    assert rows["cut"]["meaning kept (flagged)"].endswith(f"({len(sources)})"), rows
    assert rows["light"]["meaning kept (flagged)"].endswith("(0)"), rows
    _shot(page, tmp_path, "systems-cut")


def test_systems_tab_prints_the_smallest_p_as_below_the_resolution(page, tmp_path):
    # 20 inputs: 2 ** 20 sign patterns > 10,000 random flips, so the smallest p is 1 / 10,001
    sources = [
        f"Notwithstanding considerable opposition, the committee postponed its deliberations concerning the "
        f"proposed amendments to regulation {i + 3} until the auditors had completed their comprehensive review."
        for i in range(20)
    ]
    simple = [f"The {('cat', 'dog', 'boy', 'girl', 'man')[i % 5]} sat. It was day {i + 1}." for i in range(20)]
    _compare_in_page(page, tmp_path, sources, {"copy": sources, "simple": simple})
    rows = _markdown_table(page, "pairwise")
    assert len(rows) == 1 and rows[0]["p"] == "< 1e-4", rows
    _shot(page, tmp_path, "systems-p")


def _elo_lines_in_figure(page, elem_id: str, tmp_path: Path) -> tuple[list[float], int, int]:
    """Pixel columns of the figure as the browser shows it: the centres of the full-height
    blue lines (one per text) and the left and right frame of the axes (black spines)."""
    import base64
    import io

    import numpy as np
    from PIL import Image
    from scipy import ndimage

    src = page.locator(f"#{elem_id} img").get_attribute("src")
    image = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB")
    image.save(tmp_path / f"{elem_id}.png")
    rgb = np.asarray(image).astype(int)
    black = (rgb.max(axis=2) < 60).sum(axis=0)
    frame = np.flatnonzero(black >= 0.8 * black.max())
    blue = (np.abs(rgb - np.array([31, 78, 121])).max(axis=2) < 40).sum(axis=0)
    labels, n = ndimage.label(blue >= 0.5 * black.max())
    centres = [float(np.flatnonzero(labels == k + 1).mean()) for k in range(n)]
    return centres, int(frame.min()), int(frame.max())


def test_score_table_and_figure_show_one_elo_scale_in_the_page(page, tmp_path):
    texts = [
        "I like my red bike.",
        "The river flooded, so the bridge was closed.",
        "Notwithstanding considerable opposition, the committee postponed its deliberations concerning the "
        "proposed amendments until the auditors had completed their comprehensive review of the accounts.",
    ]
    page.locator("#texts textarea").fill("\n".join(texts))
    page.get_by_role("button", name="Score", exact=True).click()
    page.locator("#score-summary", has_text="Mean ARTS").wait_for(timeout=SLOW)
    _plot_shown(page, "score-plot")
    from arts_metric.space_app.figures import _axis

    table = page.locator("#score-table")
    table.get_by_text(texts[0]).first.wait_for(timeout=SLOW)
    head = table.locator("thead th").evaluate_all("cells => cells.map(c => c.innerText.trim())")
    body = table.locator(".body-cell").evaluate_all("cells => cells.map(c => c.innerText.trim())")
    rows = [body[k : k + len(head)] for k in range(0, len(body), len(head))]
    mine = [r for r in rows if r[head.index("line")] in ("1", "2", "3")]
    shown = sorted(float(r[head.index("arts_elo")]) for r in mine)
    assert len(shown) == 3, (head, rows)
    pool = load_pool(DEFAULT_POOL)
    ratings = np.sort(pool.ratings)
    # one scale: each arts_elo sits among the pool's ratings where the text's arts says
    for r in mine:
        place = float(pool.arts_of_rating([float(r[head.index("arts_elo")])])[0])
        assert place == pytest.approx(float(r[head.index("arts")]), abs=0.05), r
    low, high = _axis(ratings, shown)
    centres, left, right = _elo_lines_in_figure(page, "score-plot", tmp_path)
    drawn = sorted(low + (c - left) / (right - left) * (high - low) for c in centres)
    per_pixel = (high - low) / (right - left)
    # every Elo number of the table is where the figure draws its text
    assert drawn == pytest.approx(shown, abs=3 * per_pixel), (drawn, shown, per_pixel)


PARAGRAPH = (
    "The cat sat on the mat. Notwithstanding the foregoing, the lessee shall indemnify the lessor against all "
    "liabilities arising hereunder, including reasonable costs incurred in connection with any claim. Then it "
    "went home and slept until the morning light came through the window of the old house."
)
TABS = ("Score texts", "Original vs simplification", "Compare systems", "About")

#: Per header cell of table ``#id``: its text, its lines (distinct tops of its text's line boxes), its
#: right edge, and the right edge of the scrolling box it is in (the page's width when none).
HEADERS_JS = """(id) => [...document.querySelectorAll('#' + id + ' thead th')].map(th => {
    const tops = new Set(), walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
        if (!node.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
    }
    let el = th.parentElement, box = null;
    while (el && !box) {
        if (['auto', 'scroll'].includes(getComputedStyle(el).overflowX)) box = el;
        el = el.parentElement;
    }
    const b = box ? box.getBoundingClientRect() : {left: 0, right: window.innerWidth};
    return {text: th.innerText.trim(), lines: tops.size, right: th.getBoundingClientRect().right,
            box_left: b.left, box_right: b.right, scrolls: box ? box.scrollWidth > box.clientWidth : false};
})"""


def _check_table(page, elem_id: str, width: int, fits: bool) -> list[dict]:
    """Every header of ``#elem_id`` on one line; the table inside the page, with every column in view
    (``fits``) or in a box that scrolls sideways."""
    heads = page.evaluate(HEADERS_JS, elem_id)
    assert heads and all(h["lines"] == 1 for h in heads), (width, elem_id, heads)
    for h in heads:
        assert -1 <= h["box_left"] and h["box_right"] <= width + 1, (width, elem_id, h)
        assert h["right"] <= h["box_right"] + 1 or h["scrolls"], (width, elem_id, h)
        if fits:
            assert h["right"] <= h["box_right"] + 1, (width, elem_id, h)
    return heads


def _check_plot(page, elem_id: str, width: int) -> None:
    """The figure at least 200 px tall, below its label, and scrolling sideways rather than clipped."""
    _plot_shown(page, elem_id)
    box = page.evaluate(
        """(id) => { const img = document.querySelector('#' + id + ' img').getBoundingClientRect();
            const label = document.querySelector('#' + id + ' [data-testid=block-label]').getBoundingClientRect();
            return {top: img.top, left: img.left, height: img.height, label_bottom: label.bottom}; }""",
        elem_id,
    )
    assert box["height"] >= 200 and box["label_bottom"] <= box["top"] + 1 and box["left"] >= 0, (width, box)


@pytest.mark.parametrize("width,height,fits", [(1280, 900, True), (390, 844, False)])
def test_the_page_reads_on_a_desktop_and_on_a_phone(server, browser, tmp_path, width, height, fits):
    """With a paragraph among the texts: every tab one tap away, figures at least 200 px tall below
    their label, table headers on one line, tables in the page (on a phone: scrolling sideways),
    every row in view, a text cut in its cell shown whole on a click."""
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    try:
        page.goto(server["url"])
        for name in TABS:  # each tab a button of the tab bar, in view: none behind a "More tabs" menu
            tab = page.get_by_role("tab", name=name)
            tab.wait_for(timeout=SLOW)
            box = tab.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (name, box)
        assert page.get_by_role("button", name="More tabs").count() == 0
        page.wait_for_function("document.querySelectorAll('#score-table thead th').length > 0", timeout=SLOW)
        heads = [h["text"] for h in page.evaluate(HEADERS_JS, "score-table")]
        assert heads == ["line", "arts", "arts_elo", "fkgl", "fre", "dale_chall", "text"]  # not "1 2 3"
        texts = ["I like my red bike.", PARAGRAPH, "The river flooded, so the bridge was closed.", "Dogs bark."]
        page.locator("#texts textarea").fill("\n".join(texts))
        page.get_by_role("button", name="Score", exact=True).click()
        page.locator("#score-summary", has_text="4 texts").wait_for(timeout=SLOW)
        _check_plot(page, "score-plot", width)
        table = page.locator("#score-table")
        table.get_by_text(texts[0]).first.wait_for(timeout=SLOW)
        _check_table(page, "score-table", width, fits)
        cells = page.evaluate(
            """() => { const vp = document.querySelector('#score-table .virtual-table-viewport');
                const bottom = vp.getBoundingClientRect().bottom;
                return [...vp.querySelectorAll('.body-cell')]
                    .map(c => c.getBoundingClientRect().bottom <= bottom + 1); }"""
        )
        assert cells == [True] * 4 * len(heads), cells  # every row in view, the paragraph's too
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing widens the page
        # the sentence breakdown: every number in view on one line, each sentence readable beside them
        cells = page.evaluate(
            """() => [...document.querySelectorAll('#score-sentences .arts-text tbody tr')].map(r =>
                [...r.querySelectorAll('td')].map(c => { const b = c.getBoundingClientRect();
                    const range = document.createRange(); range.selectNodeContents(c);
                    const tops = [...range.getClientRects()].filter(x => x.width > 0).map(x => x.top);
                    const lines = tops.sort((x, y) => x - y).filter((t, k, a) => k === 0 || t - a[k - 1] > 8).length;
                    return {right: b.right, width: b.width, lines: lines}; }))"""
        )
        assert len(cells) == 3, cells
        for row in cells:
            assert all(c["right"] <= width + 1 for c in row), (width, row)  # nothing hidden sideways
            assert [c["lines"] for c in row[:3]] == [1, 1, 1], (width, row)  # each number on one line
            table_width = row[3]["right"] - (row[0]["right"] - row[0]["width"])
            assert row[3]["width"] >= 0.45 * table_width, (width, row)  # the sentence, not 4 letters of it
        _shot(page, tmp_path, f"score-{width}")
        table.locator(".body-cell", has_text="The cat sat on the mat.").first.click()  # its text is cut ...
        table.get_by_text("came through the window of the old house.", exact=False).first.wait_for(timeout=SLOW)
        page.get_by_role("tab", name="Original vs simplification").click()  # ... and the tabs are one tap away
        page.get_by_role("button", name="Compare pairs").click()
        page.locator("#pairs-summary", has_text="simplifications easier").wait_for(timeout=SLOW)
        _check_plot(page, "pairs-plot", width)
        _check_table(page, "pairs-table", width, fits=False)  # two texts and nine numbers: it scrolls
        page.get_by_role("tab", name="About").click()
        page.locator("#agreement table").first.wait_for(timeout=SLOW)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # the agreement table: headers break between words only, numbers stay whole, it scrolls if it must
        for h in page.evaluate(HEADERS_JS, "agreement"):
            assert h["box_right"] <= width + 1 and (h["right"] <= h["box_right"] + 1 or h["scrolls"]), (width, h)
        assert page.evaluate(BROKEN_WORDS_JS, "#agreement th") == [], width
        numbers = page.evaluate(
            """() => [...document.querySelectorAll('#agreement td')].map(c => {
                const r = document.createRange(); r.selectNodeContents(c);
                const tops = [...r.getClientRects()].filter(b => b.width > 0).map(b => b.top).sort((x, y) => x - y);
                const lines = tops.filter((t, k) => k === 0 || t - tops[k - 1] > 8).length;  // inline code sits a pixel off
                return [c.innerText.trim(), lines]; })"""
        )
        assert numbers and [cell for cell in numbers if cell[1] > 1] == [], width
        _shot(page, tmp_path, f"pairs-{width}")
    finally:
        page.close()


def test_the_score_tables_label_names_only_the_chosen_formulas_that_read_higher_easier():
    from arts_metric.space_app.layout import table_label

    assert table_label(["fkgl", "fre", "dale_chall"]) == (
        "Scores (arts: higher = harder; FRE: higher = easier). Click a text to read it whole."
    )
    french = table_label(["kandel_moles"])  # French: FRE is not reported
    assert "FRE" not in french and "kandel_moles: higher = easier" in french
    assert table_label([]) == "Scores (arts: higher = harder). Click a text to read it whole."


def test_space_messages_name_the_menu_not_the_api_setting():
    from arts_metric.languages.scripts import script_warning
    from arts_metric.space_app.calls import page_words

    message = page_words(script_warning(["The cat sat.", "هذا نص عربي بسيط للاختبار."], "en", "predictions"))
    assert "language=" not in message and "predictions" not in message.split("(")[0]
    assert '"Language of the texts: English" scores them against an English pool' in message
    assert message.endswith('choose the texts\' language in "Language of the texts" (for Arabic script: Arabic)')
