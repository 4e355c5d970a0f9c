#!/usr/bin/env python3
"""Differential check: this port's harness against the Python reference harness.

Sends the same seeded stream of protocol-v1 requests to both harnesses and
compares the normative part of every response (generators/oracle.py
`normative`; numbers as doubles, objects order-insensitive). Deterministic:
the request stream depends only on --seed and --count.

    python ports/typescript/scripts/diff_reference.py --count 3000 --seed 1

Exit status 0 when every response agrees, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from doomloop_kit.generators import oracle

HERE = Path(__file__).resolve().parent
PORT_CMD = ["node", str(HERE.parent / "dist" / "harness.js")]
REF_CMD = [sys.executable, "-m", "doomloop_kit.conformance.harnesses.python_reference"]

WS = [" ", "\t", "\n", "\u00a0", "\u2028", "\ufeff", "\u3000", "\u0085", "\u001c", "\u180e", "  "]
KEYS = [
    "a",
    "b",
    "B",
    "ab",
    "path",
    "__proto__",
    "toString",
    "constructor",
    "\uff61",
    "\U0001f600",
    "",
    "é",
    "e\u0301",
]


class Harness:
    def __init__(self, cmd: list[str]) -> None:
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="surrogatepass",
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("harness died")
        return json.loads(line)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b) or (math.isnan(float(a)) and math.isnan(float(b)))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def no_huge(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**1023:
        return 1
    if isinstance(value, list):
        return [no_huge(v) for v in value]
    if isinstance(value, dict):
        return {k: no_huge(v) for k, v in value.items()}
    return value


class Gen:
    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def string(self) -> str:
        r = self.r
        parts = []
        for _ in range(r.randint(0, 5)):
            parts.append(
                r.choice(
                    [
                        "x",
                        "y",
                        '"',
                        "\\",
                        "\u0001",
                        "\u001f",
                        "\u007f",
                        "é",
                        "\U0001f389",
                        "\ud800",
                        "\udfff",
                        "/",
                        "\u2028",
                        "abc",
                        " ",
                        "\n",
                        "\ufffd",
                    ]
                )
            )
        return "".join(parts)

    def number(self) -> Any:
        r = self.r
        return r.choice(
            [
                0,
                1,
                -1,
                2.5,
                1e21,
                1e20,
                1e-7,
                0.000001,
                123e-20,
                5e-324,
                1.7976931348623157e308,
                9007199254740993,
                -9007199254740993,
                2**64,
                10**400,
                0.1 + 0.2,
                -0.0,
                r.uniform(-1e6, 1e6),
                r.randint(-(10**6), 10**6),
                r.random() * 10 ** r.randint(-30, 30),
            ]
        )

    def tag(self) -> Any:
        r = self.r
        return r.choice(
            [
                {"$js": "undefined"},
                {"$js": "number", "value": r.choice(["NaN", "Infinity", "-Infinity", "-0"])},
                {"$js": "bigint", "value": str(r.randint(-5, 10**20))},
                {"$js": "function"},
                {"$js": "symbol"},
                {
                    "$js": "nest",
                    "depth": r.choice([0, 1, 5, 63, 64, 65, 200]),
                    "value": r.choice(
                        [0, [], {}, {"x": {"$js": "undefined"}}, [{"$js": "undefined"}]]
                    ),
                },
                {"$js": "object", "value": {"$js": "literal", "k": 1}},
            ]
        )

    def value(self, depth: int = 0) -> Any:
        r = self.r
        kind = r.randint(0, 9 if depth < 3 else 5)
        if kind == 0:
            return None
        if kind == 1:
            return r.choice([True, False])
        if kind == 2:
            return self.number()
        if kind == 3:
            return self.string()
        if kind in (4, 5):
            return self.tag() if r.random() < 0.3 else r.choice(KEYS)
        if kind in (6, 7):
            return [self.value(depth + 1) for _ in range(r.randint(0, 3))]
        obj = {r.choice(KEYS): self.value(depth + 1) for _ in range(r.randint(0, 4))}
        if r.random() < 0.1:
            obj["self"] = {"$js": "ref", "up": 1}
        return obj

    def option(self) -> Any:
        r = self.r
        if r.random() < 0.1:
            return r.choice([None, False, True, [], 5, "x", {"$js": "undefined"}])
        thresholds = [False, 1, 2, 3, 4, 5, 6, 7, 2.9, 0, -1, None, True, "3", 1e400]

        def thr() -> Any:
            return r.choice([*thresholds, {"$js": "undefined"}])

        option: dict[str, Any] = {}
        if r.random() < 0.8:
            option["ladder"] = {
                rung: thr()
                for rung in ["observe", "steer", "escalate", "block", "stop"]
                if r.random() < 0.6
            }
        if r.random() < 0.4:
            option["text"] = r.choice(
                [
                    False,
                    True,
                    None,
                    {
                        "minRepeats": r.choice([None, 2, 3, 4]),
                        "minCoveredTokens": r.choice([2, 4, 6, 12]),
                        "maxPeriodTokens": r.choice([1, 3, 16]),
                        "maxWindowTokens": r.choice([5, 50, 400]),
                    },
                ]
            )
        if r.random() < 0.5:
            esc: dict[str, Any] = {}
            for name, choices in [
                ("model", ["m", "", False, None, 3]),
                ("advisor", [True, False, None, {"k": 1}]),
                ("maxEscalations", [0, 1, 2.7, 5, None, "2", 1e400]),
            ]:
                if r.random() < 0.6:
                    esc[name] = r.choice(choices)
            option["escalation"] = esc if r.random() < 0.9 else r.choice([None, [], "x"])
        return option

    def text(self) -> str:
        r = self.r
        block = [
            r.choice(["I", "am", "stuck.", "no", "a\u0085b", "\U0001f600", "x"])
            for _ in range(r.randint(1, 4))
        ]
        words = []
        for _ in range(r.randint(0, 3)):
            words.append(r.choice(["pre", "lude", "zz"]))
        for _ in range(r.randint(0, 16)):
            words.extend(block)
        if r.random() < 0.2:
            words.append("tail")
        text = "".join(w + r.choice(WS) for w in words)
        if r.random() < 0.1:
            text = "\U0001f600" * r.randint(1, 400) + text
        return r.choice(["", " ", "\u3000"]) + text

    def blob(self) -> Any:
        r = self.r
        if r.random() < 0.1:
            return r.choice([None, [], "x", 3, True])
        tools: Any = {}
        for _ in range(r.randint(0, 3)):
            entry: dict[str, Any] = {}
            if r.random() < 0.9:
                entry["fingerprint"] = r.choice(["x", "p", "q", 7])
            if r.random() < 0.9:
                entry["streak"] = r.choice([1, 2, 2.7, 0, -5, 0.5, 5000000, "3", True, None, 1e400])
            if r.random() < 0.4:
                entry["roundFingerprints"] = r.choice(
                    [["q", "p", "q"], ["p"], ["p", 1], "p", ["b", "a"]]
                )
            if r.random() < 0.4:
                entry["callStreaks"] = r.choice(
                    [
                        {"p": 2.9, "q": 0, "r": "5", "s": 1e400, "u": True},
                        [3, 0],
                        {"__proto__": 4},
                        {},
                    ]
                )
            tools[r.choice(["read", "t", "__proto__", "0"])] = entry
        if r.random() < 0.1:
            tools = r.choice(["junk", [{"fingerprint": "x", "streak": 1}], None])
        blob: dict[str, Any] = {"tools": tools} if r.random() < 0.9 else {}
        if r.random() < 0.3:
            blob["text"] = r.choice(
                [
                    {"fingerprint": "t", "streak": 2.5},
                    {"fingerprint": "t", "streak": -3},
                    {"streak": 1},
                ]
            )
        if r.random() < 0.3:
            blob["escalationsUsed"] = r.choice([-1, 0, 1, 2.9, 7, "2", None])
        if r.random() < 0.1:
            blob["stopVerdict"] = {"x": 1}
            blob["pendingSteer"] = ["a"]
        return blob

    def function_request(self) -> dict[str, Any]:
        r = self.r
        op = r.choice(
            [
                "canonicalize",
                "fingerprintKeyMaterial",
                "fingerprintToolCall",
                "resolveOption",
                "resolveLoopKey",
                "detectTextRepetition",
                "resolveLadderAction",
            ]
        )
        if op == "canonicalize":
            return {"op": op, "value": self.value()}
        if op == "fingerprintKeyMaterial":
            return {"op": op, "keyMaterial": self.value()}
        if op == "fingerprintToolCall":
            return {
                "op": op,
                "toolName": r.choice(["read", "", "\ud800", 'a"b\n', "__proto__"]),
                "keyMaterial": self.value(),
            }
        if op == "resolveOption":
            req: dict[str, Any] = {"op": op}
            if r.random() < 0.95:
                req["option"] = self.option()
            return req
        if op == "resolveLoopKey":
            # Echoed inputs avoid integers beyond the double range: the reference
            # echoes them exactly, JS reads them as Infinity (DATA-12) -- a known gap.
            args = {k: no_huge(self.value(2)) for k in r.sample(KEYS, r.randint(0, 4))}
            req = {"op": op, "args": args}
            choice = r.randint(0, 7)
            if choice == 1:
                req["loopKey"] = False
            elif choice in (2, 3):
                req["loopKey"] = [r.choice([*KEYS, 1, True, None]) for _ in range(r.randint(0, 3))]
            elif choice == 4:
                req["loopKey"] = r.choice(
                    [
                        {"$js": "function", "returns": no_huge(self.value(1))},
                        {"$js": "function", "returns": None},
                        {"$js": "function", "returns": {"$js": "undefined"}},
                        {"$js": "function", "throws": "boom"},
                    ]
                )
            elif choice == 5:
                req["loopKey"] = r.choice([None, True, 3, "path", {}])
            return req
        if op == "detectTextRepetition":
            req = {"op": op, "text": self.text()}
            if r.random() < 0.6:
                req["options"] = {
                    "minRepeats": r.choice([2, 3, 4]),
                    "minCoveredTokens": r.choice([1, 2, 6, 12]),
                    "maxPeriodTokens": r.choice([1, 2, 3, 16]),
                    "maxWindowTokens": r.choice([1, 3, 10, 400]),
                }
            return req
        ladder = {
            rung: r.choice([False, 1, 2, 3, 4, 5, 6])
            for rung in ["observe", "steer", "escalate", "block", "stop"]
        }
        req = {
            "op": op,
            "ladder": ladder,
            "streak": r.choice([0, 1, 2, 2.5, 3, 4, 5, 6, 100]),
            "allowBlock": r.choice([True, False]),
        }
        if r.random() < 0.5:
            req["allowEscalate"] = r.choice([True, False])
        return req


def monitor_script(g: Gen) -> list[dict[str, Any]]:
    """A session's requests; 'SESSION' is substituted per harness."""
    r = g.r
    option = g.option()
    if not isinstance(option, dict):
        option = True
    steps: list[dict[str, Any]] = [{"op": "create", "option": option}]
    if r.random() < 0.2:
        steps[0]["state"] = g.blob()
    tools = r.sample(["read", "search", "__proto__", ""], r.randint(1, 2))
    paths = ["a", "b", "c", "z", "d"]
    wide = r.random() < 0.2  # many distinct calls: exercises the pruning of stale per-call slots
    if wide:
        paths = [f"p{i}" for i in range(r.choice([20, 40, 80]))]
    round_no = 0
    for _ in range(r.randint(1, 10) if not wide else r.randint(5, 25)):
        width = r.randint(1, 4) if not wide else r.randint(1, 30)
        calls = [(r.choice(tools), {"path": r.choice(paths)}) for _ in range(width)]
        if r.random() < 0.1:
            calls.append((tools[0], {"n": {"$js": "bigint", "value": "1"}}))
        declared = r.random() < 0.7
        if declared:
            decl = calls if r.random() < 0.85 else calls[: max(1, len(calls) - 1)]
            steps.append(
                {
                    "op": "declareRound",
                    "round": round_no,
                    "calls": [{"toolName": t, "keyMaterial": k} for t, k in decl],
                }
            )
        order = calls[:]
        r.shuffle(order)
        if r.random() < 0.2 and order:
            order.append(order[0])
        for position, (t, k) in enumerate(order):
            if position == 1 and r.random() < 0.1:
                # re-declaration inside the round, possibly with another set (MON-10, MON-56)
                redecl = [
                    (r.choice(tools), {"path": r.choice(paths)}) for _ in range(r.randint(0, 3))
                ] + calls[:1]
                steps.append(
                    {
                        "op": "declareRound",
                        "round": round_no,
                        "calls": [{"toolName": tt, "keyMaterial": kk} for tt, kk in redecl],
                    }
                )
            if position == 1 and r.random() < 0.05:
                steps.append({"op": "restore", "state": g.blob()})
            rec_round: Any = round_no
            if r.random() < 0.05:
                rec_round = r.choice(
                    [
                        round_no + 0.5,
                        -1,
                        round_no + 1,
                        {"$js": "number", "value": "NaN"},
                        {"$js": "number", "value": "-0"},
                    ]
                )
            req: dict[str, Any] = {
                "op": "recordToolCall",
                "toolName": t,
                "keyMaterial": k,
                "round": rec_round,
            }
            if r.random() < 0.2:
                req["options"] = {
                    "allowBlock": r.choice([True, False]),
                    "detector": r.choice(["tool-fingerprint", "server-tool-fingerprint"]),
                }
            steps.append(req)
        extra = r.random()
        if extra < 0.15:
            steps.append({"op": "getState"})
        elif extra < 0.25:
            steps.append({"op": "RESUME", "option": option})
        elif extra < 0.3:
            steps.append({"op": "restore", "state": g.blob()})
        elif extra < 0.45:
            steps.append(
                {
                    "op": "recordAssistantText",
                    "text": r.choice([g.text(), "Retrying the same plan.", " \n "]),
                }
            )
        elif extra < 0.5:
            steps.append({"op": r.choice(["resetTextStreak", "consumeEscalation", "canEscalate"])})
        if r.random() < 0.85:
            round_no += 1
        elif r.random() < 0.3:
            round_no = max(0, round_no - r.randint(1, 2))
    steps.append({"op": "getState"})
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument(
        "--module", help="doom-loop module for the port harness (default: this port)"
    )
    args = parser.parse_args()
    g = Gen(random.Random(args.seed))
    port = Harness(PORT_CMD + (["--module", args.module] if args.module else []))
    ref = Harness(REF_CMD)
    sessions: dict[str, str] = {}
    mismatches = 0
    compared = 0
    ident = 0

    def both(request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        nonlocal ident
        ident += 1
        a = port.ask(
            {
                "id": ident,
                **{k: (sessions["port"] if v == "SESSION" else v) for k, v in request.items()},
            }
        )
        b = ref.ask(
            {
                "id": ident,
                **{k: (sessions["ref"] if v == "SESSION" else v) for k, v in request.items()},
            }
        )
        return a, b

    def check(request: dict[str, Any], a: dict[str, Any], b: dict[str, Any]) -> None:
        nonlocal mismatches, compared
        compared += 1
        op = request["op"]
        if "error" in a or "error" in b:
            ok = "error" in a and "error" in b and a["error"]["code"] == b["error"]["code"]
        else:
            ok = equal(oracle.normative(op, a["result"]), oracle.normative(op, b["result"]))
        if not ok:
            mismatches += 1
            if mismatches <= 15:
                print(
                    f"MISMATCH {op}: {json.dumps(request)[:600]}\n"
                    f"  port: {json.dumps(a)[:600]}\n  ref:  {json.dumps(b)[:600]}"
                )

    hello = both({"op": "hello", "protocol": 1})
    print(
        "port:", hello[0]["result"]["implementation"], "ref:", hello[1]["result"]["implementation"]
    )
    for _ in range(args.count):
        if g.r.random() < 0.6:
            request = g.function_request()
            a, b = both(request)
            check(request, a, b)
            continue
        for step in monitor_script(g):
            if step["op"] == "create":
                a, b = both(step)
                check(step, a, b)
                if "result" not in a or "result" not in b:
                    break
                sessions["port"], sessions["ref"] = a["result"]["session"], b["result"]["session"]
                continue
            if step["op"] == "RESUME":
                a, b = both({"op": "getState", "session": "SESSION"})
                check({"op": "getState"}, a, b)
                old = dict(sessions)
                ident_a = port.ask(
                    {"id": 0, "op": "create", "option": step["option"], "state": a["result"]}
                )
                ident_b = ref.ask(
                    {"id": 0, "op": "create", "option": step["option"], "state": b["result"]}
                )
                port.ask({"id": 0, "op": "close", "session": old["port"]})
                ref.ask({"id": 0, "op": "close", "session": old["ref"]})
                sessions["port"], sessions["ref"] = (
                    ident_a["result"]["session"],
                    ident_b["result"]["session"],
                )
                continue
            request = {**step, "session": "SESSION"}
            a, b = both(request)
            check(request, a, b)
    port_rc, ref_rc = port.close(), ref.close()
    print(
        f"compared {compared} responses, {mismatches} mismatches; "
        f"exit codes port={port_rc} ref={ref_rc}"
    )
    return 0 if mismatches == 0 and port_rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
