// `npm run bench`: builds the benchmarks (./bench-build.mjs), then runs them.
import { spawnSync } from 'node:child_process';
import { buildBench } from './bench-build.mjs';

const entry = await buildBench('.bench-dist');
const r = spawnSync(process.execPath, ['--expose-gc', entry, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
