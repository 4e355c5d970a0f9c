"""Hypothesis strategies for whole transcripts (public API; spec/vectors.md#strategies).

Every strategy here draws a *transcript*: a dict ``{"option"?,
"initialState"?, "steps": [...]}`` of tagged-JSON inputs WITHOUT
expectations (see :mod:`~doomloop_kit.generators.build`, which adds them by
running the reference). Ports may use these strategies directly for their
own property tests, e.g.::

    from hypothesis import given
    from doomloop_kit.generators import strategies

    @given(strategies.transcripts("repeat"))
    def test_port_matches_reference(transcript): ...

Public names:

* :data:`FAMILIES` -- family name -> :class:`Family` (strategy, default
  count, seed, spec ids, one-line description).
* :func:`transcripts(family)` -- the strategy of one family; the strategy
  draws a pair ``(shape, transcript)`` when called as
  ``transcripts(family, with_shape=True)``.
* :func:`options`, :func:`ladders`, :func:`key_materials`,
  :func:`round_calls` -- building blocks.

The strategies are biased toward the interesting region: small alphabets
of arguments (so rounds repeat), ladders with low thresholds (so observe,
steer, escalate, block and stop are all reached), escalation configured in
about half of the options.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from doomloop_kit.vectorset import oracle
from doomloop_kit.vectorset.vocabulary import OpError
from hypothesis import strategies as _st

from .steps import (
    INFINITY,
    NAN,
    NEG_INFINITY,
    NEG_ZERO,
    UNDEFINED,
    bigint,
    can_escalate,
    consume,
    declare,
    get_state,
    nest,
    op,
    record,
    ref,
    reset_text,
    restore,
    resume,
    returns,
    text,
    throws,
)


class _MemoisedStrategies:
    """``hypothesis.strategies`` with memoised constructors.

    Building a strategy validates it; done inside every draw it dominated
    generation time. Strategies are immutable, so one object per distinct
    argument list (keyed by ``repr``) is shared. Draws are unaffected.
    """

    _MEMOISED = frozenset(
        {"sampled_from", "integers", "booleans", "floats", "just", "lists", "tuples", "one_of"}
    )

    def __init__(self) -> None:
        self._memo: dict[tuple[str, str, str], Any] = {}

    def __getattr__(self, name: str) -> Any:
        target = getattr(_st, name)
        if name not in self._MEMOISED:
            return target

        def build(*args: Any, **kwargs: Any) -> Any:
            key = (name, repr(args), repr(sorted(kwargs.items())))
            if key not in self._memo:
                self._memo[key] = target(*args, **kwargs)
            return self._memo[key]

        return build


st: Any = _MemoisedStrategies()

RUNGS = ("observe", "steer", "escalate", "block", "stop")
PATHS = ("a", "b", "c", "d", "e")
TOOLS = ("read", "grep", "fetch")

# ECMAScript \s (spec TXT-04) and the Python-only separators that are not \s.
JS_WHITESPACE = (
    "\t", "\n", "\x0b", "\x0c", "\r", " ", "\xa0", "\u1680", "\u2000", "\u2001", "\u2002",
    "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200a",
    "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff",
)  # fmt: skip
NOT_JS_WHITESPACE = ("\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u200b")

Transcript = dict[str, Any]


# -- building blocks -------------------------------------------------------------


def key_materials(paths: Sequence[str] = PATHS) -> st.SearchStrategy[Any]:
    """Key material from a small alphabet: mostly ``{"path": p}``."""
    return st.one_of(
        st.sampled_from(paths).map(lambda p: {"path": p}),
        st.sampled_from(paths).map(lambda p: {"path": p, "limit": 10}),
    )


@st.composite
def round_calls(
    draw: st.DrawFn,
    tools: Sequence[str] = ("read",),
    paths: Sequence[str] = PATHS,
    min_size: int = 1,
    max_size: int = 3,
) -> list[tuple[str, Any]]:
    """A round's distinct calls ``(toolName, keyMaterial)``."""
    pairs = draw(
        st.lists(
            st.tuples(st.sampled_from(tools), st.sampled_from(paths)),
            min_size=min_size,
            max_size=max_size,
            unique=True,
        )
    )
    return [(tool, {"path": path}) for tool, path in pairs]


@st.composite
def ladders(draw: st.DrawFn, *, junk: bool = False) -> dict[str, Any]:
    """A ladder config with low thresholds: mostly increasing, some rungs off or absent."""
    thresholds = sorted(draw(st.lists(st.integers(1, 5), min_size=5, max_size=5)))
    if draw(st.integers(0, 4)) == 0:  # sometimes unsorted, to make dead rungs
        thresholds = draw(st.permutations(thresholds))
    ladder: dict[str, Any] = {}
    for rung, threshold in zip(RUNGS, thresholds, strict=True):
        choice = draw(st.sampled_from(["on", "on", "on", "on", "off", "absent"]))
        if choice == "on":
            ladder[rung] = threshold
        elif choice == "off":
            ladder[rung] = False
        if junk and draw(st.integers(0, 3)) == 0:
            ladder[rung] = draw(
                st.sampled_from(
                    [0, -1, 2.5, 3.99, None, "2", True, NAN, INFINITY, NEG_ZERO, 1e300, [2], {}]
                )
            )
    return ladder


@st.composite
def escalations(draw: st.DrawFn, *, junk: bool = False) -> dict[str, Any]:
    """An escalation config: a model and/or an advisor, maxEscalations 1..3 or absent.

    A model or advisor is sometimes ``null``, which is still a mechanism (CFG-44);
    with ``junk``, a member is sometimes ``undefined``, which is absent (CFG-46).
    """
    config: dict[str, Any] = {}
    mechanism = draw(st.sampled_from(["model", "model", "advisor", "both", "none"]))
    if mechanism in ("model", "both"):
        config["model"] = draw(st.sampled_from(["strong-model", "strong-model", None]))
    if mechanism in ("advisor", "both"):
        config["advisor"] = draw(st.sampled_from([{"model": "advisor-model"}, None]))
    if mechanism == "none" and draw(st.booleans()):
        config["advisor"] = False
    if junk and draw(st.integers(0, 3)) == 0:
        config[draw(st.sampled_from(["model", "advisor"]))] = UNDEFINED
    cap = draw(st.sampled_from(["absent", 1, 1, 2, 3] + ([0, -2, 1.7, "3", None] if junk else [])))
    if cap != "absent":
        config["maxEscalations"] = cap
    return config


@st.composite
def options(
    draw: st.DrawFn,
    *,
    escalation: float = 0.5,
    text_options: bool = False,
    default: bool = True,
) -> Any:
    """A monitor option (never one that turns detection off)."""
    if default and draw(st.integers(0, 9)) == 0:
        return True
    junk = draw(st.integers(0, 5)) == 0  # sometimes the edges of the ladder and budget
    option: dict[str, Any] = {"ladder": draw(ladders(junk=junk))}
    if draw(st.floats(0, 1)) < escalation:
        option["escalation"] = draw(escalations(junk=junk))
    if text_options:
        coerce = _coerce(draw)
        option["text"] = {
            "minRepeats": draw(text_number(st.integers(2, 4), coerce=coerce)),
            "minCoveredTokens": draw(text_number(st.integers(2, 8), coerce=coerce)),
            "maxPeriodTokens": draw(text_number(st.integers(1, 4), coerce=coerce)),
            "maxWindowTokens": draw(text_number(st.sampled_from([8, 16, 400]), coerce=coerce)),
        }
        enabled = draw(st.sampled_from(_text_member_edges("enabled", coerce)))
        if draw(st.booleans()):
            option["text"]["enabled"] = enabled
    return option


ENABLED_EDGES: tuple[Any, ...] = (True, False, None, UNDEFINED, 1, 0, "", "yes", NAN, [])
"""``text.enabled`` at the edges: null and undefined take the default (CFG-16,
CFG-46); a non-boolean is read by truthiness (MON-59, feature ``js-coercion``)."""


TEXT_NUMBER_EDGES: tuple[Any, ...] = (
    0, NEG_ZERO, -1, -3, 0.5, 0.9999999999999999, 1.5, 2.5, 1e21, 2**53 + 1,
    NAN, INFINITY, NEG_INFINITY, None, UNDEFINED,
)  # fmt: skip
"""Text option values at the edges of the domain: any double is core (TXT-17);
null and undefined take the default (TXT-16)."""


TEXT_COERCION_EDGES: tuple[Any, ...] = ("3", "", True, False, [], [2], {}, bigint(10))
"""Text option values that are not numbers: JS coercion (TXT-22, TXT-23), in the
domain only under the feature ``js-coercion`` (CFG-45), which the vector then carries."""


def text_number(usual: st.SearchStrategy[Any], *, coerce: bool = False) -> st.SearchStrategy[Any]:
    """A text option: usually from ``usual``, one time in four an edge value;
    with ``coerce`` sometimes a non-number (TXT-17..TXT-23)."""
    edges = st.sampled_from(TEXT_NUMBER_EDGES)
    if coerce:
        return st.one_of(usual, usual, edges, st.sampled_from(TEXT_COERCION_EDGES))
    return st.one_of(usual, usual, usual, edges)


def _coerce(draw: st.DrawFn) -> bool:
    """One transcript in eight draws non-number text options (feature js-coercion)."""
    return bool(draw(st.integers(0, 7)) == 0)


def _rounds_to_steps(
    draw: st.DrawFn,
    rounds: Sequence[Sequence[tuple[str, Any]]],
    *,
    declared: str = "all",
    start: int = 0,
    permute: bool = True,
) -> list[dict[str, Any]]:
    """Declare (per the ``declared`` policy) and record each round, arrival order drawn."""
    steps: list[dict[str, Any]] = []
    for offset, calls in enumerate(rounds):
        number = start + offset
        is_declared = declared == "all" or (declared == "mixed" and draw(st.booleans()))
        if is_declared:
            declared_calls = list(draw(st.permutations(calls))) if permute else list(calls)
            steps.append(declare(number, declared_calls))
        order = draw(st.permutations(list(calls))) if permute else list(calls)
        steps.extend(record(tool, key, number) for tool, key in order)
    return steps


def _policy(draw: st.DrawFn) -> str:
    return draw(st.sampled_from(["all", "all", "all", "mixed", "none"]))


# -- families ------------------------------------------------------------------


@st.composite
def repeat_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """One fan-out reissued for 2..7 rounds in varying arrival order."""
    calls = draw(round_calls(max_size=3))
    count = draw(st.integers(2, 5))
    steps = _rounds_to_steps(draw, [calls] * count, declared=_policy(draw))
    return f"repeat-w{len(calls)}", {"option": draw(options()), "steps": steps}


@st.composite
def superset_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """Rounds that are either a base set or the base set plus extra calls."""
    base = draw(round_calls(paths=PATHS[:3], max_size=3))
    extra = [c for c in draw(round_calls(min_size=1, max_size=2)) if c not in base] or [
        ("read", {"path": "z"})
    ]
    pattern = draw(st.lists(st.booleans(), min_size=3, max_size=5))
    rounds = [base + extra if grow else base for grow in pattern]
    steps = _rounds_to_steps(draw, rounds, declared=_policy(draw))
    return "superset", {"option": draw(options()), "steps": steps}


@st.composite
def subset_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """Rounds that are the base set or a non-empty subset of it."""
    base = draw(round_calls(min_size=2, max_size=3))
    rounds = []
    for _ in range(draw(st.integers(3, 5))):
        if draw(st.booleans()):
            rounds.append(base)
        else:
            picked = draw(
                st.lists(st.integers(0, len(base) - 1), min_size=1, max_size=len(base), unique=True)
            )
            rounds.append([c for i, c in enumerate(base) if i in picked])
    steps = _rounds_to_steps(draw, rounds, declared=_policy(draw))
    return "subset", {"option": draw(options()), "steps": steps}


@st.composite
def permutation_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """The same set every round, declared and recorded in independent orders."""
    base = draw(round_calls(min_size=2, max_size=4))
    steps = _rounds_to_steps(draw, [base] * draw(st.integers(2, 4)), declared="all")
    return f"permutation-w{len(base)}", {"option": draw(options()), "steps": steps}


@st.composite
def expanding_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """A fan-out that grows by prefix (sometimes holding a size for a few rounds)."""
    calls = draw(round_calls(min_size=2, max_size=4))
    sizes = sorted(draw(st.lists(st.integers(1, len(calls)), min_size=3, max_size=5)))
    steps = _rounds_to_steps(draw, [calls[:n] for n in sizes], declared=_policy(draw))
    return "expanding", {"option": draw(options()), "steps": steps}


LOOP_KEYS: tuple[Any, ...] = (
    "absent",
    False,
    ["job"],
    ["attempt"],
    ["job", "attempt"],
    [],
    ["missing"],
    returns({"job": "j1"}),
    returns(None),
    returns(UNDEFINED),
    throws("boom"),
    None,
    "job",
)


@st.composite
def polling_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """A tool polled with identical arguments while its result changes.

    Each round resolves the tool's loop key (``resolveLoopKey``) and records
    the call under the resolved key material unless it is exempt, as an
    engine would; sometimes a second tool is called in the same round.
    """
    loop_key = draw(st.sampled_from(LOOP_KEYS))
    vary = draw(st.sampled_from(["same", "same", "attempt"]))
    steps: list[dict[str, Any]] = []
    for number in range(draw(st.integers(2, 7))):
        args = {"job": "j1", "attempt": number if vary == "attempt" else 0}
        request: dict[str, Any] = {"args": args}
        if loop_key != "absent":
            request["loopKey"] = loop_key
        resolution = oracle.FUNCTION_OPS["resolveLoopKey"](request)
        steps.append(op("resolveLoopKey", **request))
        calls: list[tuple[str, Any]] = []
        if isinstance(resolution, dict) and resolution.get("kind") != "exempt":
            calls.append(("poll_job", resolution["keyMaterial"]))
        if draw(st.integers(0, 3)) == 0:
            calls.append(("read", draw(key_materials(PATHS[:2]))))
        if calls:
            steps += _rounds_to_steps(
                draw, [calls], declared=draw(st.sampled_from(["all", "none"])), start=number
            )
    shape = "polling-" + ("exempt" if loop_key is False else "keyed")
    return shape, {"option": draw(options()), "steps": steps}


BLOB_NUMBER_EDGES: tuple[Any, ...] = (
    0, -1, 0.5, 2.5, 2**53, 2**53 + 1, 1e300, None, "3", True,
)  # fmt: skip
"""Counter values a foreign writer could persist (STATE-21, STATE-24, STATE-27, STATE-28)."""
BLOB_TAGGED_EDGES: tuple[Any, ...] = (NEG_ZERO, NAN, INFINITY, NEG_INFINITY)
"""The doubles a blob carries as tags (STATE-35), drawn as often as all the others."""


def _blob_number(draw: st.DrawFn) -> Any:
    return draw(st.one_of(st.sampled_from(BLOB_NUMBER_EDGES), st.sampled_from(BLOB_TAGGED_EDGES)))


def _tag_counters(draw: st.DrawFn, blob: dict[str, Any]) -> None:
    """Every counter of ``blob`` as -0, NaN or an infinity (STATE-35): the tags
    of a drawn order, in turn, so that one blob holds several of them."""
    turn = itertools.cycle(draw(st.permutations(BLOB_TAGGED_EDGES)))
    for entry in blob.get("tools", {}).values():
        if not isinstance(entry, dict):  # a null tool stays null
            continue
        entry["streak"] = next(turn)
        counts = entry.get("callStreaks")
        if isinstance(counts, dict) and counts:
            counts[draw(st.sampled_from(sorted(counts)))] = next(turn)
    blob["escalationsUsed"] = next(turn)
    if isinstance(blob.get("text"), dict):
        blob["text"]["streak"] = next(turn)


BLOB_TRANSFORMS = (
    "as-is",
    "drop-call-streaks",
    "drop-round-fingerprints",
    "drop-optional",
    "reverse-round-fingerprints",
    "duplicate-round-fingerprint",
    "engine-fields",
    "one-element-set",
    "string-streaks",
    "edge-streaks",
    "edge-call-streaks",
    "edge-counters",
    "null-tool",
)
"""How :func:`_transform_blob` rewrites a real blob as another writer could."""


def _transform_blob(draw: st.DrawFn, blob: Any) -> Any:
    """A state blob as another writer could emit it, derived from a real one:
    one of :data:`BLOB_TRANSFORMS`, then, one blob in three, its counters as
    tags (:func:`_tag_counters`)."""
    blob = json.loads(json.dumps(blob))
    tools = blob.get("tools", {})
    how = draw(st.sampled_from(BLOB_TRANSFORMS))
    for entry in tools.values():
        fps = entry.get("roundFingerprints")
        if how == "drop-call-streaks":
            entry.pop("callStreaks", None)
        elif how == "drop-round-fingerprints":
            entry.pop("roundFingerprints", None)
        elif how == "drop-optional":
            entry.pop("callStreaks", None)
            entry.pop("roundFingerprints", None)
        elif how == "reverse-round-fingerprints" and fps:
            entry["roundFingerprints"] = list(reversed(fps))
        elif how == "duplicate-round-fingerprint" and fps:
            entry["roundFingerprints"] = [*fps, fps[0]]
        elif how == "one-element-set":
            entry["roundFingerprints"] = [entry["fingerprint"]]
        elif how == "string-streaks":
            entry["streak"] = str(entry["streak"])
        elif how == "edge-streaks":
            entry["streak"] = _blob_number(draw)
        elif how == "edge-call-streaks":
            counts = entry.get("callStreaks")
            if isinstance(counts, dict) and counts and draw(st.booleans()):
                counts[draw(st.sampled_from(sorted(counts)))] = _blob_number(draw)
            else:
                entry["callStreaks"] = draw(st.sampled_from(["ab", 7, None, [], [3]]))
    if how == "null-tool" and tools:
        tools[draw(st.sampled_from(sorted(tools)))] = None
    if how == "edge-counters":
        blob["escalationsUsed"] = _blob_number(draw)
        if isinstance(blob.get("text"), dict):
            blob["text"]["streak"] = _blob_number(draw)
    if how == "drop-optional":
        blob.pop("text", None)
        blob.pop("escalationsUsed", None)
    if how == "engine-fields":
        blob["stopVerdict"] = None
        blob["pendingSteer"] = ["Take a different approach."]
    if draw(st.integers(0, 2)) == 2:
        _tag_counters(draw, blob)
    return blob


@st.composite
def resume_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """Rounds with resumes, getState and restores of transformed blobs at any point;
    one transcript in four starts from a transformed blob (``create``'s state, MON-06)."""
    option = draw(options())
    base = draw(round_calls(tools=("read", "grep"), paths=PATHS[:3], max_size=3))
    transcript: Transcript = {"option": option}
    kinds = set()
    if draw(st.integers(0, 3)) == 3:
        earlier = oracle.create_monitor({"option": option})
        for _ in range(draw(st.integers(1, 3))):
            for step in _rounds_to_steps(draw, [base], declared=_policy(draw)):
                _apply(earlier, step)
        transcript["initialState"] = _transform_blob(draw, earlier.get_state())
        kinds.add("initial")
    request = {"option": option}
    if "initialState" in transcript:
        request["state"] = transcript["initialState"]
    monitor = oracle.create_monitor(request)
    steps: list[dict[str, Any]] = []
    number = 0
    for _ in range(draw(st.integers(2, 5))):
        calls = base if draw(st.integers(0, 3)) else draw(round_calls(paths=PATHS[:3], max_size=3))
        for step in _rounds_to_steps(draw, [calls], declared=_policy(draw), start=number):
            steps.append(step)
            _apply(monitor, step)
        number += 1
        what = draw(st.sampled_from(["none", "resume", "resume", "restore", "getState"]))
        if what == "resume":
            steps.append(resume())
            monitor, _ = oracle.resume(monitor, option)
            kinds.add("resume")
        elif what == "restore":
            blob = _transform_blob(draw, monitor.get_state())
            steps.append(restore(blob))
            oracle.MONITOR_OPS["restore"](monitor, {"state": blob})
            kinds.add("restore")
        elif what == "getState":
            steps.append(get_state())
        if what == "resume" and draw(st.booleans()):
            # No round number survives a resume (the resume fact). Not after a
            # mid-run restore: the old declaration would still speak for round
            # 0 there (OQ-08), a choice vectors should not lean on.
            number = 0
    steps.append(get_state())
    shape = "-".join(sorted(kinds)) or "plain"
    return f"resume-{shape}", {**transcript, "steps": steps}


def _apply(monitor: Any, step: dict[str, Any]) -> None:
    with contextlib.suppress(OpError):
        oracle.MONITOR_OPS[step["op"]](monitor, step)


@st.composite
def interleaved_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """Two or three tools, each with its own pattern, in the same rounds.

    When ``fetch`` takes part it is sometimes a server tool: its records use
    ``options: {detector: "server-tool-fingerprint", allowBlock: false}``.
    """
    tools = TOOLS[: draw(st.integers(2, 3))]
    bases = {t: draw(round_calls(tools=(t,), paths=PATHS[:3], max_size=2)) for t in tools}
    rounds = []
    for _ in range(draw(st.integers(2, 4))):
        calls: list[tuple[str, Any]] = []
        for t in tools:
            presence = draw(st.sampled_from(["base", "base", "other", "absent"]))
            if presence == "base":
                calls += bases[t]
            elif presence == "other":
                calls += draw(round_calls(tools=(t,), paths=PATHS[:3], max_size=2))
        rounds.append(calls or bases[tools[0]])
    steps = _rounds_to_steps(draw, rounds, declared=_policy(draw))
    shape = f"interleaved-t{len(tools)}"
    if "fetch" in tools and draw(st.booleans()):
        # fetch runs on the server: its records carry the server detector and
        # may not block (the engine cannot withhold a server call's result).
        server = {"detector": "server-tool-fingerprint", "allowBlock": False}
        for step in steps:
            if step["op"] == "recordToolCall" and step["toolName"] == "fetch":
                step["options"] = dict(server)
        shape += "-server"
    return shape, {"option": draw(options()), "steps": steps}


@st.composite
def duplicate_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """Rounds in which some calls are recorded more than once.

    Half of the transcripts also list a call twice in the declaration, as a
    model issuing the same call twice in one response would; the declared set
    holds it once (MON-09).
    """
    base = draw(round_calls(paths=PATHS[:3], max_size=2))
    listed = base + ([draw(st.sampled_from(base))] if draw(st.booleans()) else [])
    steps: list[dict[str, Any]] = []
    declared = _policy(draw)
    for number in range(draw(st.integers(2, 4))):
        if declared == "all" or (declared == "mixed" and draw(st.booleans())):
            steps.append(declare(number, draw(st.permutations(listed))))
        arrivals = list(draw(st.permutations(base)))
        for _ in range(draw(st.integers(1, 3))):
            arrivals.insert(draw(st.integers(0, len(arrivals))), draw(st.sampled_from(base)))
        steps.extend(record(t, k, number) for t, k in arrivals)
    shape = "duplicates-listed-twice" if len(listed) > len(base) else "duplicates"
    return shape, {"option": draw(options()), "steps": steps}


@st.composite
def undeclared_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """Rounds without declarations, with stale or foreign declarations mixed in."""
    steps: list[dict[str, Any]] = []
    for number in range(draw(st.integers(2, 6))):
        calls = draw(round_calls(tools=("read", "grep"), paths=PATHS[:2], max_size=3))
        noise = draw(st.sampled_from(["none", "none", "stale", "foreign", "other-round"]))
        if noise == "stale" and number > 0:
            steps.append(declare(number - 1, calls))
        elif noise == "foreign":
            steps.append(declare(number, [("fetch", {"path": "a"})]))
        elif noise == "other-round":
            steps.append(declare(number + 1, calls))
        order = draw(st.permutations(calls))
        steps.extend(record(t, k, number) for t, k in order)
    return "undeclared", {"option": draw(options()), "steps": steps}


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


UNHASHABLE: tuple[Any, ...] = (
    {"path": 10**400},
    {"path": bigint(7)},
    {"path": NAN},
    {"path": INFINITY},
    {"self": ref(1)},
    {"path": nest(70, 1)},
)


@st.composite
def unhashable_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """Declared rounds holding a call whose key material cannot be canonicalized.

    The unhashable call is recorded (a canonicalization error) and then
    recorded again under a fallback identity, as an engine would.
    """
    bad = draw(st.sampled_from(UNHASHABLE))
    fallback = draw(st.sampled_from(["raw-args", "full-args"]))
    base = draw(round_calls(paths=PATHS[:2], max_size=1))
    steps: list[dict[str, Any]] = []
    for number in range(draw(st.integers(2, 4))):
        declared = [*base, ("read", bad)]
        declared = list(draw(st.permutations(declared)))
        steps.append(declare(number, declared))
        for tool, key in declared:
            steps.append(record(tool, key, number))
            if key is bad:
                identity = (
                    '{"path":"unhashable"}' if fallback == "raw-args" else {"args": "unhashable"}
                )
                steps.append(record("read", identity, number))
    return "unhashable", {"option": draw(options()), "steps": steps}


PHRASES = ("I will retry.", "Checking again", "ok", "Let me try the same thing", "a b")


@st.composite
def _spaced(draw: st.DrawFn, words: Sequence[str]) -> str:
    """Words joined by drawn separators (JS whitespace runs, sometimes non-separators)."""
    seps = st.one_of(
        st.sampled_from(JS_WHITESPACE),
        st.lists(st.sampled_from(JS_WHITESPACE), min_size=2, max_size=3).map("".join),
        st.sampled_from(NOT_JS_WHITESPACE),
    )
    out = draw(st.sampled_from(["", " ", "\n"]))
    for index, word in enumerate(words):
        if index:
            out += draw(st.just(" ") | seps)
        out += word
    return out + draw(st.sampled_from(["", " ", "\ufeff"]))


@st.composite
def text_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """Text loops: repeated phrases in one response, identical texts across steps."""
    option = draw(options(text_options=draw(st.booleans()), escalation=0.3))
    steps: list[dict[str, Any]] = []
    mode = draw(st.sampled_from(["within", "across", "mixed"]))
    phrase = draw(st.sampled_from(PHRASES)).split(" ")
    for _ in range(draw(st.integers(1, 6))):
        kind = (
            mode
            if mode != "mixed"
            else draw(st.sampled_from(["within", "across", "reset", "other"]))
        )
        if kind == "within":
            copies = draw(st.integers(1, 8))
            prefix = draw(st.sampled_from([[], ["Well,"], ["So", "then"]]))
            steps.append(text(draw(_spaced(prefix + phrase * copies))))
        elif kind == "across":
            steps.append(text(draw(_spaced(phrase))))
        elif kind == "reset":
            steps.append(reset_text())
        else:
            steps.append(text(draw(st.sampled_from(["", "   ", "Something new.", "\u3000"]))))
    if draw(st.booleans()):
        steps.append(get_state())
    if draw(st.integers(0, 2)) == 0:
        detect: dict[str, Any] = {"text": " ".join(phrase * draw(st.integers(1, 6)))}
        if draw(st.booleans()):
            coerce = _coerce(draw)
            detect["options"] = {
                "minRepeats": draw(text_number(st.just(2), coerce=coerce)),
                "minCoveredTokens": draw(text_number(st.just(2), coerce=coerce)),
                "maxPeriodTokens": draw(text_number(st.just(16), coerce=coerce)),
                "maxWindowTokens": draw(text_number(st.just(400), coerce=coerce)),
            }
        steps.append(op("detectTextRepetition", **detect))
    return f"text-{mode}", {"option": option, "steps": steps}


@st.composite
def escalation_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """An escalate rung with a budget: records, consumeEscalation, canEscalate, resume."""
    ladder = draw(ladders())
    ladder["escalate"] = draw(st.integers(1, 3))
    option: dict[str, Any] = {"ladder": ladder, "escalation": draw(escalations())}
    calls = draw(round_calls(paths=PATHS[:2], max_size=2))
    steps: list[dict[str, Any]] = [can_escalate()]
    for number in range(draw(st.integers(2, 6))):
        steps += _rounds_to_steps(draw, [calls], declared="all", start=number)
        for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2]))):
            steps.append(consume())
        if draw(st.booleans()):
            steps.append(can_escalate())
        if draw(st.integers(0, 4)) == 0:
            steps.append(resume())
    steps.append(get_state())
    return "escalation", {"option": option, "steps": steps}


STREAK_EDGES: tuple[Any, ...] = (
    0, -1, 0.5, 2.5, 2**53, 2**53 + 1, 1e300, NEG_ZERO, NAN, INFINITY, NEG_INFINITY,
)  # fmt: skip
"""resolveLadderAction streaks at the edges: any double, compared as JS compares
doubles (LAD-02, LAD-09); -0, NaN and the infinities travel as tags."""
RUNG_EDGES: tuple[Any, ...] = (0, -1, 2**53 + 1, 2**60)
"""Integer thresholds at the edges (PROT-28: an integer or false)."""
ALLOW_ESCALATE_EDGES: tuple[Any, ...] = (UNDEFINED, None, 0, 1, "", "x", [], NAN)
"""allowEscalate: undefined means true (core); the rest is read by truthiness
(PROT-28, feature ``js-coercion``: drawn in one transcript in eight)."""


@st.composite
def ladder_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """resolveLadderAction over random ladders, streaks and permissions, edges included."""
    steps = []
    usual = st.one_of(st.integers(1, 6), st.just(False))
    edgy = st.one_of(st.integers(1, 6), st.just(False), st.sampled_from(RUNG_EDGES))
    streak = st.one_of(st.integers(0, 8), st.integers(0, 8), st.sampled_from(STREAK_EDGES))
    allow_escalate_edges = ALLOW_ESCALATE_EDGES if _coerce(draw) else ALLOW_ESCALATE_EDGES[:1]
    for _ in range(draw(st.integers(1, 6))):
        rung = edgy if draw(st.integers(0, 3)) == 0 else usual  # one step in four
        ladder = {r: draw(rung) for r in RUNGS}
        step: dict[str, Any] = {
            "op": "resolveLadderAction",
            "ladder": ladder,
            "streak": draw(streak),
            "allowBlock": draw(st.booleans()),
        }
        if draw(st.booleans()):
            step["allowEscalate"] = draw(
                st.one_of(st.booleans(), st.booleans(), st.sampled_from(allow_escalate_edges))
            )
        steps.append(step)
    return "ladder-action", {"steps": steps}


@st.composite
def option_transcripts(draw: st.DrawFn) -> tuple[str, Transcript]:
    """resolveOption over sane and junk configurations."""
    steps = []
    coerce = _coerce(draw)
    for _ in range(draw(st.integers(1, 4))):
        option: dict[str, Any] = {}
        if draw(st.booleans()):
            option["ladder"] = draw(ladders(junk=True))
        if draw(st.booleans()):
            option["escalation"] = draw(escalations(junk=True))
        if draw(st.integers(0, 2)) == 0:
            option["text"] = draw(
                st.one_of(
                    st.sampled_from(TEXT_MEMBER_EDGES),
                    st.sampled_from(TEXT_OPTION_NAMES).flatmap(
                        lambda name: st.sampled_from(_text_member_edges(name, coerce)).map(
                            lambda value: {name: value}
                        )
                    ),
                )
            )
        steps.append(op("resolveOption", option=option))
    return "resolve-option", {"steps": steps}


TEXT_OPTION_NAMES = (
    "enabled",
    "maxPeriodTokens",
    "minRepeats",
    "minCoveredTokens",
    "maxWindowTokens",
)
TEXT_MEMBER_EDGES: tuple[Any, ...] = (
    False, True, None, UNDEFINED, 0, "", [], {}, {"enabled": False}, {"minRepeats": 2},
)  # fmt: skip
"""The ``text`` member itself at the edges (CFG-14, CFG-42; null throws, CFG-42)."""


# -- edges in every position (applied to every monitor family) -------------------------------


ODD_TOOL_NAMES = ("", "__proto__", "constructor", "toString", "ツール", "\U0001f600", "a b")
"""Tool names at the edges: empty, inherited JS names, non-ASCII, astral (MON-14)."""
KEY_EDGES: tuple[Any, ...] = (
    None, 0, NEG_ZERO, -1, 0.5, 2**53, 2**53 + 1, 1e21, "", " ", "\u2000", "é",
    [], {}, True, False, [None], {"": None}, {"constructor": 1},
)  # fmt: skip
"""Key material at the edges (CAN-05..CAN-14): null, the zeros, fractions, unsafe
integers, empty and whitespace strings, empty containers, odd member names."""
TEXT_EDGES = ("", " ", "\t\n", "\u2000\u200a", "\ufeff", "\u3000 ", "\u1fff", "\u200b")
"""Assistant texts that are empty, whitespace only, or just not whitespace (MON-41, MON-42)."""
ROUND_NUMBERINGS = (
    "as-is", "as-is", "as-is", "as-is", "negative", "fraction", "huge", "signed-zero",
    "non-finite",
)  # fmt: skip
"""How a transcript's round numbers are written: as drawn, or mapped to the
edges of the double (MON-63, DATA-09): -n, n + 0.5, 2^53 + n (unsafe:
neighbouring rounds may become one double); ``signed-zero``: round 0 written
as the tag -0 in some of its steps (-0 === 0, the same round; a bare -0 token
is outside the domain, PROT-29, so -0 is always the tag); ``non-finite``: one
of the transcript's round numbers becomes NaN (equal to no round, itself
included), Infinity or -Infinity in every step that names it."""
NON_FINITE_ROUNDS: tuple[Any, ...] = (NAN, INFINITY, NEG_INFINITY)
"""The tags a ``non-finite`` numbering writes (feature ``non-finite-numbers``)."""


MONITOR_INPUT_OPS = ("declareRound", "recordToolCall", "recordAssistantText")
TEXT_OPS = ("recordAssistantText", "detectTextRepetition")


def _round_value(numbering: str, number: Any) -> Any:
    """The whole-transcript mappings of :data:`ROUND_NUMBERINGS` (the others are per step)."""
    if not isinstance(number, int) or isinstance(number, bool):
        return number
    if numbering == "negative":
        return -number
    if numbering == "fraction":
        return number + 0.5
    if numbering == "huge":
        return 2**53 + number
    return number  # as-is, signed-zero, non-finite


def _round_renamer(
    draw: st.DrawFn, numbering: str, steps: Sequence[dict[str, Any]]
) -> Callable[[Any], Any]:
    """How each step's round is written under ``numbering`` (MON-63); the first
    choice of every draw keeps the round, so shrinking leads back to it."""
    if numbering == "non-finite":
        numbers = sorted({s["round"] for s in steps if isinstance(s.get("round"), int)})
        if not numbers:
            return lambda number: number
        chosen = draw(st.sampled_from(numbers))
        value = draw(st.sampled_from(NON_FINITE_ROUNDS))
        return lambda number: value if number == chosen else number
    if numbering == "signed-zero":
        return lambda number: NEG_ZERO if number == 0 and draw(st.booleans()) else number
    return lambda number: _round_value(numbering, number)


def _relabelled(value: Any, mapping: dict[str, Any]) -> Any:
    key = json.dumps(value, sort_keys=True)
    return mapping.get(key, value)


@st.composite
def with_edges(draw: st.DrawFn, pair: tuple[str, Transcript]) -> tuple[str, Transcript]:
    """The same transcript with its inputs moved to the edges of their domains.

    Each position is moved in some transcripts and kept in most: round
    numbers (:data:`ROUND_NUMBERINGS`), tool names (:data:`ODD_TOOL_NAMES`)
    and key material (:data:`KEY_EDGES`), each renamed consistently so that
    the family's pattern survives; assistant texts (:data:`TEXT_EDGES`);
    ``recordToolCall`` options holding ``undefined`` (CFG-46). Tool names and
    key material are kept when the transcript restores a blob or starts from
    one (the blob's tools and fingerprints would no longer match). The first choice of every draw is
    "keep", so Hypothesis shrinks toward the family's own transcript.
    """
    shape, transcript = pair
    steps = transcript["steps"]
    if not any(
        step["op"] in ("declareRound", "recordToolCall", "recordAssistantText") for step in steps
    ):
        return pair
    numbering = draw(st.sampled_from(ROUND_NUMBERINGS))
    renumber = _round_renamer(draw, numbering, steps)
    restores = "initialState" in transcript or any(step["op"] == "restore" for step in steps)
    tools = sorted({step["toolName"] for step in steps if "toolName" in step})
    tool_names: dict[str, str] = {}
    keys: dict[str, Any] = {}
    if not restores and tools and draw(st.integers(0, 4)) == 0:
        odd = draw(st.permutations(ODD_TOOL_NAMES))
        tool_names = dict(zip(tools, odd, strict=False))
    materials = sorted(
        {json.dumps(step["keyMaterial"], sort_keys=True) for step in steps if "keyMaterial" in step}
        | {
            json.dumps(call["keyMaterial"], sort_keys=True)
            for step in steps
            for call in step.get("calls", ())
        }
    )
    if not restores and materials and draw(st.integers(0, 4)) == 0:
        edges = draw(st.permutations(KEY_EDGES))
        keys = dict(zip(materials, edges, strict=False))
    blank = draw(st.integers(0, 5)) == 0
    undefined_options = draw(st.integers(0, 7)) == 0
    moved: list[dict[str, Any]] = []
    renumbered = False
    for step in steps:
        step = dict(step)
        if "round" in step:
            number = step["round"]
            step["round"] = renumber(number)
            renumbered |= type(step["round"]) is not type(number) or step["round"] != number
        if "toolName" in step:
            step["toolName"] = tool_names.get(step["toolName"], step["toolName"])
        if "keyMaterial" in step:
            step["keyMaterial"] = _relabelled(step["keyMaterial"], keys)
        if "calls" in step:
            step["calls"] = [
                {
                    "toolName": tool_names.get(call["toolName"], call["toolName"]),
                    "keyMaterial": _relabelled(call["keyMaterial"], keys),
                }
                for call in step["calls"]
            ]
        if step["op"] in TEXT_OPS and blank and draw(st.integers(0, 2)) == 0:
            step["text"] = draw(st.sampled_from(TEXT_EDGES))
        if step["op"] == "recordToolCall" and undefined_options and "options" not in step:
            step["options"] = {draw(st.sampled_from(["allowBlock", "detector"])): UNDEFINED}
        moved.append(step)
    changed = [
        name
        for name, on in (
            ("rounds", renumbered),
            ("tools", bool(tool_names)),
            ("keys", bool(keys)),
        )
        if on
    ]
    if changed:
        shape = f"{shape}-edge-{'-'.join(changed)}"
    return shape, {**transcript, "steps": moved}


def _text_member_edges(name: str, coerce: bool) -> tuple[Any, ...]:
    """Edge values of one text option; non-numbers only with ``coerce`` (CFG-45)."""
    if name == "enabled":
        return ENABLED_EDGES if coerce else ENABLED_EDGES[:4]
    return TEXT_NUMBER_EDGES + TEXT_COERCION_EDGES if coerce else TEXT_NUMBER_EDGES


# -- registry ----------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """A generated family: its strategy and how many transcripts the committed set holds."""

    name: str
    strategy: Callable[[], st.SearchStrategy[tuple[str, Transcript]]]
    count: int
    seed: int
    spec: tuple[str, ...]
    description: str


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family(
            "repeat",
            repeat_transcripts,
            110,
            20261101,
            ("MON-25", "MON-27", "MON-28", "MON-31", "MON-34", "MON-35", "MSG-04"),
            "one fan-out reissued round after round",
        ),
        Family(
            "superset",
            superset_transcripts,
            80,
            20261102,
            ("MON-19", "MON-26", "MON-27", "MON-34"),
            "rounds that add calls to a base set",
        ),
        Family(
            "subset",
            subset_transcripts,
            80,
            20261103,
            ("MON-19", "MON-26", "MON-27", "MON-34"),
            "rounds that drop calls from a base set",
        ),
        Family(
            "permutation",
            permutation_transcripts,
            80,
            20261104,
            ("MON-09", "MON-21", "MON-25"),
            "the same set in different orders",
        ),
        Family(
            "expanding",
            expanding_transcripts,
            100,
            20261105,
            ("MON-26", "MON-27", "MON-29", "MON-34"),
            "fan-outs that grow by prefix",
        ),
        Family(
            "polling",
            polling_transcripts,
            100,
            20261106,
            ("KEY-05", "KEY-06", "KEY-09", "KEY-12", "MON-34"),
            "polling with identical arguments, loop keys resolved",
        ),
        Family(
            "resume",
            resume_transcripts,
            120,
            20261107,
            ("STATE-01", "STATE-14", "STATE-22", "STATE-25", "STATE-26", "STATE-29", "MON-17"),
            "resumes and restores of transformed blobs at any point",
        ),
        Family(
            "interleaved",
            interleaved_transcripts,
            100,
            20261108,
            ("MON-02", "MON-38"),
            "several tools in the same rounds",
        ),
        Family(
            "duplicates",
            duplicate_transcripts,
            80,
            20261109,
            ("MON-20", "MON-22", "MON-33"),
            "in-round duplicate records",
        ),
        Family(
            "undeclared",
            undeclared_transcripts,
            100,
            20261110,
            ("MON-10", "MON-11", "MON-18"),
            "undeclared rounds, stale and foreign declarations",
        ),
        Family(
            "unhashable",
            unhashable_transcripts,
            90,
            20261111,
            ("MON-08", "MON-13", "FP-09"),
            "declared rounds with unhashable calls and fallbacks",
        ),
        Family(
            "text",
            text_transcripts,
            300,
            20261112,
            (
                "TXT-04",
                "TXT-09",
                "TXT-17",
                "TXT-18",
                "TXT-20",
                "MON-41",
                "MON-43",
                "MON-45",
                "MON-48",
                "MON-51",
            ),
            "text loops within one response and across steps",
        ),
        Family(
            "escalation",
            escalation_transcripts,
            100,
            20261113,
            ("MON-52", "MON-54", "LAD-05"),
            "escalation budgets consumed and resumed",
        ),
        Family(
            "ladders",
            ladder_transcripts,
            360,
            20261114,
            ("LAD-02", "LAD-03", "LAD-04", "LAD-05"),
            "resolveLadderAction on random ladders",
        ),
        Family(
            "options",
            option_transcripts,
            200,
            20261115,
            ("CFG-08", "CFG-11", "CFG-24", "CFG-28", "CFG-30", "CFG-42"),
            "resolveOption on sane and junk configurations",
        ),
    ]
}


def transcripts_any() -> st.SearchStrategy[tuple[str, Transcript]]:
    """``(family, transcript)`` pairs drawn from every family."""
    return _st.one_of([transcripts(name).map(lambda t, name=name: (name, t)) for name in FAMILIES])


def transcripts(family: str, *, with_shape: bool = False) -> st.SearchStrategy[Any]:
    """The strategy of one family: transcripts, or ``(shape, transcript)`` pairs."""
    strategy = _edged(FAMILIES[family].strategy())
    return strategy if with_shape else strategy.map(lambda pair: pair[1])


@st.composite
def _edged(
    draw: st.DrawFn, family: st.SearchStrategy[tuple[str, Transcript]]
) -> tuple[str, Transcript]:
    """A family's draw, then its edges (:func:`with_edges`)."""
    return draw(with_edges(draw(family)))
