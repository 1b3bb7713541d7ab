"""No secret (an API key, a URL password, a value of any secret option name), raw, percent-encoded or
base64, reaches a message, a log record (at DEBUG, the HTTP client's included) or a file; typo'd
specs do not echo it; a 401 with requests in flight is one clear error, not a traceback per task."""

from __future__ import annotations

import base64
import gc
import logging
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from llm_server import ReplayServer

from arts_metric.cli import main as cli_main
from arts_metric.judges import get_judge
from arts_metric.llm.runner import EndpointError
from arts_metric.scrub import SECRET_KEYS, scrub

TEXTS = [
    "The cat sat on the mat.",
    "Dogs run in the park every morning.",
    "Photosynthesis converts light energy into chemical energy.",
    "We ate soup for dinner.",
    "Mitochondria produce most of the chemical energy of the cell.",
    "The bus was late again.",
    "Quantum chromodynamics describes the strong interaction.",
    "Birds sing at dawn.",
]
KEY = "sk-KEYvalue0123456789"
PASSWORD = "PASSwordXYZ987"
SLASHED = "Pq7Zx/Wv3Rt/Kj9Lm"  # a URL parser splits it: each piece is looked for too
OPTION_VALUES = {name: f"S3cret-{name.replace('-', '')}-value" for name in sorted(SECRET_KEYS)}
SECRETS = [KEY, PASSWORD, SLASHED, *OPTION_VALUES.values()]


def forms(secret: str, user: str = "alice") -> set[str]:
    """The secret raw, percent-encoded, and base64 (alone and as the Basic credential ``user:secret``)."""
    out = {secret, quote(secret, safe=""), *secret.split("/")}
    for raw in (secret, f"{user}:{secret}"):
        for enc in (base64.b64encode, base64.urlsafe_b64encode):
            out.add(enc(raw.encode()).decode().rstrip("="))
    return out


def leaks(text: str) -> list[str]:
    return sorted(f for s in SECRETS for f in forms(s) if f in text)


def files_with_secrets(folder: Path) -> list[str]:
    found = []
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path.name}: {f}" for s in SECRETS for f in forms(s) if f.encode() in data]
    return found


@pytest.fixture
def debug_log(caplog):
    caplog.set_level(logging.DEBUG)  # every logger, the HTTP client's included
    return caplog


def test_scrub_masks_every_form():
    text = (
        f"Basic {base64.b64encode(f'alice:{PASSWORD}'.encode()).decode()} Bearer {KEY} "
        f"http://alice:{SLASHED}@host/v1 " + " ".join(f"{k}={v}" for k, v in OPTION_VALUES.items())
    )
    clean = scrub(text)
    assert leaks(clean) == [] and "http://***@host/v1" in clean and "token=***" in clean


def test_a_run_with_every_kind_of_secret_leaves_none_in_messages_logs_or_files(tmp_path, debug_log, capfd):
    srv = ReplayServer(TEXTS)
    url = srv.start()
    host = url.removeprefix("http://")
    spec = f"openai:m@http://alice:{PASSWORD}@{host}"
    messages = []
    try:
        judge = get_judge(spec, api_key=KEY, cache_dir=str(tmp_path / "cache"), progress=False)
        judge.compare([(TEXTS[i], TEXTS[i + 1]) for i in range(6)])
        messages += [repr(judge), str(judge.signature() if callable(getattr(judge, "signature", None)) else "")]
    finally:
        srv.stop()
    # The credentials still reach the server, as HTTP Basic authentication.
    assert f"Basic {base64.b64encode(f'alice:{PASSWORD}'.encode()).decode()}" in srv.auth_headers
    assert srv.chat_requests == 6
    records = [r.getMessage() for r in debug_log.records]
    assert any("HTTP Request" in m for m in records)  # the client's request log was captured
    messages += records + list(capfd.readouterr())
    assert leaks("\n".join(messages)) == []
    assert files_with_secrets(tmp_path) == []


def test_a_401_with_requests_in_flight_is_one_error_without_the_credential(tmp_path, debug_log, capfd):
    srv = ReplayServer(TEXTS, api_key="the-right-key", latency=0.05)  # echoes the credential it got
    url = srv.start()
    spec = f"openai:m@{url.replace('http://', f'http://alice:{PASSWORD}@')}"
    pairs = [(a, b) for a in TEXTS for b in TEXTS if a != b]
    errors = []
    try:
        for _ in range(6):  # how many failures land before the run stops varies: several tries
            judge = get_judge(spec, api_key=KEY, concurrency=16, cache=False, progress=False)
            with pytest.raises(EndpointError) as info:
                judge.compare(pairs)
            errors.append(str(info.value))
            del info, judge  # the traceback holds the session's tasks
            gc.collect()  # unretrieved task exceptions are reported when their tasks are collected
    finally:
        srv.stop()
    assert srv.stats["status_401"] >= 12  # several requests were in flight each time
    error = errors[0]
    out, err = capfd.readouterr()
    text = "\n".join([*errors, out, err, *(r.getMessage() for r in debug_log.records)])
    assert "HTTP 401" in error
    assert "never retrieved" not in text and "Traceback" not in text
    assert leaks(text) == []


@pytest.mark.parametrize(
    "spec",
    [
        f"opnai:m@http://alice:{PASSWORD}@127.0.0.1:9/v1",  # a typo in the prefix
        f"openai:my model@http://alice:{PASSWORD}@127.0.0.1:9/v1",  # a space in the model name
        f"openai:m@http://alice:{PASSWORD}@127.0.0.1:9/v1?token={OPTION_VALUES['token']}&token=x",  # twice
        f"openai:m@http://alice:{SLASHED}@127.0.0.1:9/v1",  # a password containing '/'
        f"openai:m@http://alice:{SLASHED}@127.0.0.1:9/v1?colour=blue",
        f"openai:m@http://127.0.0.1:9/v1?secret={OPTION_VALUES['secret']}&key={OPTION_VALUES['key']}",
    ],
)
def test_typoed_specs_do_not_echo_their_secrets(spec, tmp_path):
    with pytest.raises((ValueError, TypeError, EndpointError)) as info:
        judge = get_judge(spec, cache_dir=str(tmp_path), progress=False, max_retries=0)
        judge.compare([(TEXTS[0], TEXTS[1])])  # a spec that parses still fails: nothing listens on port 9
    text = str(info.value) + repr(info.value) + "".join(map(str, info.value.args))
    assert leaks(text) == [], text


def test_cli_build_masks_every_secret_option_name(tmp_path, monkeypatch, capsys, debug_log):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS) + "\n")
    srv = ReplayServer(TEXTS)
    url = srv.start()
    host = url.removeprefix("http://")
    try:
        for name, value in OPTION_VALUES.items():
            rater = f"openai:m@http://alice:{PASSWORD}@{host} {name}={value} persona=medical"
            argv = ["build", str(texts), "--out", str(tmp_path / "out"), "--matches-per-text", "2", "--no-progress"]
            monkeypatch.setattr(sys, "argv", ["arts", *argv, "--rater", rater])
            cli_main([*argv, "--rater", rater])
        out, err = capsys.readouterr()
    finally:
        srv.stop()
    text = "\n".join([out, err, *(r.getMessage() for r in debug_log.records)])
    assert "error" in text  # some options are refused by the judge: their error was printed and scanned
    assert leaks(text) == [], leaks(text)
    assert files_with_secrets(tmp_path) == []
