/**
 * `npm run bench [-- --json] [-- name-filter]`: runs each workload and prints our figure,
 * the baseline measured in the same run, and the ratio.
 */
import type { BenchResult } from './harness';

const WORKLOADS: Record<string, () => Promise<{ run(): Promise<BenchResult[]> }>> = {
  rpc: () => import('./rpc.bench'),
  search: () => import('./search.bench'),
  registry: () => import('./registry.bench'),
  invoke: () => import('./invoke.bench'),
  route: () => import('./route.bench'),
  'buffer-search': () => import('./buffer-search.bench'),
  'http-memory': () => import('./http-memory.bench'),
  'tool-output': () => import('./tool-output.bench'),
  'tool-search': () => import('./tool-search.bench'),
  'tool-toole': () => import('./tool-search-toole.bench'),
  'mcp-server': () => import('./mcp-server.bench'),
  'mcp-client': () => import('./mcp-client.bench'),
  memory: () => import('./memory.bench'),
  'script-tool': () => import('./script-tool.bench'),
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const asJson = args.includes('--json');
  const filters = args.filter((a) => !a.startsWith('--'));
  const results: BenchResult[] = [];
  for (const [name, load] of Object.entries(WORKLOADS)) {
    if (filters.length && !filters.some((f) => name.includes(f))) continue;
    if (!asJson) console.error(`running ${name}…`);
    results.push(...(await (await load()).run()));
  }
  if (asJson) {
    console.log(JSON.stringify({ at: new Date().toISOString(), node: process.versions.node, results }, null, 2));
    return;
  }
  for (const r of results) {
    const verdict = r.target === undefined ? '' : r.ratio <= r.target ? `  (target <= ${r.target}: met)` : `  (target <= ${r.target}: MISSED)`;
    console.log(`${r.name}\n  ours ${fmt(r.ours)} ${r.unit}, baseline ${fmt(r.baseline)} ${r.unit}, ratio ${r.ratio.toFixed(3)}${verdict}${r.note ? `\n  ${r.note}` : ''}`);
  }
}

function fmt(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(4);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
