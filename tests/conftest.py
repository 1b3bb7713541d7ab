"""Shared fixtures. Tests that need the ARTS data fail loudly when it is missing."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from arts_metric.data import ARTSDataNotFoundError, find_data_dir, find_dev_dir


def _or_fail(find, what: str) -> Path:
    """``find()``, or a hard failure naming what is missing: a test never skips silently."""
    try:
        return find()
    except (ARTSDataNotFoundError, FileNotFoundError) as exc:
        pytest.fail(f"{what} missing: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The ARTS data folder (``ARTS_DATA_DIR`` or ``../shared/arts``); a hard failure if absent."""
    return _or_fail(find_data_dir, "ARTS data")


@pytest.fixture(scope="session")
def dev_dir() -> Path:
    """The development sets (``ARTS_DEV_DIR`` or ``../shared/dev``); a hard failure if absent."""
    return _or_fail(find_dev_dir, "development sets")


@pytest.fixture
def no_network(monkeypatch):
    """Block every socket connection except to loopback, for offline guarantees."""
    real_connect = socket.socket.connect

    def guarded(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and (host.startswith("127.") or host in ("localhost", "::1")):
            return real_connect(self, address)
        raise OSError(f"network access blocked in test: {address!r}")

    real_create = socket.create_connection

    def guarded_create(address, *args, **kwargs):
        host = address[0]
        if isinstance(host, str) and (host.startswith("127.") or host in ("localhost", "::1")):
            return real_create(address, *args, **kwargs)
        raise OSError(f"network access blocked in test: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", guarded)
    monkeypatch.setattr(socket, "create_connection", guarded_create)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_EVALUATE_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    yield


def pytest_collection_modifyitems(config, items):
    """The tests of 10 s or more (marked ``slow``) first, each part in its collected order:
    parallel test processes start the long ones early and end on short ones."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_runtest_setup(item):
    """Under ``--dist loadgroup`` a test marked ``xdist_group`` carries its group in its id
    (pytest-xdist's doing). A pytest release that drops it would scatter a Ray cluster's tests
    over every test process, where they starve each other: such a test fails instead."""
    if getattr(item.config.option, "loadgroup", False) and item.get_closest_marker("xdist_group"):
        if "@" not in item.nodeid:
            pytest.fail("xdist_group was not applied to this test's id: see the pytest pin in pyproject.toml")
