"""A chat-completions server on 127.0.0.1 that answers like the recorded ARTS judges.

It speaks the OpenAI protocol (``POST /v1/chat/completions``, ``GET /v1/models``,
OpenAI-style error bodies, ``usage`` fields) over real HTTP/1.1 with keep-alive,
so the official ``openai`` client talks to it unmodified. It is built on the
standard library (``asyncio`` streams) and runs its own event loop in a thread.

It knows the pool texts and the recorded judgments, but never the indices the
client meant: it splits the actual prompt at the triple-backtick delimiters,
finds which texts are in it (and in which order), recognises the prompt
(pairwise, listwise, 0-1 score, 1-5 ease, CEFR) by its wording, and answers
from the record for exactly those texts:

- pairwise: the recorded decision of that ordered pair ("A" = text A easier),
  else the reversed pair's decision flipped, else a deterministic rule: the
  shorter text is easier, except for a share ``unknown_noise`` of unordered
  pairs (chosen by a hash of the two texts) where the longer one is; texts
  that are not pool texts (newcomers) are judged by the same rule;
- 0-1 score: the recorded raw answer of that text (ARTS A.2.4), else its
  length / 400 (capped at 1);
- 1-5 ease / CEFR: derived from the 0-1 score (synthetic);
- listwise: the recorded ranking, translated to the ids used in the prompt.

Faults can be injected: 429 with ``Retry-After``, 500, timeouts (the request
stalls past the client's timeout), unusable answers, a position bias, HTTP 200
replies without an answer (``choices: []`` or ``content: null``), and faults
tied to a text (``Faults.by_text``: every prompt containing it gets a 500, an
empty reply, a null content or a hang).

Run standalone (used by the benchmark): ``python tests/llm_server.py --pool
arts3000 --history arts3000/gpt-4-1106-preview/pairwise-run1 --latency 0.05``
prints ``READY <base_url>`` and serves until stdin closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

#: Self-written pool texts (unrated: a judge must rate them first, which costs requests).
OWN_POOL = [
    "The sun is hot.",
    "I like apples and pears.",
    "Our neighbours bought a red car last week.",
    "The train to the city leaves every hour in the morning.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "Heterogeneous catalysis proceeds via adsorption of reactants onto active surface sites.",
]

REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
}
_LIST_ITEM = re.compile(r"text id (\d+): ```(.*?)```", re.S)
_PAIR = re.compile(r"Text A:\s*```(.*?)```\s*Text B:\s*```(.*?)```", re.S)


@dataclass
class Faults:
    """Per-request fault probabilities (drawn from a seeded RNG) and their parameters."""

    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_timeout: float = 0.0
    rate_unusable: float = 0.0
    retry_after: float | None = 0.05  # seconds sent in Retry-After with a 429 (None: no header)
    hang: float = 1.0  # seconds a "timeout" request stalls before answering
    fail_first: int = 0  # the first N chat requests get a 429, deterministically
    position_bias: float = 0.0  # share of pairwise prompts answered "A" whatever the texts
    reject_max_tokens: bool = False  # answer 400 to "max_tokens", like OpenAI's newer models
    reject_containing: str | None = None  # answer 400 (context length) to prompts containing this
    rate_empty: float = 0.0  # HTTP 200 with "choices": []
    rate_null: float = 0.0  # HTTP 200 with "content": null
    #: text -> fault for every prompt that contains it: "500", "empty", "null", "hang" (stall
    #: ``hang`` s), or "hang_once" (only the first request that contains it stalls)
    by_text: dict = field(default_factory=dict)
    #: ``(kind, answer) -> reply`` sent instead of every answer (a hostile or odd model), e.g. kind "listwise"
    rewrite: Callable[[str, str], str] | None = None
    seed: int = 0


class ReplayServer:
    """See the module docstring. ``texts[i]`` is pool text ``i``; ``history`` are
    :class:`arts_metric.data.Match` rows; ``pointwise`` maps index -> raw answer;
    ``listwise`` is a recorded ranking of indices (easiest first)."""

    def __init__(
        self,
        texts: Sequence[str],
        history: Sequence | None = None,
        pointwise: dict[int, str] | None = None,
        listwise: Sequence[int] | None = None,
        latency: float = 0.0,
        faults: Faults | None = None,
        api_key: str | None = None,
        model: str | None = None,
        unknown_noise: float = 0.0,
    ) -> None:
        self.texts = [t.strip() for t in texts]
        self.by_text: dict[str, int] = {}
        for i, t in enumerate(self.texts):
            self.by_text.setdefault(t, i)
        self.pair_answer: dict[tuple[str, str], str] = {}
        for m in history or ():
            if m.harder is None:
                continue
            # The prompt asks for the EASIER text; the record names the harder one.
            letter = "B" if m.harder == m.a else "A"
            self.pair_answer.setdefault((self.texts[m.a], self.texts[m.b]), letter)
        self.pointwise = {self.texts[i]: str(a) for i, a in (pointwise or {}).items()}
        self.listwise = list(listwise) if listwise is not None else None
        self.latency = latency
        self.faults = faults or Faults()
        self.api_key = api_key
        self.model = model
        self.unknown_noise = unknown_noise
        self.stats: Counter = Counter()
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.request_times: list[float] = []
        self.request_log: list[tuple[float, str]] = []  # (monotonic arrival time, prompt) of every chat request
        self._hung_once: set[str] = set()
        self.last_prompts: list[str] = []
        self.topics: Counter = Counter()
        self.auth_headers: set[str] = set()
        self._rng = random.Random(self.faults.seed)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self.base_url = ""

    # -- lifecycle ---------------------------------------------------------
    def start(self, port: int = 0) -> str:
        """Serve on ``port`` of 127.0.0.1 (0: any free one); returns the base URL."""
        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._handle, "127.0.0.1", port, backlog=512)
            )
            bound = self._server.sockets[0].getsockname()[1]
            self.base_url = f"http://127.0.0.1:{bound}/v1"
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="llm-replay-server", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("test server did not start")
        return self.base_url

    def stop(self) -> None:
        if self._loop is None:
            return

        async def shutdown() -> None:
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)  # handlers close their sockets

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()
        self._loop = None

    def __enter__(self) -> "ReplayServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def chat_requests(self) -> int:
        return self.stats["chat_requests"]

    # -- HTTP --------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    h = await reader.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                n = int(headers.get("content-length", "0") or 0)
                body = await reader.readexactly(n) if n else b""
                status, payload, extra = await self._route(method, path.split("?")[0], headers, body)
                data = json.dumps(payload).encode("utf-8")
                head = f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\nContent-Type: application/json\r\n"
                head += f"Content-Length: {len(data)}\r\n"
                head += "".join(f"{k}: {v}\r\n" for k, v in extra.items())
                writer.write(head.encode("latin-1") + b"\r\n" + data)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            try:
                writer.close()
            except RuntimeError:
                pass

    @staticmethod
    def _error(status: int, message: str, kind: str) -> tuple[int, dict, dict]:
        return status, {"error": {"message": message, "type": kind, "param": None, "code": None}}, {}

    async def _route(self, method: str, path: str, headers: dict, body: bytes) -> tuple[int, dict, dict]:
        self.auth_headers.add(headers.get("authorization", ""))
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            self.stats["status_401"] += 1
            # Echoes the key it was sent, as some servers do (the judge must not pass it on).
            sent = headers.get("authorization", "").removeprefix("Bearer ")
            return self._error(401, f"Incorrect API key provided: {sent}.", "invalid_request_error")
        if method == "GET" and path.endswith("/models"):
            return 200, {"object": "list", "data": [{"id": self.model or "replay", "object": "model"}]}, {}
        if method != "POST" or not path.endswith("/chat/completions"):
            return self._error(404, f"no route {method} {path}", "invalid_request_error")
        request = json.loads(body or b"{}")
        self.stats["chat_requests"] += 1
        self.request_times.append(time.monotonic())
        if self.model is not None and request.get("model") != self.model:
            self.stats["status_404"] += 1
            return self._error(404, f"The model `{request.get('model')}` does not exist.", "invalid_request_error")
        f = self.faults
        if f.reject_max_tokens and "max_tokens" in request:
            self.stats["status_400"] += 1
            return self._error(
                400,
                "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                "invalid_request_error",
            )
        prompt = "\n".join(str(m.get("content", "")) for m in request.get("messages", []))
        if f.reject_containing and f.reject_containing in prompt:
            self.stats["status_400"] += 1
            return self._error(400, "This model's maximum context length is 8 tokens.", "invalid_request_error")
        self.request_log.append((time.monotonic(), prompt))
        tied = next((kind for text, kind in f.by_text.items() if text in prompt), None)
        if tied == "hang_once":
            key = next(text for text, kind in f.by_text.items() if kind == "hang_once" and text in prompt)
            tied = None if key in self._hung_once else "hang"
            self._hung_once.add(key)
        if self.latency:
            await asyncio.sleep(self.latency)
        if self.stats["chat_requests"] <= f.fail_first:
            return self._throttle()
        u = self._rng.random()
        if u < f.rate_429:
            return self._throttle()
        u -= f.rate_429
        if u < f.rate_500 or tied == "500":
            self.stats["status_500"] += 1
            return self._error(500, "The server had an error while processing your request.", "server_error")
        u -= f.rate_500
        late = u < f.rate_timeout or tied == "hang"
        if late:  # stall past the client's timeout; the reply below is never read
            self.stats["timeouts"] += 1
            await asyncio.sleep(f.hang)
        u -= f.rate_timeout
        if u < f.rate_empty or tied == "empty":
            self.stats["empty_choices"] += 1
            return 200, self._completion(request, None, 0, 0, choices=[]), {}
        u -= f.rate_empty
        if u < f.rate_null or tied == "null":
            self.stats["null_content"] += 1
            return 200, self._completion(request, None, 0, 0), {}
        self.last_prompts = (self.last_prompts + [prompt])[-20:]
        kind, answer = self._answer(prompt)
        self.stats[f"kind_{kind}"] += 1
        if self._rng.random() < f.rate_unusable:
            self.stats["unusable"] += 1
            answer = "Both texts are about equally simple, so I cannot choose."
        if f.rewrite is not None:
            answer = f.rewrite(kind, answer)
        pt, ct = len(prompt.split()), max(1, len(answer.split()))
        if not late:
            self.prompt_tokens += pt
            self.completion_tokens += ct
            self.stats["status_200"] += 1
        return 200, self._completion(request, answer, pt, ct), {}

    def _completion(self, request: dict, answer: str | None, pt: int, ct: int, choices: list | None = None) -> dict:
        """A chat.completion body; ``answer=None`` gives ``content: null``, ``choices=[]`` none at all."""
        if choices is None:
            choices = [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": answer},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ]
        return {
            "id": f"chatcmpl-{self.stats['chat_requests']}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model"),
            "choices": choices,
            "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
        }

    def _throttle(self) -> tuple[int, dict, dict]:
        self.stats["status_429"] += 1
        status, payload, _ = self._error(429, "Rate limit reached. Please try again later.", "rate_limit_error")
        extra = {} if self.faults.retry_after is None else {"Retry-After": f"{self.faults.retry_after:g}"}
        return status, payload, extra

    # -- answers -----------------------------------------------------------
    def _found(self, prompt: str) -> list[str]:
        """Pool texts inside the prompt, in order of appearance (split at ``` delimiters)."""
        return [s for s in (seg.strip() for seg in prompt.split("```")) if s in self.by_text]

    @staticmethod
    def _last_block(prompt: str) -> str | None:
        """The text of the prompt's last ```-delimited block (the text a pointwise prompt asks about)."""
        segs = prompt.split("```")
        return segs[-2].strip() if len(segs) >= 3 and segs[-2].strip() else None

    def _unknown_pair(self, a: str, b: str) -> str:
        """The deterministic rule for a pair without a record: the shorter text is easier,
        flipped for a hash-chosen share ``unknown_noise`` of unordered pairs."""
        key = "\x00".join(sorted((a, b))).encode()
        flip = int(hashlib.sha256(key).hexdigest()[:8], 16) / 0xFFFFFFFF < self.unknown_noise
        a_easier = (len(a), a) <= (len(b), b)
        return "A" if a_easier != flip else "B"

    def _score(self, text: str) -> float:
        raw = self.pointwise.get(text)
        try:
            return min(1.0, max(0.0, float(raw)))
        except (TypeError, ValueError):
            return min(1.0, len(text) / 400.0)

    def _answer(self, prompt: str) -> tuple[str, str]:
        found = self._found(prompt)
        if "sorted list of these ids" in prompt:
            return "listwise", self._answer_listwise(prompt)
        pair = _PAIR.search(prompt)
        if pair is not None and len(found) != 2:  # a text that is not a pool text (a newcomer)
            found = [pair.group(1).strip(), pair.group(2).strip()]
        elif not found and self._last_block(prompt):
            found = [self._last_block(prompt)]
        if "CEFR" in prompt and found:
            level = 1 + int(round(5 * self._score(found[-1])))
            return "cefr", ["A1", "A2", "B1", "B2", "C1", "C2"][level - 1]
        if "reading ease" in prompt and found:
            ease = min(5, max(1, int(round(5 - 4 * self._score(found[-1])))))
            return "ease", json.dumps(
                {
                    "answer": ease,
                    "reason": f"Synthetic rating derived from a recorded score ({len(found[-1])} characters).",
                }
            )
        if "score its simplicity between 0 and 1" in prompt and len(found) == 1:
            text = found[0]
            if text not in self.pointwise:
                self.stats["unknown_texts"] += 1
            return "pointwise", self.pointwise.get(text, f"{self._score(text):.2f}")
        if "decide which one is simpler" in prompt and len(found) == 2:
            m = re.search(r'an expert on the topic "([^"]*)"', prompt)
            if m:
                self.topics[m.group(1)] += 1
            bias = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
            if bias < self.faults.position_bias:
                self.stats["biased"] += 1
                return "pairwise", "A"
            a, b = found
            if (a, b) in self.pair_answer:
                return "pairwise", self.pair_answer[(a, b)]
            if (b, a) in self.pair_answer:
                return "pairwise", "B" if self.pair_answer[(b, a)] == "A" else "A"
            self.stats["unknown_pairs"] += 1
            return "pairwise", self._unknown_pair(a, b)
        return "unrecognised", "I am not sure what you are asking me to do."

    def _answer_listwise(self, prompt: str) -> str:
        ids = {int(i): t.strip() for i, t in _LIST_ITEM.findall(prompt)}
        to_id = {self.by_text[t]: i for i, t in ids.items() if t in self.by_text}
        if self.listwise is None:
            return ", ".join(str(i) for i in sorted(ids, key=lambda i: len(ids[i])))
        spare = max(ids, default=-1) + 1
        out = []
        for idx in self.listwise:
            if idx in to_id:
                out.append(str(to_id[idx]))
            else:  # the record names a text that is not in this prompt: an id the prompt does not have
                out.append(str(spare))
                spare += 1
        return ", ".join(out)


def server_for(pool: str, history: str | None = None, data_dir=None, **kwargs) -> ReplayServer:
    """A server over a built-in pool and a history ``"JUDGE/RUN"`` (e.g. ``"gpt-4-1106-preview/pairwise-run1"``)."""
    from arts_metric import data as arts_data

    texts = [r["text"] for r in arts_data.load_pool_rows(pool, data_dir)]
    matches = None
    if history:
        judge, run = history.split("/")
        matches = arts_data.load_history(pool, judge, run, data_dir)
    return ReplayServer(texts, history=matches, **kwargs)


try:
    import pytest
except ImportError:  # the benchmark runs without pytest
    pytest = None

if pytest is not None:

    @pytest.fixture
    def make_server():
        """Factory fixture: ``make_server(texts, ...)`` -> a started :class:`ReplayServer`; all stopped at teardown."""
        servers: list[ReplayServer] = []

        def factory(*args, **kwargs) -> ReplayServer:
            srv = ReplayServer(*args, **kwargs)
            srv.start()
            servers.append(srv)
            return srv

        yield factory
        for srv in servers:
            srv.stop()


@contextlib.contextmanager
def server_process(*options: str, quiet: bool = False) -> Iterator[str]:
    """This server in its own interpreter (no GIL shared with the client) over ARTS3000
    and GPT-4's recorded pairwise run, with further command-line ``options`` (e.g.
    ``"--latency", "0.05"``); yields its base URL once it is ready and stops it on exit
    (killed if it does not stop within 10 s). ``quiet``: its stderr is dropped."""
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen(
        [sys.executable, __file__, "--pool", "arts3000", "--history", "gpt-4-1106-preview/pairwise-run1", *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL if quiet else None,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(root)),
    )
    try:
        line = proc.stdout.readline()
        if not line.startswith("READY "):
            raise RuntimeError(f"server did not start: {line!r}")
        yield line.split()[1]
    finally:
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # never leave the server running
            proc.kill()
            proc.wait()


def _main(argv: list[str] | None = None) -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pool", default="arts3000")
    p.add_argument("--history", help="JUDGE/RUN, e.g. gpt-4-1106-preview/pairwise-run1")
    p.add_argument("--latency", type=float, default=0.05, help="seconds added to every chat request")
    p.add_argument("--rate-hang", type=float, default=0.0, help="share of requests that stall --hang seconds")
    p.add_argument("--hang", type=float, default=1.0, help="seconds a stalled request stalls")
    p.add_argument(
        "--unknown-noise", type=float, default=0.0, help="share of unrecorded pairs answered longer-is-easier"
    )
    p.add_argument("--seed", type=int, default=0, help="seeds the fault draws")
    args = p.parse_args(argv)
    faults = Faults(rate_timeout=args.rate_hang, hang=args.hang, seed=args.seed)
    srv = server_for(args.pool, args.history, latency=args.latency, faults=faults, unknown_noise=args.unknown_noise)
    url = srv.start()
    print(f"READY {url}", flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin
    srv.stop()


if __name__ == "__main__":
    _main()
