"""PROT-44: every harness answers a hostile request line alike (issue 23).

A corpus of lines no vector sends -- bytes that are not UTF-8, whitespace
that is not JSON's, integers too long for Python's integer text, numbers JS
writes in its own way -- goes to every server the kit ships
(:mod:`harnesses.servers`: the Python server core, behind every Python
harness, the TypeScript harness and the Go harness). Every harness must give
the answer the statement names, and the same one: error code and id, or the
result with its numbers' text.
"""

from __future__ import annotations

from typing import Any

import pytest
from harnesses.servers import SERVERS, answers, departures

NINES = "9" * 5000  # beyond Python's 4,300-digit limit on integer text


def _request(ident: int, op: str, rest: str) -> bytes:
    return f'{{"id":{ident},"op":"{op}",{rest}}}'.encode()


BAD = (None, "bad-request")
"""The answer to a line that is not JSON: ``id`` null, ``bad-request``."""


def _nested(levels: int, inner: str = "1", *, objects: bool = False) -> str:
    return (
        ('{"a":' * levels + inner + "}" * levels)
        if objects
        else "[" * levels + inner + "]" * levels
    )


DEEP: list[tuple[bytes, Any]] = [
    # the request object is level 1: a value 9,999 levels deep is the deepest line
    (_request(30, "canonicalize", f'"value":{_nested(9_999)}'), (30, "canonicalization")),
    (
        _request(31, "canonicalize", f'"value":{_nested(9_999, objects=True)}'),
        (31, "canonicalization"),
    ),
    (_request(32, "canonicalize", f'"value":{_nested(10_000)}'), BAD),
    (_request(33, "canonicalize", f'"value":{_nested(100_000)}'), BAD),
    (
        _request(34, "fingerprintKeyMaterial", f'"keyMaterial":{_nested(5_000)}'),
        (34, "canonicalization"),
    ),
    # an echo: within the bound it is answered; deeper than a line may be, `internal`
    (
        _request(35, "resolveLoopKey", f'"args":{_nested(5_000, objects=True)}'),
        (35, "result", '{"a":{"a":{"a":"#1"}}}'),
    ),
    (_request(36, "resolveLoopKey", f'"args":{_nested(9_999, objects=True)}'), (36, "internal")),
    (
        _request(37, "resolveLoopKey", '"args":{"a":{"$js":"nest","depth":100000,"value":1}}'),
        (37, "internal"),
    ),
    (
        _request(38, "resolveLoopKey", '"args":{"a":{"$js":"nest","depth":9000,"value":1}}'),
        (38, "result", '[[["#1"]]]'),
    ),
]
"""Lines at the nesting bound of PROT-45 and past it, and results past PROT-46's."""

# (line, the answer PROT-44 names: None for no answer, (id, error code), or
# (id, "result", text that must appear in the result, numbers as written)
CORPUS: list[tuple[bytes, Any]] = [
    # not UTF-8: never read with U+FFFD
    (_request(1, "canonicalize", '"value":"a') + b'\xff"}', BAD),
    (_request(2, "canonicalize", '"value":"') + b'\xc0\xaf"}', BAD),  # overlong
    (_request(3, "canonicalize", '"value":"') + b'\xed\xa0\x80"}', BAD),  # a surrogate
    (_request(4, "canonicalize", '"value":"') + b'\xe2\x82"}', BAD),  # cut short
    (b"\xef\xbb\xbf" + _request(5, "canonicalize", '"value":1'), BAD),  # a byte-order mark
    # blank means JSON whitespace only
    (b" \t\r", None),
    (b"\x0b", BAD),
    (b"\xc2\xa0", BAD),
    (b"\xe2\x80\xa8", BAD),
    (b"\xef\xbb\xbf", BAD),
    # a line ends at a line feed only
    (_request(11, "canonicalize", '\r"value":1'), (11, "result", '"1"')),
    (_request(12, "canonicalize", '"value":"\u2028\u0085"'), (12, "result", "\\u2028\\u0085")),
    # numbers of any length are doubles
    (_request(13, "canonicalize", f'"value":{NINES}'), (13, "canonicalization")),
    (_request(14, "canonicalize", f'"value":-{NINES}'), (14, "canonicalization")),
    (
        _request(15, "resolveOption", f'"option":{{"ladder":{{"observe":{NINES}}}}}'),
        (15, "result", '"observe":"#2"'),
    ),  # Infinity: the default (CFG-11)
    (
        _request(16, "canonicalize", f'"value":{{"$js":"bigint","value":"{NINES}"}}'),
        (16, "canonicalization"),
    ),
    (
        _request(
            17,
            "fingerprintKeyMaterial",
            f'"keyMaterial":{{"a":{{"$js":"bigint","value":"-{NINES}"}}}}',
        ),
        (17, "canonicalization"),
    ),
    (
        _request(18, "resolveLoopKey", f'"args":{{"n":{{"$js":"bigint","value":"{NINES}"}}}}'),
        (18, "result", NINES),
    ),
    # numbers are written as JS writes them
    (
        _request(19, "resolveOption", '"option":{"ladder":{"observe":18446744073709551616}}'),
        (19, "result", '"observe":"#18446744073709552000"'),
    ),
    (
        _request(20, "resolveOption", '"option":{"ladder":{"observe":1e21}}'),
        (20, "result", '"observe":"#1e+21"'),
    ),
    (
        _request(21, "resolveLoopKey", '"args":{"a":1e-7,"b":0.1,"c":9007199254740993}'),
        (21, "result", '"a":"#1e-7","b":"#0.1","c":"#9007199254740992"'),
    ),
    # lines every harness already answered alike: they stay so
    (_request(22, "canonicalize", '"value":NaN'), BAD),
    (_request(23, "canonicalize", '"value":01'), BAD),
    (_request(24, "canonicalize", '"value":1} x'), BAD),
    (_request(25, "canonicalize", '"value":1e400'), (25, "canonicalization")),
    (_request(26, "canonicalize", '"value":1') + b"\x00", BAD),
    # PROT-45, PROT-46: one answer at every depth, the line's nesting bounded at 10,000
    *DEEP,
]


@pytest.fixture(scope="module")
def answered() -> dict[str, list[list[Any]]]:
    return {name: answers(command, CORPUS) for name, command in SERVERS.items()}


@pytest.mark.parametrize("name", list(SERVERS))
def test_each_harness_answers_each_hostile_line_as_prot_44_says(
    answered: dict[str, list[list[Any]]], name: str
) -> None:
    wrong = departures(CORPUS, answered[name])
    assert not wrong, f"{name}:\n" + "\n".join(wrong)


def test_the_harnesses_answer_every_hostile_line_alike(
    answered: dict[str, list[list[Any]]],
) -> None:
    reference = answered["python"]
    for name, got in answered.items():
        differing = [
            f"{line[:60]!r}: {mine} vs {theirs}"
            for (line, _), mine, theirs in zip(CORPUS, reference, got, strict=True)
            if mine != theirs
        ]
        assert not differing, f"python and {name} differ:\n" + "\n".join(differing)


@pytest.mark.parametrize("name", list(SERVERS))
def test_the_deep_lines_get_the_same_answers_on_a_fresh_start(name: str) -> None:
    """PROT-45: a harness's stack on its first request (no JIT warm-up, no cache) makes
    no difference; each deep line is the first request of a harness of its own."""
    wrong = []
    for row in DEEP:
        wrong += departures([row], answers(SERVERS[name], [row]))
    assert not wrong, f"{name}:\n" + "\n".join(wrong)


LONGEST = 64 * 1024 * 1024
"""PROT-45: the longest request line, its line feed aside."""


def _padded(ident: int, size: int) -> bytes:
    head = f'{{"id":{ident},"op":"no-such-op","pad":"'.encode()
    return head + b"x" * (size - len(head) - 2) + b'"}'


@pytest.mark.parametrize("name", list(SERVERS))
def test_a_line_longer_than_64_mib_is_bad_request_and_one_that_long_is_read(name: str) -> None:
    table = [(_padded(40, LONGEST), (40, "unknown-op")), (_padded(41, LONGEST + 1), BAD)]
    assert len(table[0][0]) == LONGEST and len(table[1][0]) == LONGEST + 1
    wrong = departures(table, answers(SERVERS[name], table))
    assert not wrong, f"{name}:\n" + "\n".join(wrong)
