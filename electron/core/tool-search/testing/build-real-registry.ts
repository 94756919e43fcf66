/**
 * Builds `real-registry.json.gz`: 500 HTTP tools imported with the project's OpenAPI importer
 * (electron/core/transfer/openapi) from the eight real documents in ../shared/openapi-real
 * (see SOURCES.md there), so the tests and the benchmark run where those documents are not.
 *
 *   npx tsx electron/core/tool-search/testing/build-real-registry.ts [openapi-real folder]
 *
 * Each document becomes a bundle; its operations are taken in turn, one from each document
 * in a round, until 500 are taken. Server variables get their defaults (or "example").
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fillServerVariables } from '../../../../shared/model/openapi-proposal';
import { ToolPutBodySchema, type ToolPutBody } from '../../../../shared/model/tool';
import { parseOpenApi } from '../../transfer/openapi';
import { REAL_DOCUMENTS, REAL_REGISTRY_FILE, REAL_REGISTRY_SIZE, type RealRegistry } from './real-registry';

export function buildRealRegistry(dir: string): RealRegistry {
  const imported = REAL_DOCUMENTS.map((d) => {
    const result = parseOpenApi(readFileSync(path.join(dir, d.file), 'utf8'));
    const values = Object.fromEntries(result.serverVariables.map((v) => [v.name, v.default ?? 'example']));
    const tools = result.operations.map((o) => ToolPutBodySchema.parse(fillServerVariables(o.tool, values)));
    return { doc: d, title: result.title, version: result.version, ops: result.operations.map((o, i) => ({ slug: o.slug, tool: tools[i]! })) };
  });
  const taken: { slug: string; tool: ToolPutBody }[][] = imported.map(() => []);
  let count = 0;
  for (let round = 0; count < REAL_REGISTRY_SIZE; round++) {
    let progressed = false;
    for (let i = 0; i < imported.length && count < REAL_REGISTRY_SIZE; i++) {
      const op = imported[i]!.ops[round];
      if (!op) continue;
      taken[i]!.push(op);
      count++;
      progressed = true;
    }
    if (!progressed) break;
  }
  return {
    bundles: imported.map((d, i) => ({
      slug: d.doc.bundle,
      displayName: d.title,
      description: `${d.title} ${d.version}, imported from ${d.doc.file}`,
      tools: taken[i]!,
    })),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const dir = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '../../../../../shared/openapi-real'));
  const registry = buildRealRegistry(dir);
  writeFileSync(REAL_REGISTRY_FILE, gzipSync(JSON.stringify(registry), { level: 9 }));
  const n = registry.bundles.reduce((s, b) => s + b.tools.length, 0);
  console.log(`${n} tools in ${registry.bundles.length} bundles -> ${REAL_REGISTRY_FILE}`);
}
