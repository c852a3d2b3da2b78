"""Bounded, inspectable, clearable caches.

Design rule: the only global state didax keeps besides the thread-local
current trace is caches, and every one of them is an ``LRUCache``: bounded,
thread-safe, with ``info()`` (hits, misses, currsize) and ``clear()``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, NamedTuple, TypeVar, final

V = TypeVar("V")


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    currsize: int
    maxsize: int


@final
class LRUCache(Generic[V]):
    """A least-recently-used cache from hashable keys to values.

    ``get_or_create`` builds a missing value at most once per key even when
    several threads ask for it at the same time (the others wait for it).
    Misses are counted exactly; hits are counted without a lock, so under
    heavy threading the hit count may lag.

    >>> cache: LRUCache[int] = LRUCache(maxsize=2)
    >>> cache.get_or_create("a", lambda: 1)
    1
    >>> cache.get_or_create("a", lambda: 2)
    1
    >>> cache.info()
    CacheInfo(hits=1, misses=1, currsize=1, maxsize=2)
    """

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}
        self.hits = 0  # public: a hot path that reads ``recent`` itself counts its hit
        self._misses = 0
        # The most recently used item, which a hit on it need not move: the
        # jit hit path's repeated key costs one comparison, not a hash, a
        # lookup and a move (~0.35 us). Written in one assignment; public so
        # that jit's hit path reads it without a call (``api.hit_path``).
        self.recent: tuple[Hashable, V] | None = None

    def get(self, key: Hashable) -> V | None:
        """The value for ``key``, or None (a miss is not counted: ``get_or_create`` counts it)."""
        last = self.recent
        if last is not None and last[0] == key:
            self.hits += 1
            return last[1]
        # No lock: a dict lookup is atomic under the GIL, and a concurrent
        # eviction only makes move_to_end miss.
        value = self._data.get(key)
        if value is not None:
            try:  # noqa: SIM105 - contextlib.suppress costs ~1 µs on the jit hit path
                self._data.move_to_end(key)
            except KeyError:
                pass
            self.recent = (key, value)
            self.hits += 1
        return value

    def peek(self, key: Hashable) -> V | None:
        """The value for ``key``, or None, neither counted as a hit nor made recent."""
        return self._data.get(key)

    def get_or_create(self, key: Hashable, create: Callable[[], V]) -> V:
        value = self.get(key)
        if value is not None:
            return value
        with self._lock:
            build_lock = self._building.setdefault(key, threading.Lock())
        with build_lock:
            with self._lock:
                if key in self._data:  # another thread built it while we waited
                    self.hits += 1
                    return self._data[key]
            try:
                value = create()
            except BaseException:  # the next caller tries again
                with self._lock:
                    self._building.pop(key, None)
                raise
            with self._lock:
                self._misses += 1
                self._data[key] = value
                while len(self._data) > self.maxsize:
                    self._data.popitem(last=False)
                self.recent = (key, value) if key in self._data else None
                # Only now: a caller arriving from here on finds the value.
                self._building.pop(key, None)
            return value

    def keys(self) -> list[Hashable]:
        """The keys held, least recently used first."""
        with self._lock:
            return list(self._data)

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self.hits, self._misses, len(self._data), self.maxsize)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.recent = None
            self.hits = self._misses = 0
