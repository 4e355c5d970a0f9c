// Build step: the kit's one table of ENG-141 error kinds (conformance/sdk_replay/sdk-error-kinds.json,
// also read by the Python replay) goes beside dist/sdk-engine/run-error.js, which reads it at run time.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = resolve(root, '..', '..', 'conformance', 'sdk_replay', 'sdk-error-kinds.json');
const target = resolve(root, 'dist', 'sdk-engine', 'sdk-error-kinds.json');
mkdirSync(dirname(target), { recursive: true });
copyFileSync(source, target);
