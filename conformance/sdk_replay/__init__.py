"""Replay the SDK's recorded answers through any protocol-v1 harness (issue 11).

``../shared/upstream/sdk-0.9.0-observations.jsonl`` and
``sdk-0.9.0-corpus.jsonl.gz`` hold requests sent to the SDK 0.9.0 (behind the
kit's TypeScript harness) and the answers it gave. :func:`replay` sends every
request, in file order, to a harness command and requires the SDK's answer,
except on lines an exclusion :class:`Rule` covers; each rule cites the spec
statement that puts its lines outside the kit's domain. Nothing is excluded
line by line.

How an answer is compared (spec/protocol.md PROT-22, PROT-23, PROT-25):

* the ``id`` is compared; a create's session id is not (it is the harness's own);
* an SDK error ``internal`` whose message starts with ``TypeError:`` is the
  code ``type-error`` (the recording harness predates it, PROT-23);
* an error is compared by code; a ``canonicalization`` error also by message;
* a result by the vector comparison rule (spec/vectors.md#comparison), with
  each SDK warning's ``code`` (always ``"unclassified"``: the SDK has messages
  only) replaced by the one the kit derives from the message (CFG-34).

Sessions: a monitor request names ``"@N"`` (the session the ``create`` with id
N made) or, in the observations file, the recording harness's own id; both are
mapped to the replaying harness's session, and a session's lines need the
features its ``create`` needed. A fresh harness process starts whenever a
line's id is not greater than the previous line's.

Exclusions (:data:`SDK_0_9_0_RULES`): a bare ``-0`` token (PROT-29), and a
feature the line needs that the harness does not declare (CONF-05; for
``js-coercion`` CFG-45, for ``js-inherited-members`` KEY-23). The corpus
writes non-finite numbers as bare ``NaN``/``Infinity`` literals; they are sent
as their tags.

Engine lines (``sdk-engine-0.9.0-corpus.jsonl.gz``, one ``runScenario`` each)
are judged with the reference engine run in-process: the SDK's transcript must
equal the reference's, and the harness's transcript must equal the reference's,
both by the partial order of ENG-139 (the reference's order is the only one the
two comparisons share). Runs are excluded, not lines: when a run leaves the
engine level's domain (ENG-151), the runs before it are still compared and
only it and the runs after it are not; a line whose first run leaves it is
excluded, and a harness answering ``bad-scenario`` for a scenario that leaves
it (PROT-43) is not judged on the earlier runs, the SDK still is. The
recording harness spelled every error the SDK threw as ``sdk-error`` with the
SDK's message: :data:`SDK_ERROR_KINDS` gives its kind (ENG-141).

The lines reach the harness as recorded, their own ids included (PROT-24;
only a session is renamed to the harness's own), through the raw mode of the
runner's client
(:meth:`~doomloop_kit.conformance.protocol.Connection.send_raw`). The parts:
:mod:`.recordings` reads the files, :mod:`.answers` compares an answer,
:mod:`.rules` says what a line needs and which lines are excluded,
:mod:`.replay` runs it all, :mod:`.command` is ``doomloop-kit conformance sdk-replay``.

The command exits 0 when every line is reproduced or excluded, 1 on any
difference (a ``create`` answered without a session is one), 2 for bad
arguments, and 3, with one line on stderr, when the harness cannot be used
(it does not start, speaks another protocol version or breaks the protocol),
as ``conformance run`` does (docs/guide/ci.md#how-a-run-ends).
"""

from __future__ import annotations

from .answers import (
    SDK_ERROR_KINDS,
    ReferenceRun,
    differences,
    reference_run,
    runs_compared,
    sdk_expectation,
    sdk_transcript,
)
from .command import main
from .recordings import Line, read_lines
from .replay import Report, replay
from .rules import SDK_0_9_0_RULES, Rule, needs, raw_negative_zero

__all__ = [
    "SDK_0_9_0_RULES",
    "SDK_ERROR_KINDS",
    "Line",
    "ReferenceRun",
    "Report",
    "Rule",
    "differences",
    "main",
    "needs",
    "raw_negative_zero",
    "read_lines",
    "reference_run",
    "replay",
    "runs_compared",
    "sdk_expectation",
    "sdk_transcript",
]
