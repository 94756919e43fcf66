/**
 * The realistic registry of the tool-search tests and benchmark: 500 HTTP tools imported from
 * eight real OpenAPI documents (GitHub, Jira, Stripe, Twilio, Box, OpenAI, Discord, Asana; see
 * ../shared/openapi-real/SOURCES.md), kept in this folder as `real-registry.json.gz` so
 * nothing outside the repository is needed to run them (`build-real-registry.ts` rebuilds it).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { v7 as uuidv7 } from 'uuid';
import type { ToolPutBody, ToolView } from '../../../../shared/model/tool';

export const REAL_REGISTRY_SIZE = 500;
export const REAL_REGISTRY_FILE = path.join(import.meta.dirname, 'real-registry.json.gz');

/** The documents, in the order the registry takes their operations, and the bundle each becomes. */
export const REAL_DOCUMENTS = [
  { file: 'github.json', bundle: 'github' },
  { file: 'jira-platform.json', bundle: 'jira' },
  { file: 'stripe.yaml', bundle: 'stripe' },
  { file: 'twilio-api-v2010.json', bundle: 'twilio' },
  { file: 'box.json', bundle: 'box' },
  { file: 'openai.yaml', bundle: 'openai' },
  { file: 'discord.json', bundle: 'discord' },
  { file: 'asana.yaml', bundle: 'asana' },
] as const;

export interface RealRegistry {
  bundles: { slug: string; displayName: string; description: string; tools: { slug: string; tool: ToolPutBody }[] }[];
}

export function readRealRegistry(): RealRegistry {
  return JSON.parse(gunzipSync(readFileSync(REAL_REGISTRY_FILE)).toString('utf8')) as RealRegistry;
}

export interface RealTool {
  /** `bundle/slug`, as the tasks name their target. */
  key: string;
  tool: ToolView;
  bundleSlug: string;
  bundleName: string;
}

/** The registry as tool views (ids made up, stamps fixed), in bundle order. */
export function realTools(registry: RealRegistry = readRealRegistry()): RealTool[] {
  const at = '2026-01-01T00:00:00.000Z';
  const out: RealTool[] = [];
  for (const b of registry.bundles) {
    const bundleId = uuidv7();
    for (const { slug, tool } of b.tools) {
      // HTTP tools only: a put body's script (its source) has no place in a view.
      const { script: _none, ...definition } = tool;
      const view: ToolView = { ...definition, id: uuidv7(), bundleId, slug, version: '1', isBuiltIn: false, createdAt: at, modifiedAt: at };
      out.push({ key: `${b.slug}/${slug}`, tool: view, bundleSlug: b.slug, bundleName: b.displayName });
    }
  }
  return out;
}
