/**
 * Built-in bundles ship as JSON under `<resources>/bundles/<name>/` (bundle.json and
 * tools/*.json) with fixed UUIDv7 ids. They are served through the same API with
 * isBuiltIn: true; only isEnabled may change, and that change is kept as an override in
 * `<data>/overrides/<bundleId>.json` so the shipped files are never written.
 *
 * An invalid built-in config is reported ('invalid-config') and skipped at run time;
 * builtins.test.ts fails the build on it.
 */
import path from 'node:path';
import { z } from 'zod';
import { BuiltinBundleConfigSchema, type Bundle, type BuiltinBundleConfig } from '../../../shared/model/bundle';
import { BuiltinToolConfigSchema, type BuiltinToolConfig, type Tool } from '../../../shared/model/tool';
import { nfc, toolKey, UuidV7Schema } from '../../../shared/model/validation';
import { isDataFileName } from './layout';
import { readJson, type ReadJsonResult } from '../lib/json-file';
import { listDir, type StoreFs } from '../lib/durable-fs';
import { firstIssueMessage } from './input';
import type { ProblemSink } from './quarantine';
import { bundleRecord, toolRecord } from './records';
import { schemaCompileViolation } from './schema-check';

export interface BuiltinBundle {
  config: BuiltinBundleConfig;
  tools: BuiltinToolConfig[];
  dir: string;
}

/** `<data>/overrides/<bundleId>.json`: the enabled flags a user set on a built-in bundle. */
export const OverrideSchema = z
  .object({
    isEnabled: z.boolean().optional(),
    tools: z.record(UuidV7Schema, z.object({ isEnabled: z.boolean() }).strict()),
  })
  .strict();
export type Override = z.infer<typeof OverrideSchema>;

export const EMPTY_OVERRIDE: Override = { tools: {} };

/** Parses a config file read with readJson (read first, so the reads of a folder can run at once). */
function checkConfig<S extends z.ZodType>(r: ReadJsonResult, file: string, schema: S, problems: ProblemSink): z.output<S> | undefined {
  const fail = (message: string) => {
    problems.report({ kind: 'invalid-config', path: file, message: `built-in config: ${message}; it is not loaded` });
    return undefined;
  };
  if (r.kind === 'missing') return fail('the file is missing');
  if (r.kind === 'corrupt') return fail(r.message);
  const parsed = schema.safeParse(r.value);
  if (!parsed.success) return fail(`does not match its schema: ${firstIssueMessage(parsed.error)}`);
  return parsed.data;
}

/** Loads and validates every built-in bundle; invalid parts are reported and left out. */
export async function loadBuiltins(fs: StoreFs, resourcesDir: string, problems: ProblemSink): Promise<Map<string, BuiltinBundle>> {
  const root = path.join(resourcesDir, 'bundles');
  const out = new Map<string, BuiltinBundle>();
  const toolIds = new Set<string>();
  // Every file is read at once; what was read is checked in the order of the folders and names.
  const folders = await Promise.all(
    (await listDir(fs, root)).filter((name) => !name.startsWith('.')).map((name) => readBuiltinFolder(fs, path.join(root, name))),
  );
  for (const { dir, bundle, tools: toolFiles } of folders) {
    const config = checkConfig(await bundle, path.join(dir, 'bundle.json'), BuiltinBundleConfigSchema, problems);
    if (!config) continue;
    if (out.has(config.id)) {
      problems.report({ kind: 'invalid-config', path: dir, message: `built-in bundle id ${config.id} is used twice; this copy is not loaded` });
      continue;
    }
    const tools: BuiltinToolConfig[] = [];
    const keys = new Set<string>();
    for (const { where, read } of await toolFiles) {
      const tool = checkConfig(await read, where, BuiltinToolConfigSchema, problems);
      if (!tool) continue;
      const bad =
        schemaCompileViolation(tool.argSchema, 'argSchema')?.message ??
        schemaCompileViolation(tool.outputSchema, 'outputSchema')?.message ??
        (toolIds.has(tool.id) ? `tool id ${tool.id} is used twice` : undefined) ??
        (keys.has(toolKey(tool.slug, tool.version)) ? `'${tool.slug}' version '${tool.version}' is defined twice in the bundle` : undefined);
      if (bad) {
        problems.report({ kind: 'invalid-config', path: where, message: `built-in config: ${bad}; it is not loaded` });
        continue;
      }
      toolIds.add(tool.id);
      keys.add(toolKey(tool.slug, tool.version));
      tools.push({ ...tool, slug: nfc(tool.slug), version: nfc(tool.version), tags: tool.tags.map(nfc) });
    }
    out.set(config.id, { config: { ...config, slug: nfc(config.slug) }, tools, dir });
  }
  return out;
}

interface BuiltinFolder {
  dir: string;
  bundle: Promise<ReadJsonResult>;
  /** Rejects when the tools folder cannot be listed; awaited only once bundle.json proved valid. */
  tools: Promise<{ where: string; read: Promise<ReadJsonResult> }[]>;
}

/**
 * Starts reading a built-in bundle's folder: bundle.json and each tool file. A read that
 * fails (other than a missing file) rejects when its result is awaited, as a sequential
 * read would have thrown there; promises not awaited are marked handled.
 */
async function readBuiltinFolder(fs: StoreFs, dir: string): Promise<BuiltinFolder> {
  const handled = <T>(p: Promise<T>): Promise<T> => {
    p.catch(() => undefined);
    return p;
  };
  const bundle = handled(readJson(path.join(dir, 'bundle.json'), fs));
  const tools = handled(
    listDir(fs, path.join(dir, 'tools')).then((names) =>
      names.filter(isDataFileName).map((file) => {
        const where = path.join(dir, 'tools', file);
        return { where, read: handled(readJson(where, fs)) };
      }),
    ),
  );
  return { dir, bundle, tools };
}

/** The built-in bundle and tools as served: the shipped config with the user's flags on top. */
export function applyOverride(b: BuiltinBundle, o: Override): { bundle: Bundle; tools: Tool[] } {
  const bundle = bundleRecord({ ...b.config, isEnabled: o.isEnabled ?? b.config.isEnabled, isBuiltIn: true });
  const tools = b.tools.map((t) =>
    toolRecord({ ...t, bundleId: b.config.id, isEnabled: o.tools[t.id]?.isEnabled ?? t.isEnabled, isBuiltIn: true }),
  );
  return { bundle, tools };
}
