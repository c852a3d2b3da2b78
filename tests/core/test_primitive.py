"""core.primitive (primitives and rule tables) and core.cache (the bounded LRU cache)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from didax.core.cache import CacheInfo, LRUCache
from didax.core.lax import STANDARD_PRIMITIVES
from didax.core.primitive import ALL_PRIMITIVES, Primitive, RuleTable

# --- primitives -------------------------------------------------------------------------


def test_primitive_registers_itself() -> None:
    before = len(ALL_PRIMITIVES)
    p = Primitive("primitive_test_registered")
    assert ALL_PRIMITIVES[-1] is p
    assert len(ALL_PRIMITIVES) == before + 1
    assert repr(p) == "primitive_test_registered"
    assert not p.multiple_results
    assert Primitive("primitive_test_multi", multiple_results=True).multiple_results


def test_standard_primitives_are_registered() -> None:
    assert set(STANDARD_PRIMITIVES) <= set(ALL_PRIMITIVES)


def test_primitives_with_one_name_are_distinct() -> None:
    a, b = Primitive("primitive_test_same"), Primitive("primitive_test_same")
    assert a is not b
    assert a != b
    table: RuleTable[int] = RuleTable("identity test")
    table.register(a, 1)
    assert b not in table


# --- rule tables ----------------------------------------------------------------------------


def test_rule_table_register_and_lookup() -> None:
    table: RuleTable[str] = RuleTable("example interpreter")
    p, q = Primitive("primitive_test_p"), Primitive("primitive_test_q")
    table.register(p, "rule p")
    assert table[p] == "rule p"
    assert table.get(p) == "rule p"
    assert table.get(q) is None
    assert p in table
    assert q not in table
    assert "primitive_test_p" not in table  # keyed by primitive, not by name
    assert list(table) == [p]


def test_rule_table_refuses_duplicates() -> None:
    table: RuleTable[str] = RuleTable("example interpreter")
    p = Primitive("primitive_test_dup")
    table.register(p, "first")
    with pytest.raises(ValueError, match="example interpreter rule for primitive_test_dup"):
        table.register(p, "second")
    assert table[p] == "first"


def test_missing_rule_names_primitive_and_table() -> None:
    table: RuleTable[str] = RuleTable("my interpreter")
    p = Primitive("primitive_test_missing")
    with pytest.raises(NotImplementedError) as info:
        table[p]
    assert "'primitive_test_missing'" in str(info.value)
    assert "my interpreter" in str(info.value)
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__  # no KeyError chained in the traceback


def test_defines_registers_one_rule_for_several_primitives() -> None:
    table: RuleTable[Callable[[int], int]] = RuleTable("decorated")
    p, q, r = (Primitive(f"primitive_test_def_{i}") for i in range(3))

    @table.defines(p, q)
    def rule(x: int) -> int:
        return x + 1

    assert rule(1) == 2  # the decorator returns the rule itself
    assert table[p] is rule
    assert table[q] is rule
    assert r not in table
    with pytest.raises(ValueError, match="already registered"):
        table.defines(q, r)(lambda x: x)
    # Primitives before the duplicate were registered; the duplicate was refused.
    assert table[q] is rule


# --- LRUCache ----------------------------------------------------------------------------


def test_lru_evicts_the_least_recently_used() -> None:
    cache: LRUCache[str] = LRUCache(maxsize=2)
    cache.get_or_create("a", lambda: "A")
    cache.get_or_create("b", lambda: "B")
    assert cache.get("a") == "A"  # "a" is now more recent than "b"
    cache.get_or_create("c", lambda: "C")
    assert cache.get("b") is None
    assert cache.get("c") == "C"
    assert cache.get("a") == "A"  # order of use now: c, a
    cache.get_or_create("d", lambda: "D")  # so "c" goes
    assert cache.get("c") is None
    assert cache.get("a") == "A"
    assert cache.get("d") == "D"
    assert cache.info().currsize == 2


def test_lru_get_or_create_hit_refreshes_recency() -> None:
    cache: LRUCache[int] = LRUCache(maxsize=2)
    cache.get_or_create(1, lambda: 10)
    cache.get_or_create(2, lambda: 20)
    assert cache.get_or_create(1, lambda: -1) == 10
    cache.get_or_create(3, lambda: 30)
    assert cache.get(2) is None
    assert cache.get(1) == 10


def test_lru_info_counts() -> None:
    cache: LRUCache[int] = LRUCache(maxsize=3)
    assert cache.info() == CacheInfo(hits=0, misses=0, currsize=0, maxsize=3)
    cache.get_or_create("x", lambda: 1)
    cache.get_or_create("x", lambda: 2)
    cache.get_or_create("y", lambda: 3)
    assert cache.get("missing") is None  # a plain get miss is not counted
    assert cache.get("y") == 3
    assert cache.info() == CacheInfo(hits=2, misses=2, currsize=2, maxsize=3)


def test_lru_clear() -> None:
    cache: LRUCache[int] = LRUCache(maxsize=3)
    cache.get_or_create("x", lambda: 1)
    cache.get_or_create("x", lambda: 1)
    cache.clear()
    assert cache.info() == CacheInfo(hits=0, misses=0, currsize=0, maxsize=3)
    assert cache.get("x") is None
    assert cache.get_or_create("x", lambda: 5) == 5
    assert cache.info().misses == 1


def test_lru_failed_create_is_retried() -> None:
    cache: LRUCache[int] = LRUCache(maxsize=3)

    def fail() -> int:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cache.get_or_create("k", fail)
    assert cache.info().currsize == 0
    assert cache.get_or_create("k", lambda: 7) == 7
    assert cache.info().misses == 1


def test_lru_get_or_create_builds_once_under_threads() -> None:
    cache: LRUCache[object] = LRUCache(maxsize=4)
    n_threads = 8
    barrier = threading.Barrier(n_threads)
    builds: list[int] = []
    results: list[object] = []
    lock = threading.Lock()

    def create() -> object:
        builds.append(1)
        time.sleep(0.05)  # long enough for every other thread to be waiting
        return object()

    def worker() -> None:
        barrier.wait()
        value = cache.get_or_create("shared", create)
        with lock:
            results.append(value)

    threads = [threading.Thread(target=worker) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert builds == [1]
    assert len(results) == n_threads
    assert all(r is results[0] for r in results)
    info = cache.info()
    assert info.misses == 1
    assert info.currsize == 1


def test_lru_builds_different_keys_concurrently() -> None:
    # One key's slow build does not block another key's.
    cache: LRUCache[str] = LRUCache(maxsize=4)
    started = threading.Event()
    release = threading.Event()

    def slow() -> str:
        started.set()
        assert release.wait(5)
        return "slow"

    t = threading.Thread(target=lambda: cache.get_or_create("slow", slow))
    t.start()
    assert started.wait(5)
    try:
        assert cache.get_or_create("fast", lambda: "fast") == "fast"
    finally:
        release.set()
        t.join()
    assert cache.get("slow") == "slow"
