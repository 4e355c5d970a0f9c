/**
 * Replays every committed vector file (vectors/manifest.json) against this
 * port through the harness's own request path (Dispatcher), comparing with
 * the expectations as the runner does: every part of a result, numbers as
 * doubles, objects order-insensitive. Vectors that need a feature the port
 * does not declare are skipped (CONF-05): this port declares every feature
 * but `json-own-members` (it declares `js-inherited-members`, as the SDK
 * behaves).
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';

import { JS_MODULE_FEATURES } from '../wire.js';
import { portDispatcher, REPO_ROOT, replay, type Vector } from './support.js';

const VECTORS_DIR = process.env.DOOMLOOP_VECTORS ?? resolve(REPO_ROOT, 'vectors');
const manifestPath = resolve(VECTORS_DIR, 'manifest.json');

interface Manifest {
  format: number;
  files: { path: string; family: string; vectors: number; sha256: string }[];
  vectors: number;
}

const manifest: Manifest | undefined = existsSync(manifestPath)
  ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest)
  : undefined;

describe('committed vectors', { skip: manifest === undefined ? `no ${manifestPath}` : false }, () => {
  const files = manifest?.files ?? [];
  const declared = new Set([...JS_MODULE_FEATURES, 'engine']); // the port's own engine (portDispatcher)
  let total = 0;
  let passed = 0;
  let skipped = 0;

  for (const entry of files) {
    it(`${entry.path} (${entry.vectors} vectors)`, async () => {
      const bytes = readFileSync(resolve(VECTORS_DIR, entry.path));
      assert.equal(createHash('sha256').update(bytes).digest('hex'), entry.sha256, 'manifest hash');
      const file = JSON.parse(bytes.toString('utf8')) as { format: number; vectors: Vector[] };
      assert.equal(file.format, 1);
      assert.equal(file.vectors.length, entry.vectors, 'manifest vector count');
      const failures: string[] = [];
      const dispatcher = portDispatcher();
      for (const vector of file.vectors) {
        total += 1;
        if ((vector.features ?? []).some((feature) => !declared.has(feature))) {
          skipped += 1;
          continue;
        }
        const problems = await replay(dispatcher, vector);
        if (problems.length === 0) passed += 1;
        else failures.push(...problems.slice(0, 3));
      }
      assert.deepEqual(failures.slice(0, 20), [], `${failures.length} problem(s) in ${entry.path}`);
    });
  }

  it('covers every vector of the manifest', () => {
    assert.equal(total, manifest?.vectors);
    process.stdout.write(
      `# vectors: ${passed} passed, ${total - passed - skipped} failed, ${skipped} skipped, of ${total}\n`,
    );
    assert.equal(passed + skipped, total);
  });
});
