"""`arts publish-space DIR`: the metric's Space folder, loadable with evaluate.load(DIR) offline,
with the app and every file it shows."""

from __future__ import annotations

import importlib.util
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from llm_server import ReplayServer
from packaging.requirements import Requirement

from arts_metric import __version__
from arts_metric.cli import main as cli_main
from arts_metric.evaluate_module.registry import module_script_path
from arts_metric.scoring.api import score_texts
from arts_metric.space_app.publish import APP_FILES, assemble_space, source_root

POOL = [  # self-written reference texts with made-up ratings (higher = harder)
    ("The sun is hot.", 1000.0),
    ("I like apples and pears.", 1080.0),
    ("Our neighbours bought a red car last week.", 1160.0),
    ("The train to the city leaves every hour in the morning.", 1240.0),
    ("Photosynthesis converts light energy into chemical energy stored in glucose.", 1320.0),
    ("Heterogeneous catalysis proceeds via adsorption of reactants onto active surface sites.", 1400.0),
]


@pytest.fixture
def space(tmp_path, capsys):
    folder = tmp_path / "arts"
    assert cli_main(["publish-space", str(folder), "--no-check"]) == 0
    assert "wrote" in capsys.readouterr().out
    return folder


def test_space_folder_contents(space):
    assert sorted(p.name for p in space.iterdir()) == [
        "README.md",
        "app.py",
        "arts.py",
        "arts_metric",
        "benchmarks",
        "examples",
        "requirements.txt",
    ]
    root = source_root()
    assert (space / "arts.py").read_bytes() == module_script_path().read_bytes()
    assert (space / "README.md").read_text() == (root / "metric_card.md").read_text()
    assert (space / "app.py").read_text() == (root / "app.py").read_text()
    header = re.match(r"^---\n(.*?)\n---\n", (space / "README.md").read_text(), re.S).group(1)
    assert "app_file: app.py" in header and "sdk:" in header
    # the package ships in the folder (unpacked from its wheel), weights included
    package = space / "arts_metric"
    assert (package / "__init__.py").read_text() == (root / "arts_metric" / "__init__.py").read_text()
    assert (package / "resources" / "learned_judge" / "model.json").is_file()
    assert not list(package.rglob("__pycache__"))
    # requirements: the package's runtime dependencies (ranges), not an unpublished arts-metric==version,
    # then the app's figures (the plot extra); gradio comes with the Space's SDK
    reqs = [ln for ln in (space / "requirements.txt").read_text().splitlines() if ln and not ln.startswith("#")]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    expected = project["dependencies"] + project["optional-dependencies"]["plot"]
    assert [str(Requirement(r)) for r in reqs] == [str(Requirement(d)) for d in expected]
    assert any(r.startswith("matplotlib") for r in reqs)
    assert not any("arts-metric" in r or "gradio" in r for r in reqs)


def test_space_carries_what_its_app_shows(space):
    """The app reads its examples and the agreement tables beside itself, and the card from
    README.md (a Space's card): the Space's copy of app.py finds them all in the Space."""
    root = source_root()
    for rel in APP_FILES:
        copied = (
            sorted(p.relative_to(space) for p in (space / rel).rglob("*") if p.is_file())
            if (space / rel).is_dir()
            else [Path(rel)]
        )
        original = (
            sorted(
                p.relative_to(root) for p in (root / rel).rglob("*") if p.is_file() and "__pycache__" not in p.parts
            )
            if (root / rel).is_dir()
            else [Path(rel)]
        )
        assert copied == original and all((space / p).read_bytes() == (root / p).read_bytes() for p in copied)
    spec = importlib.util.spec_from_file_location("space_app", space / "app.py")
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)  # module level only: the model loads in build_app()
    assert app.HERE == space.resolve() and app.CARD == space.resolve() / "README.md"
    agreement, approaches, cite, card = app.about_markdown()
    assert "learned judge (learned-1, `learned:v1`)" in agreement and "| approach | Spearman |" in agreement
    assert "Learned judge (ours)" in approaches and "ARTS paper, Table 3" in approaches
    assert "missing" not in agreement + approaches and "@inproceedings{engelmann-etal-2024-arts" in cite
    documents = app.documents_summary()  # the documents' figures travel with the Space
    assert "missing" not in documents and "| figure | criterion | 0.2 (team) | 0.3 (default) |" in documents
    assert card.lstrip().startswith("# Metric Card for ARTS")  # the YAML header is not shown
    assert app.read_pairs_file(str(space / "examples" / "pairs.csv"))[0].count("\n") >= 2
    assert (space / "examples" / "compare" / "sources.txt").is_file()


def test_evaluate_loads_the_space_offline(space, no_network, capsys):
    import evaluate

    module = evaluate.load(str(space))
    assert module.name == "arts"
    # one feature schema holds every input; an input not given is stored as None
    assert sorted(module.features) == ["predictions", "references", "sources"]
    assert "higher = harder" in module.description.lower()
    # ... and scores with the default offline judge against the default pool.
    out = module.compute(predictions=["Cats sleep.", "Epigenetic modifications modulate chromatin accessibility."])
    assert out["judge"] == "learned" and out["pool"] == "arts3000" and out["arts"][0] < out["arts"][1]
    # The CLI's own check does the same.
    assert cli_main(["publish-space", str(space), "--force"]) == 0
    assert "evaluate.load" in capsys.readouterr().out


def test_space_module_scores_texts(space, tmp_path, monkeypatch):
    import evaluate

    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    predictions = [
        "Cats sleep.",
        "Epigenetic modifications modulate chromatin accessibility without altering nucleotide sequences.",
    ]
    srv = ReplayServer([t for t, _ in POOL] + predictions)  # a local LLM: the shorter text is easier
    url = srv.start()
    try:
        module = evaluate.load(str(space))
        out = module.compute(
            predictions=predictions,
            pool=[{"text": t, "elo": e} for t, e in POOL],
            judge=f"openai:m@{url}",
            judge_options={"progress": False},
            formulas=["fkgl"],
        )
    finally:
        srv.stop()
    assert srv.chat_requests > 0
    assert out["arts"][0] < out["arts"][1]
    assert out["arts_metric_version"] == __version__


def test_refuses_to_overwrite_and_bad_names(tmp_path, space):
    with pytest.raises(ValueError, match="not empty"):
        assemble_space(space)
    with pytest.raises(ValueError, match="space name"):
        assemble_space(tmp_path / "x", name="bad name")
    empty = tmp_path / "src"
    empty.mkdir()
    with pytest.raises(ValueError, match="metric_card.md"):
        assemble_space(tmp_path / "y", source=empty)
    # a checkout without the files the app shows is refused before anything is built
    for name in ("metric_card.md", "app.py"):
        shutil.copyfile(source_root() / name, empty / name)
    with pytest.raises(ValueError, match="examples, benchmarks/results/arts94_metrics.md"):
        assemble_space(tmp_path / "z", source=empty)
    assert not (tmp_path / "z").exists()
    assert cli_main(["publish-space", str(space)]) == 2


# --------------------------------------------------------------------------- the Score tab's sentence breakdown

PARAGRAPH = (
    "The cat sat on the mat. Notwithstanding the foregoing, the lessee shall indemnify the lessor against all "
    "liabilities arising hereunder. Then it went <b>home</b>."
)


def _texts_shown(breakdown: str) -> dict[int, list[dict]]:
    """The breakdown's texts by line: each sentence row's cells and whether it is marked hardest."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(breakdown)  # well-formed: the visitor's text is escaped
    shown = {}
    for div in root.iter("div"):
        if div.get("class") != "arts-text":
            continue
        shown[int(div.get("data-line"))] = [
            {
                "cells": ["".join(td.itertext()) for td in tr.findall("td")],
                "hardest": tr.get("class") == "hardest" and "background-color" in tr.get("style", ""),
            }
            for tr in div.find("table").find("tbody").findall("tr")
        ]
    return shown


def test_the_score_tab_shows_each_texts_sentences_the_hardest_marked():
    from arts_metric.space_app import SENTENCES_LEGEND, score

    texts = f"{PARAGRAPH}\nThe dog ran to the park.\nIt rained. The river rose.\n"
    table, _, _, _, breakdown = score(texts, "arts3000", [], "learned", progress=lambda *a, **k: None)
    res = score_texts(
        [PARAGRAPH, "The dog ran to the park.", "It rained. The river rose."], formulas=[], return_sentences=True
    )
    shown = _texts_shown(breakdown)
    assert sorted(shown) == [1, 3]  # the visitor's line numbers; line 2 has one sentence: no breakdown
    assert SENTENCES_LEGEND in breakdown and "weighted by their words" in SENTENCES_LEGEND
    for line, sentences in ((1, res["sentences"][0]), (3, res["sentences"][2])):
        rows = shown[line]
        assert [r["cells"][3] for r in rows] == [s["text"] for s in sentences]  # as written, tags as text
        assert [r["cells"][1] for r in rows] == [f"{s['arts']:.3f}" for s in sentences]
        assert [r["cells"][2] for r in rows] == [str(s["words"]) for s in sentences]
        hardest = max(range(len(sentences)), key=lambda k: sentences[k]["arts_elo"])
        assert [r["hardest"] for r in rows] == [k == hardest for k in range(len(rows))]
        assert rows[hardest]["cells"][0] == f"▲ {hardest + 1}"
    assert shown[1][1]["hardest"] and shown[1][2]["cells"][3] == "Then it went <b>home</b>."
    assert f"Line 1</b>: arts {table.data['arts'].iloc[0]:.3f}, 3 sentences, 26 words" in breakdown


def test_the_breakdown_of_one_sentence_texts_and_of_many_texts(monkeypatch):
    from arts_metric.space_app import sentences

    one = {"text": "Hi.", "arts": 0.1, "arts_elo": 800.0, "words": 1}
    two = [dict(one, arts_elo=900.0, arts=0.3), dict(one, text="Bye <now>.")]
    assert "Each of these texts is one sentence." in sentences.sentence_breakdown([1, 2], [0.1, 0.1], [[one], [one]])
    monkeypatch.setattr(sentences, "MAX_BREAKDOWN", 2)
    breakdown = sentences.sentence_breakdown([1, 2, 3], [0.2] * 3, [two] * 3)
    assert sorted(_texts_shown(breakdown)) == [1, 2]
    assert "The first 2 of 3 texts of several sentences are shown" in breakdown
    assert [r["hardest"] for r in _texts_shown(breakdown)[1]] == [True, False]


def test_the_about_tab_says_how_long_texts_are_scored():
    from arts_metric.space_app import LONG_TEXTS

    assert "weighted by their words" in LONG_TEXTS
    assert "how hard its language is, not how much there is to read" in LONG_TEXTS
    assert 'long_texts="team"' in LONG_TEXTS and "release 0.2" in LONG_TEXTS
    assert "sentence by sentence" in LONG_TEXTS and "arts score --sentences" in LONG_TEXTS
    assert re.findall(r"\d+(?:\.\d+)?", LONG_TEXTS) == ["0.2"]  # no figures: those live in the results


def test_the_about_tab_shows_the_documents_summary_from_the_results_file(tmp_path):
    from arts_metric.space_app import SpaceFiles, documents_summary

    results = Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "documents.md"
    text = results.read_text(encoding="utf-8")
    summary = text.split("## Summary\n", 1)[1].split("\n## ", 1)[0].strip()
    shown = documents_summary()
    assert summary in shown and "known levels" in shown
    assert "## 1. Repetition" not in shown  # the summary only; the sections are in the docs
    # a changed results file changes what the tab shows; a missing one is named
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "benchmarks" / "results" / "documents.md").write_text(
        "# t\n\n## Summary\n\n| figure | goal |\n|---|---|\n| x | 1 |\n\n## 1. Next\n", encoding="utf-8"
    )
    assert documents_summary(SpaceFiles(tmp_path)).endswith("| figure | goal |\n|---|---|\n| x | 1 |")
    assert "is missing" in documents_summary(SpaceFiles(tmp_path / "nowhere"))


# --------------------------------------------------------------------------- lines, counts and empty tables


@pytest.mark.parametrize(
    "text",
    ["One.\nTwo.\n", "One.\nTwo.\n\n  \n", "One.\n\nTwo.\n", "\nOne.\nTwo.", "One.\n \nTwo.", "One."],
)
def test_a_blank_line_is_treated_as_arts_score_treats_it(text):
    """One rule for one text per line, in the Space's boxes and for `arts score`: blank lines at the end
    are ignored, a blank line before a text is refused, naming it; the texts are numbered from 1."""
    import gradio as gr

    from arts_metric.space_app import numbered_lines, paired_lines
    from arts_metric.text.reading import labelled_lines

    try:
        cli = [(label, row["text"]) for label, row in labelled_lines(text.splitlines(), "stdin", "txt")]
    except ValueError as exc:
        line = re.match(r"stdin line (\d+): blank line", str(exc))[1]
        with pytest.raises(gr.Error, match=rf"Line {line} is blank: one text per line"):
            numbered_lines(text)
        with pytest.raises(gr.Error, match=rf"Line {line} is blank in both boxes"):
            paired_lines(text, text)
    else:
        assert [(f"stdin line {i}", t) for i, t in numbered_lines(text)] == cli
        assert [(i, a) for i, a, _ in paired_lines(text, text)] == numbered_lines(text)


def test_the_summary_counts_one_text_and_several_texts():
    from arts_metric.space_app import score

    quiet = {"progress": lambda *a, **k: None}
    assert score("The dog ran.", "arts94", [], "learned", **quiet)[2].startswith("**1 text** placed in")
    assert score("The dog ran.\nIt rained.", "arts94", [], "learned", **quiet)[2].startswith("**2 texts** placed")


def test_no_table_shows_placeholder_headers_before_or_between_clicks():
    """Gradio names the columns of an empty table 1 2 3; the Space's tables show their own columns
    before the first click and while a click clears the previous results."""
    import gradio as gr

    from arts_metric.space_app import build_app

    tables = {b.elem_id: b for b in build_app().blocks.values() if isinstance(b, gr.Dataframe)}
    assert set(tables) == {"score-table", "pairs-table", "leaderboard-table"}
    for name, table in tables.items():
        assert table.value["headers"] == table.postprocess(None).headers != ["1", "2", "3"], name
    assert tables["score-table"].value["headers"] == ["line", "arts", "arts_elo", "fkgl", "fre", "dale_chall", "text"]


# --------------------------------------------------------------------------- the Score tab's language

FRENCH = [
    "Le chat dort sur le tapis.",
    "La jurisprudence constante de la Cour de cassation subordonne la recevabilité du pourvoi à ces conditions.",
    "Il fait beau aujourd'hui. Nous allons au parc avec les enfants.",
]


def test_the_score_tab_scores_french_texts_as_compute_does(no_network):
    """French chosen on the Score tab: the French pool and judge, whatever English pool is chosen
    above (the summary says so), the French formula instead of the English ones, and the numbers of
    ``compute(..., language="fr")``."""
    import evaluate
    import gradio as gr

    from arts_metric.space_app import build_app, score
    from arts_metric.space_app.layout import formula_choices

    quiet = {"progress": lambda *a, **k: None}
    table, _, summary, csv_path, breakdown = score(
        "\n".join(FRENCH), "arts3000", ["fkgl", "fre"], "learned", "fr", **quiet
    )
    want = evaluate.load(str(module_script_path())).compute(predictions=FRENCH, language="fr")
    got = table.data
    assert list(got.columns) == ["line", "arts", "arts_elo", "kandel_moles", "text"]
    for key in ("arts", "arts_elo", "kandel_moles"):
        assert list(got[key]) == pytest.approx(want[key], abs=1e-12), key
    assert want["pool"] == "readmepp_fr" and "**readmepp_fr**" in summary and "the French judge (offline)" in summary
    assert "French texts are scored against the French pool, not arts3000, whose texts are English." in summary
    assert "Line 3</b>" in breakdown  # two sentences: shown sentence by sentence
    # English stays as it was: the English pool and judge, the chosen formulas, no word of languages
    english = score("The dog ran.", "arts94", ["fkgl"], "learned", "en", **quiet)
    assert english[0].data["arts"].iloc[0] == pytest.approx(score_texts(["The dog ran."], pool="arts94")["arts"][0])
    assert "arts94" in english[2] and "pool, not" not in english[2] and "fkgl" in english[0].data
    with pytest.raises(gr.Error, match=r"Unknown language .*de.*; choose one of en \(English\)"):
        score("Der Hund lief.", "arts94", [], "learned", "de", **quiet)
    # the page: a language menu with English first and chosen, the formulas following the language
    menu = next(b for b in build_app().blocks.values() if isinstance(b, gr.Dropdown) and b.elem_id == "language")
    assert menu.value == "en" and [c[0] for c in menu.choices] == ["English", "Arabic", "French", "Hindi", "Russian"]
    assert formula_choices("fr")["choices"] == ["kandel_moles"] and formula_choices("hi")["choices"] == []
    assert formula_choices("en")["value"] == ["fkgl", "fre", "dale_chall"]
