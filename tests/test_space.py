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
from arts_metric.registry import module_script_path
from arts_metric.space import APP_FILES, assemble_space, source_root

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
