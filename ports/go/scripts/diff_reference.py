"""Seeded differential check of the Go harness against the Python reference.

Generates random protocol requests (pure functions with JS-only values,
monitor sessions, and wide fan-out round sequences), sends the same lines to
the reference harness and to the Go harness, and compares every response
with the runner's rule (normative parts only; error codes only).

    python ports/go/scripts/diff_reference.py --seed 1 --count 5000
"""

import argparse
import json
import os
import random
import subprocess
import sys
from collections import Counter

from doomloop_kit.generators import format as vformat
from doomloop_kit.generators import oracle

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--count", type=int, default=5000, help="number of requests")
parser.add_argument("--functions", type=float, default=0.3, help="share of function requests")
parser.add_argument("--fanout", type=float, default=0.3, help="share of fan-out sessions")
parser.add_argument("--harness", default=os.path.join(os.path.dirname(__file__), "..", "bin", "doomloop-harness"))
parser.add_argument("--stats", action="store_true", help="print the mix of operations and outcomes")
args = parser.parse_args()
N = args.count
FR = args.functions
rng = random.Random(args.seed)

# Inputs are drawn from small pools chosen to hit the spec's edge cases:
# JS-only values, lone surrogates, exotic whitespace, unusual thresholds.
WS = [" ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\ufeff", "\u0085", "\u001c", "\u2028", "\u180e"]
WORDS = ["a", "b", "no", "I", "am", "stuck.", "😀", "é", "\ud800", "\ude00", "x\ud83d", "$js", "__proto__"]

def rstr():
    k = rng.random()
    if k < 0.5: return rng.choice(["a", "b", "c", "path", "read", "", "__proto__", "toString", "$js", "😀", "｡", "B"])
    return "".join(rng.choice(WORDS + ["\u0001", "\"", "\\", "\u007f"]) for _ in range(rng.randint(0, 4)))

def rnum():
    return rng.choice([0, 1, 2, 3, -1, 0.5, 2.9, 1e21, 1e-7, 9007199254740993, -0.0, 1e300, 6, 1000001,
                       {"$js": "number", "value": rng.choice(["NaN", "Infinity", "-Infinity", "-0"])},
                       rng.uniform(-10, 10), rng.randint(-5, 10)])

def rval(d=0):
    k = rng.random()
    if d > 3 or k < 0.35:
        return rng.choice([None, True, False, rnum(), rstr(), rnum(), rstr()])
    if k < 0.45:
        return rng.choice([{"$js": "undefined"}, {"$js": "function"}, {"$js": "symbol"},
                           {"$js": "bigint", "value": "12"}, {"$js": "ref", "up": 1},
                           {"$js": "nest", "depth": rng.choice([0, 3, 63, 64, 65, 200]), "value": rval(d + 1)},
                           {"$js": "object", "value": {"$js": rval(d + 1)}}])
    if k < 0.7:
        return [rval(d + 1) for _ in range(rng.randint(0, 3))]
    return {rstr(): rval(d + 1) for _ in range(rng.randint(0, 3))}

def rtext():
    n = rng.randint(0, 30)
    vocab = rng.sample(WORDS, rng.randint(1, 4))
    period = [rng.choice(vocab) for _ in range(rng.randint(1, 3))]
    parts = []
    for i in range(n):
        parts.append(period[i % len(period)] if rng.random() < 0.85 else rng.choice(WORDS))
        parts.append(rng.choice(WS) * rng.randint(1, 2))
    return "".join(parts)

def rthreshold():
    return rng.choice([False, True, None, 0, 1, 2, 3, 4, 5, 6, 2.5, "3", -1, {"$js": "number", "value": "Infinity"}, [], {}])

def roption():
    k = rng.random()
    if k < 0.1: return rng.choice([True, {}, 5, "x", []])
    o = {}
    if rng.random() < 0.7:
        o["ladder"] = {r: rthreshold() for r in ["observe", "steer", "escalate", "block", "stop"] if rng.random() < 0.5}
    if rng.random() < 0.4:
        o["text"] = rng.choice([False, True, None, {"minRepeats": rng.choice([None, 2, 3]), "minCoveredTokens": rng.choice([2, 4, 12]),
                                                   "maxWindowTokens": rng.choice([1, 2, 5, 400]), "maxPeriodTokens": rng.choice([1, 3, 16])}])
    if rng.random() < 0.5:
        e = {}
        for m in ["model", "advisor", "maxEscalations"]:
            if rng.random() < 0.5:
                e[m] = rng.choice([None, False, "m", 0, 3.7, 1, {"k": 1}, {"$js": "undefined"}])
        o["escalation"] = e
    return o

def function_request():
    op = rng.choice(["canonicalize", "fingerprintKeyMaterial", "fingerprintToolCall", "resolveOption",
                     "resolveLoopKey", "detectTextRepetition", "resolveLadderAction"])
    r = {"op": op}
    if op == "canonicalize": r["value"] = rval()
    elif op == "fingerprintKeyMaterial": r["keyMaterial"] = rval()
    elif op == "fingerprintToolCall": r["toolName"] = rstr(); r["keyMaterial"] = rval()
    elif op == "resolveOption":
        if rng.random() < 0.9: r["option"] = roption()
    elif op == "resolveLoopKey":
        r["args"] = {rstr(): rval(2) for _ in range(rng.randint(0, 3))}
        k = rng.random()
        if k < 0.2: pass
        elif k < 0.5: r["loopKey"] = [rng.choice([rstr(), 7, True]) for _ in range(rng.randint(0, 3))]
        elif k < 0.8: r["loopKey"] = rng.choice([{"$js": "function", "returns": rval()}, {"$js": "function", "returns": None},
                                                {"$js": "function", "returns": {"$js": "undefined"}}, {"$js": "function", "throws": "boom"}])
        else: r["loopKey"] = rng.choice([False, True, None, 3, "x", {}, {"$js": "function"}])
    elif op == "detectTextRepetition":
        r["text"] = rtext()
        if rng.random() < 0.6:
            r["options"] = {"minRepeats": rng.choice([1, 2, 3, 4]), "minCoveredTokens": rng.choice([1, 2, 4, 12]),
                            "maxWindowTokens": rng.choice([1, 2, 3, 10, 400]), "maxPeriodTokens": rng.choice([1, 2, 3, 16])}
    else:
        r["ladder"] = {x: rng.choice([False, 1, 2, 3, 4, 5, 6]) for x in ["observe", "steer", "escalate", "block", "stop"]}
        r["streak"] = rng.choice([0, 1, 2, 2.5, 3, 4, 5, 6, 7, 100])
        r["allowBlock"] = rng.choice([True, False])
        if rng.random() < 0.5: r["allowEscalate"] = rng.choice([True, False])
    return r

TOOLS = ["read", "search", "", "__proto__", "$js", "t\ud800"]
def rkey():
    k = rng.random()
    if k < 0.8: return {"path": rng.choice("abcdz")}
    return rval()

def rstate():
    k = rng.random()
    if k < 0.1: return rng.choice([None, [], "x", 3])
    tools = {}
    for _ in range(rng.randint(0, 2)):
        fp = rng.choice(["x", "p", "q", 7])
        v = {"fingerprint": fp, "streak": rng.choice([2.7, 0, -5, 5000000, "3", True, 1e300, 3])}
        if rng.random() < 0.5: v["roundFingerprints"] = rng.choice([["q", "p", "q"], ["p"], ["p", 1], "p", ["😀", "｡"]])
        if rng.random() < 0.5: v["callStreaks"] = rng.choice([{"p": 2.9, "q": 0, "r": "5", "u": True}, [3, 0], {}])
        tools[rng.choice([t for t in TOOLS if t != "$js"])] = v
    s = {"tools": rng.choice([tools, tools, [{"fingerprint": "x", "streak": 1}], "junk"])}
    if rng.random() < 0.4: s["text"] = {"fingerprint": "t", "streak": rng.choice([2.5, -1, 1, -0.0])}
    if rng.random() < 0.4: s["escalationsUsed"] = rng.choice([-1, 2.9, 0, 5])
    return s

def session_script(sid):
    reqs = []
    opt = roption() if rng.random() < 0.7 else True
    create = {"op": "create", "option": opt}
    if rng.random() < 0.2: create["state"] = rstate()
    reqs.append(create)
    rnd = 0
    tool = rng.choice(TOOLS)
    pool = [{"path": p} for p in "abcdz"]
    for _ in range(rng.randint(1, 40)):
        k = rng.random()
        if k < 0.12:
            calls = [{"toolName": rng.choice([tool, tool, "search"]), "keyMaterial": rng.choice(pool + [rval()])} for _ in range(rng.randint(0, 4))]
            reqs.append({"op": "declareRound", "session": sid, "round": rnd, "calls": calls})
        elif k < 0.6:
            r = {"op": "recordToolCall", "session": sid, "toolName": rng.choice([tool, tool, "search"]),
                 "keyMaterial": rng.choice(pool + [rkey()]), "round": rnd}
            if rng.random() < 0.2: r["options"] = {"allowBlock": rng.choice([True, False]), "detector": rng.choice(["tool-fingerprint", "server-tool-fingerprint"])}
            reqs.append(r)
        elif k < 0.72:
            rnd += 1
        elif k < 0.82:
            reqs.append({"op": "recordAssistantText", "session": sid, "text": rng.choice([rtext(), "Retrying the same plan.", "  "])})
        elif k < 0.86:
            reqs.append({"op": "getState", "session": sid})
        elif k < 0.89:
            reqs.append({"op": "restore", "session": sid, "state": rstate()})
        elif k < 0.93:
            reqs.append({"op": rng.choice(["consumeEscalation", "canEscalate", "resetTextStreak"]), "session": sid})
        else:
            rnd = rng.choice([rnd, rnd + 1, 0])
    reqs.append({"op": "getState", "session": sid})
    return reqs

def fan_script(sid):
    reqs = [{"op": "create", "option": rng.choice([True, {"ladder": {"observe": 2, "steer": 3, "escalate": 4, "block": 5, "stop": 9}, "escalation": {"model": "m"}}])}]
    pool = [{"path": p} for p in "abcdefgh"]
    rnd = 0
    for _ in range(rng.randint(3, 14)):
        decl = rng.sample(pool, rng.randint(1, 6))
        if rng.random() < 0.85:
            reqs.append({"op": "declareRound", "session": sid, "round": rnd, "calls": [{"toolName": "read", "keyMaterial": k} for k in decl]})
        order = decl[:]; rng.shuffle(order)
        if rng.random() < 0.3: order.append(rng.choice(pool))
        if rng.random() < 0.2: order.insert(0, rng.choice(decl))
        for j, k in enumerate(order):
            reqs.append({"op": "recordToolCall", "session": sid, "toolName": "read", "keyMaterial": k, "round": rnd})
            if rng.random() < 0.05:
                reqs.append({"op": "declareRound", "session": sid, "round": rnd, "calls": [{"toolName": "read", "keyMaterial": k} for k in rng.sample(pool, 3)]})
            if rng.random() < 0.03:
                reqs.append({"op": "consumeEscalation", "session": sid})
        if rng.random() < 0.15:
            reqs.append({"op": "getState", "session": sid})
        rnd += 1
        if rng.random() < 0.1: rnd += 1
    reqs.append({"op": "getState", "session": sid})
    return reqs
requests = [{"op": "hello", "protocol": 1}]
sid = 0
while len(requests) < N:
    if rng.random() < FR:
        requests.append(function_request())
    else:
        sid += 1
        script = fan_script if rng.random() < args.fanout else session_script
        requests.extend(script(f"s{sid}"))

lines = [json.dumps({"id": i, **r}) for i, r in enumerate(requests)]
payload = ("\n".join(lines) + "\n").encode()

# Session ids are assigned by the harnesses in order of successful creates;
# every generated create succeeds, so "s<n>" names the n-th script's session.
def run(cmd):
    p = subprocess.run(cmd, input=payload, capture_output=True)
    out = p.stdout.decode("utf-8", "surrogatepass").rstrip("\n").split("\n")
    if p.returncode != 0: print(cmd, "exit", p.returncode, p.stderr.decode()[-2000:])
    return out

py = run([sys.executable, "-m", "doomloop_kit.conformance.harnesses.python_reference"])
go = run([args.harness])
print("responses", len(py), len(go))
bad = 0
for i, (a, b) in enumerate(zip(py, go)):
    if i == 0: continue
    ra, rb = json.loads(a), json.loads(b)
    op = requests[i]["op"]
    if "error" in ra or "error" in rb:
        ca = ra.get("error", {}).get("code"); cb = rb.get("error", {}).get("code")
        if ca != cb:
            bad += 1
            if bad <= 15: print("ERRDIFF", i, op, json.dumps(requests[i])[:400], "\n  py:", a[:300], "\n  go:", b[:300])
        continue
    ea = oracle.normative(op, ra["result"]); eb = oracle.normative(op, rb["result"])
    d = vformat.compare(ea, eb)
    if d:
        bad += 1
        if bad <= 15: print("DIFF", i, op, d[0].path, d[0].reason, json.dumps(requests[i])[:400], "\n  py:", a[:400], "\n  go:", b[:400])
print("mismatches", bad)
stats = Counter()
for i, a in enumerate(py):
    r = json.loads(a); op = requests[i]["op"]
    stats[(op, "error:" + r["error"]["code"] if "error" in r else ("verdict" if isinstance(r.get("result"), dict) and "verdict" in r["result"] else "ok"))] += 1
if args.stats:
    for k, v in sorted(stats.items()):
        print(k, v)
sys.exit(1 if bad else 0)
