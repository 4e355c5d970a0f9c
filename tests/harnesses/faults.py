"""Fault harnesses: the Python reference harness misbehaving on purpose.

``python tests/harnesses/faults.py FAULT [N]`` serves protocol v1 like the
real harness but, on its N-th request after the handshake (default 1),
commits FAULT. Environment:

* ``FAULT_ONCE=<path>``: fault only if ``path`` does not exist yet (and create
  it), so that a restarted harness behaves: exactly one vector is hit.
* ``FAULT_FEATURES=a,b``: declare only these features in the handshake.
* fault ``duplicate``: answer the N-th request twice.
* ``FAULT_PIDFILE=<path>``: append this process's pid, and the pid of a
  sleeping grandchild it starts, so a test can check none is left behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from doomloop_kit.conformance.harnesses.python_reference import ReferencePort
from doomloop_kit.conformance.protocol.server import Server

FAULTS = (
    "crash",
    "hang",
    "garbage",
    "wrong-id",
    "early-exit",
    "huge-line",
    "stderr-flood",
    "no-handshake",
    "version-mismatch",
    "old-protocol",
    "protocol-true",
    "bad-hello",
    "internal-error",
    "duplicate",
    "none",
)


def _record_pids() -> None:
    pidfile = os.environ.get("FAULT_PIDFILE")
    if pidfile:
        child = subprocess.Popen(["sleep", "300"])
        with open(pidfile, "a", encoding="ascii") as handle:
            handle.write(f"{os.getpid()}\n{child.pid}\n")


def _armed() -> bool:
    once = os.environ.get("FAULT_ONCE")
    if not once:
        return True
    try:
        with open(once, "x", encoding="ascii"):
            return True
    except FileExistsError:
        return False


def main() -> int:
    fault = sys.argv[1]
    assert fault in FAULTS, f"unknown fault {fault}"
    nth = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    _record_pids()
    server = Server(ReferencePort())
    out = sys.stdout
    count = 0
    for line in sys.stdin.buffer:
        request = json.loads(line)
        if request.get("op") == "hello":
            if fault == "no-handshake":
                time.sleep(300)
            if fault == "version-mismatch":
                out.write(
                    json.dumps(
                        {
                            "id": 0,
                            "error": {
                                "code": "unsupported-protocol",
                                "message": "this harness speaks protocol 2",
                            },
                        }
                    )
                )
                out.write("\n")
                out.flush()
                continue
            if fault in ("old-protocol", "protocol-true", "bad-hello"):
                result: dict[str, object] = (
                    {"protocol": 7} if fault == "old-protocol" else {"protocol": 1}
                )
                if fault == "protocol-true":  # a well-formed hello but for its version, true == 1
                    implementation = {"name": "t", "language": "py", "version": "0"}
                    result = {"protocol": True, "implementation": implementation, "features": []}
                out.write(json.dumps({"id": 0, "result": result}) + "\n")
                out.flush()
                continue
            response = json.loads(server.respond(line))
            if "FAULT_FEATURES" in os.environ:
                response["result"]["features"] = os.environ["FAULT_FEATURES"].split(",")
            out.write(json.dumps(response) + "\n")
            out.flush()
            continue
        count += 1
        if fault == "stderr-flood":
            for index in range(2000):
                sys.stderr.write(f"flood line {count}.{index} " + "x" * 500 + "\n")
            sys.stderr.flush()
        if count == nth and _armed():
            print(
                f"fault harness: committing {fault} on request {request.get('id')}",
                file=sys.stderr,
                flush=True,
            )
            if fault in ("crash", "stderr-flood"):
                os._exit(3)
            if fault == "hang":
                time.sleep(300)
            if fault == "early-exit":
                return 0
            if fault == "garbage":
                out.write("this is not JSON at all\n")
                out.flush()
                continue
            if fault == "wrong-id":
                out.write(json.dumps({"id": request["id"] + 1000, "result": None}) + "\n")
                out.flush()
                continue
            if fault == "duplicate":
                answer = server.respond(line) + "\n"
                out.write(answer + answer)
                out.flush()
                continue
            if fault == "huge-line":
                out.write(json.dumps({"id": request["id"], "result": "x" * 3_000_000}) + "\n")
                out.flush()
                continue
            if fault == "internal-error":
                out.write(
                    json.dumps(
                        {
                            "id": request["id"],
                            "error": {"code": "internal", "message": "deliberate internal failure"},
                        }
                    )
                    + "\n"
                )
                out.flush()
                continue
        out.write(server.respond(line) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
