"""Request and cost budget: stop cleanly *before* a limit would be exceeded.

Every request (first tries, retries, re-asks and duplicates alike) reserves its share
before it is sent. ``max_requests`` counts requests. ``max_cost`` (US dollars,
needs ``price_in`` and ``price_out`` in dollars per million tokens) reserves a
worst case per request: one token per prompt byte plus a small per-message
overhead (a byte-level BPE token covers at least one byte) and the full
``max_tokens`` of completion. When the answer comes, the reservation is
replaced by the cost of the tokens in the reply's ``usage``. So the sum of real
costs can never pass ``max_cost``, and at most the in-flight worst cases are
left unspent at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

MESSAGE_OVERHEAD_TOKENS = 16  # role markers and separators per chat message (generous)


@dataclass
class Reservation:
    cost: float


class Budget:
    """Limits of one judge; used from a single event loop (no locking needed)."""

    def __init__(
        self,
        max_requests: int | None = None,
        max_cost: float | None = None,
        price_in: float | None = None,
        price_out: float | None = None,
    ) -> None:
        if max_requests is not None and (not isinstance(max_requests, int) or max_requests < 0):
            raise ValueError(f"max_requests must be a non-negative integer, got {max_requests!r}")
        for name, value in (("max_cost", max_cost), ("price_in", price_in), ("price_out", price_out)):
            if value is not None and (not isinstance(value, (int, float)) or value < 0):
                raise ValueError(f"{name} must be a non-negative number, got {value!r}")
        if max_cost is not None and (price_in is None or price_out is None):
            raise ValueError(
                "max_cost needs the model's prices: price_in and price_out in US dollars per million tokens"
            )
        self.max_requests = max_requests
        self.max_cost = max_cost
        self.price_in = price_in
        self.price_out = price_out
        self.sent = 0
        self.spent = 0.0  # dollars, from usage (or the reservation when a reply had no usage)
        self.reserved = 0.0
        self.stopped: str | None = None  # "max_requests" or "max_cost" once a request was refused

    @property
    def limited(self) -> bool:
        """Whether a limit is set (it binds this object: one process, not several)."""
        return self.max_requests is not None or self.max_cost is not None

    @property
    def priced(self) -> bool:
        return self.price_in is not None and self.price_out is not None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        if not self.priced:
            return 0.0
        return (prompt_tokens * self.price_in + completion_tokens * self.price_out) / 1e6

    def worst_case(self, prompt_bytes: int, n_messages: int, max_tokens: int) -> float:
        return self.cost(prompt_bytes + MESSAGE_OVERHEAD_TOKENS * max(n_messages, 1), max_tokens)

    def try_reserve(
        self, prompt_bytes: int, n_messages: int, max_tokens: int, optional: bool = False
    ) -> Reservation | None:
        """Reserve one request, or return None if a limit forbids it. A refused request stops
        the run (:attr:`stopped` says why), except an ``optional`` one (a duplicate of a slow
        request), which is only not sent."""
        if self.stopped:
            return None
        if self.max_requests is not None and self.sent >= self.max_requests:
            if not optional:
                self.stopped = "max_requests"
            return None
        est = self.worst_case(prompt_bytes, n_messages, max_tokens)
        if self.max_cost is not None and self.spent + self.reserved + est > self.max_cost:
            if not optional:
                self.stopped = "max_cost"
            return None
        self.sent += 1
        self.reserved += est
        return Reservation(est)

    def settle(self, res: Reservation, prompt_tokens: int | None, completion_tokens: int | None) -> None:
        """Replace a reservation by the real cost (None tokens: keep the worst case)."""
        self.reserved -= res.cost
        if prompt_tokens is None or completion_tokens is None:
            self.spent += res.cost
        else:
            self.spent += self.cost(prompt_tokens, completion_tokens)

    def release(self, res: Reservation) -> None:
        """A request that produced no billable answer (an error status, a timeout)."""
        self.reserved -= res.cost
