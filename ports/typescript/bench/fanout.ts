/**
 * Fan-out benchmark (MON-55, MON-56): per-call cost of `recordToolCall` when
 * one tool is called W times per declared round, for several widths W in one
 * run. Each measurement declares every round, records every call of it, and
 * repeats the same round several times (so streaks climb and verdicts with
 * fan-out messages are built); the figure reported is the median over a few
 * runs. Recording cost must be linear in W: the per-call cost at 20,000 must
 * stay within 1.5x of the cost at 100. Cost is CPU time (process.cpuUsage), so a
 * busy host that deschedules the process does not inflate it; wall-clock time
 * is printed alongside.
 *
 *   npm run bench --prefix ports/typescript            # report
 *   node ports/typescript/dist/bench/fanout.js --check # exit 1 if the bound fails
 */

import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { DoomLoopMonitor, resolveDoomLoopOption } from 'doomloop-kit-harness/doom-loop';

const WIDTHS = [10, 100, 1000, 10_000, 20_000] as const;
const RUNS = 7;
const MIN_ROUNDS = 4;
const CALLS_PER_RUN = 100_000;
const BOUND = 1.5;

interface Figure {
  width: number;
  rounds: number;
  /** Median CPU time (user + system) of recordToolCall per call. */
  recordNs: number;
  /** Median wall-clock time of recordToolCall per call. */
  recordWallNs: number;
  /** Median CPU time of declareRound per declared call. */
  declareNs: number;
}

/** CPU time of this process in milliseconds (immune to being descheduled on a busy host). */
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (() => void) | undefined;

function collectGarbage(): void {
  if (typeof gc === 'function') gc();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function measure(width: number): Promise<{ record: number; recordWall: number; declare: number; rounds: number }> {
  const rounds = Math.max(MIN_ROUNDS, Math.ceil(CALLS_PER_RUN / width));
  const paths = Array.from({ length: width }, (_, index) => `/data/file-${index}.txt`);
  const monitor = new DoomLoopMonitor(resolveDoomLoopOption({ ladder: { stop: false } }));
  let recordMs = 0;
  let recordWallMs = 0;
  let declareMs = 0;
  let verdicts = 0;
  for (let round = 0; round < rounds; round += 1) {
    // Fresh argument objects every round, as an engine parses them from each
    // model response: declareRound fingerprints them, and recordToolCall
    // finds those fingerprints in the monitor's per-object memo (MON-08).
    const keys = paths.map((path) => ({ path }));
    const calls = keys.map((keyMaterial) => ({ toolName: 'read', keyMaterial }));
    const declared = cpuMs();
    await monitor.declareRound(round, calls);
    const started = cpuMs();
    const startedWall = performance.now();
    for (const keyMaterial of keys) {
      const record = await monitor.recordToolCall('read', keyMaterial, round);
      if (record.verdict !== undefined) verdicts += 1;
    }
    recordWallMs += performance.now() - startedWall;
    const ended = cpuMs();
    declareMs += started - declared;
    recordMs += ended - started;
  }
  if (verdicts === 0) throw new Error('benchmark scenario produced no verdicts');
  const total = rounds * width;
  return {
    record: (recordMs * 1e6) / total,
    recordWall: (recordWallMs * 1e6) / total,
    declare: (declareMs * 1e6) / total,
    rounds,
  };
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const warn = console.warn;
  console.warn = () => {}; // block-without-stop is expected for this ladder
  // Warm-up so that the first width does not pay for JIT compilation.
  for (const width of WIDTHS) await measure(width);
  // Widths are interleaved within each run, so background load affects every
  // width alike; a full collection before each measurement keeps one width's
  // garbage from being billed to the next.
  const samples = new Map<number, { record: number[]; recordWall: number[]; declare: number[]; rounds: number }>();
  for (const width of WIDTHS) samples.set(width, { record: [], recordWall: [], declare: [], rounds: 0 });
  for (let run = 0; run < RUNS; run += 1) {
    for (const width of WIDTHS) {
      collectGarbage();
      const result = await measure(width);
      const sample = samples.get(width);
      if (sample === undefined) continue;
      sample.record.push(result.record);
      sample.recordWall.push(result.recordWall);
      sample.declare.push(result.declare);
      sample.rounds = result.rounds;
    }
  }
  const figures: Figure[] = WIDTHS.map((width) => {
    const sample = samples.get(width) ?? { record: [], recordWall: [], declare: [], rounds: 0 };
    return {
      width,
      rounds: sample.rounds,
      recordNs: median(sample.record),
      recordWallNs: median(sample.recordWall),
      declareNs: median(sample.declare),
    };
  });
  console.warn = warn;

  console.log(`node ${process.version}; median of ${RUNS} runs; ~${CALLS_PER_RUN} recorded calls per run`);
  console.log('width   rounds  recordToolCall ns/call (cpu)  (wall)  declareRound ns/call (cpu)');
  for (const figure of figures) {
    console.log(
      `${String(figure.width).padStart(6)}  ${String(figure.rounds).padStart(6)}  ${figure.recordNs.toFixed(0).padStart(28)}  ${figure.recordWallNs.toFixed(0).padStart(6)}  ${figure.declareNs.toFixed(0).padStart(26)}`,
    );
  }
  const at100 = figures.find((figure) => figure.width === 100)?.recordNs ?? Number.NaN;
  const at20k = figures.find((figure) => figure.width === 20_000)?.recordNs ?? Number.NaN;
  const ratio = at20k / at100;
  const pass = ratio <= BOUND;
  console.log(`per-call CPU cost ratio 20000/100 = ${ratio.toFixed(2)} (bound ${BOUND}): ${pass ? 'PASS' : 'FAIL'}`);
  if (check && !pass) process.exitCode = 1;
}

await main();
