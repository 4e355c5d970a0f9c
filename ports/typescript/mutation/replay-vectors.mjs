// The "test" of one Stryker mutant: replay every committed vector
// (vectors/manifest.json) through the port's own request path, exactly as
// dist/test/vectors.test.js does (support.js's portDispatcher and replay),
// but stop at the FIRST vector that fails: a killed mutant costs a fraction
// of a full replay. Exit status 0 = every vector passed (the mutant survives),
// 1 = a vector failed, 2 = the replay crashed (both kill the mutant).
//
// Run from the package root (the Stryker sandbox is a copy of it), after the
// build: node mutation/replay-vectors.mjs. DOOMLOOP_VECTORS overrides the
// vector directory (Stryker's config sets it, as the sandbox is not in the tree).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { portDispatcher, REPO_ROOT, replay } from '../dist/test/support.js';
import { JS_MODULE_FEATURES } from '../dist/wire.js';

const vectorsDir = process.env.DOOMLOOP_VECTORS ?? resolve(REPO_ROOT, 'vectors');
const manifest = JSON.parse(readFileSync(resolve(vectorsDir, 'manifest.json'), 'utf8'));
const declared = new Set(JS_MODULE_FEATURES);
const verbose = process.argv.includes('--verbose');

let judged = 0;
for (const entry of manifest.files) {
  const bytes = readFileSync(resolve(vectorsDir, entry.path));
  if (createHash('sha256').update(bytes).digest('hex') !== entry.sha256) {
    process.stderr.write(`${entry.path}: sha256 differs from the manifest\n`);
    process.exit(2);
  }
  const dispatcher = portDispatcher();
  for (const vector of JSON.parse(bytes.toString('utf8')).vectors) {
    if ((vector.features ?? []).some((feature) => !declared.has(feature))) continue;
    const problems = await replay(dispatcher, vector);
    if (problems.length > 0) {
      process.stderr.write(`${problems[0]}\n`);
      process.exit(1);
    }
    judged += 1;
  }
}
if (verbose) process.stdout.write(`${judged} vectors passed\n`);
