/**
 * What a tool says of itself, as the ranking reads it: one text per field. Only the tool's
 * own words: its slug, display name (and an MCP server's title), description (its first
 * sentence apart, as the summary most descriptions open with), argument names and their
 * descriptions, tags, its bundle's slug and name, and for an HTTP tool the method and the
 * literal segments of its path (`/repos/{owner}/{repo}/issues` says "repos issues").
 */
import type { ToolView } from '../../../shared/model/tool';
import { toolAction, toolScope, type Action, type Scope } from './action';
import { plainText } from './text';

export type FieldName = 'name' | 'title' | 'lead' | 'description' | 'args' | 'argDocs' | 'tags' | 'bundle' | 'path';

export const FIELDS: readonly FieldName[] = ['name', 'title', 'lead', 'description', 'args', 'argDocs', 'tags', 'bundle', 'path'];

export type ToolFields = Record<FieldName, string>;

/** What the ranking needs of a tool: its fields, and the key it is found under. */
export interface SearchableTool {
  key: string;
  fields: ToolFields;
  /** What the tool does (./action.ts), when its name or method says. */
  action?: Action;
  /** For a read: one thing or a list (./action.ts). */
  scope?: Scope;
  /** The service the tool belongs to (its bundle), and the words a person names it by. */
  service?: Service;
}

export interface Service {
  /** The bundle's slug. */
  id: string;
  /** Lower-case names: the slug, the words of the display name that are not generic, initials of a name written in parts (GitHub: "gh"), the API host's name. */
  names: string[];
}

/** Words in bundle names that do not name a service. */
const GENERIC_NAME_WORDS = new Set(['api', 'apis', 'rest', 'http', 'https', 'openapi', 'swagger', 'sdk', 'platform', 'service', 'services', 'server', 'tools', 'tool', 'the', 'and', 'of', 'for', 'v1', 'v2', 'v3', 'v4', 'cloud', 'web', 'app', 'imported', 'from', 'json', 'yaml', 'mcp']);
/** Host labels that do not name a service. */
const GENERIC_HOST_LABELS = new Set(['api', 'apis', 'www', 'com', 'org', 'net', 'io', 'dev', 'co', 'app', 'ai', 'gov', 'edu', 'uk', 'de', 'localhost', 'rest', 'gateway', 'public', 'cloud', 'prod', 'staging', 'sandbox', 'us', 'eu']);

/** The names of a tool's service (see Service.names). */
export function serviceNames(bundleSlug: string, bundleName: string | undefined, urlTemplate: string | undefined): string[] {
  const names = new Set<string>();
  const add = (w: string) => {
    const n = w.toLowerCase();
    if (n.length >= 2 && !GENERIC_NAME_WORDS.has(n) && !/^v?\d+(\.\d+)*$/.test(n)) names.add(n);
  };
  if (bundleSlug) {
    add(bundleSlug.replace(/-/g, ''));
    for (const part of bundleSlug.split('-')) add(part);
  }
  for (const run of (bundleName ?? '').normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []) {
    add(run);
    const parts = run.split(/(?<=\p{Ll})(?=\p{Lu})/u);
    if (parts.length > 1 && parts.every((p) => p.length > 1)) add(parts.map((p) => p[0]).join(''));
  }
  const host = /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i.exec(urlTemplate ?? '')?.[1];
  if (host && !host.includes('{')) for (const label of host.split('.')) if (!GENERIC_HOST_LABELS.has(label.toLowerCase())) add(label);
  return [...names];
}

/** A description's words beyond this many characters are not read (long notes, examples). */
export const MAX_DESCRIPTION_CHARS = 2_000;
/** Argument descriptions read per argument. */
export const MAX_ARG_DOC_CHARS = 200;
/** Arguments read, nested ones included. */
export const MAX_ARGS = 80;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first sentence of a text (up to a full stop followed by a space or the end, or a line break). */
export function firstSentence(text: string): string {
  const t = plainText(text).trim();
  const m = /^[\s\S]{1,400}?(?:[.!?](?=\s|$)|\n\s*\n)/.exec(t);
  return (m ? m[0] : t.slice(0, 400)).trim();
}

/** Argument names and descriptions, nested object properties included, at most MAX_ARGS. */
export function argumentTexts(schema: unknown): { names: string[]; docs: string[] } {
  const names: string[] = [];
  const docs: string[] = [];
  const walk = (s: unknown, depth: number) => {
    if (!isObj(s) || depth > 3 || names.length >= MAX_ARGS) return;
    const props = isObj(s.properties) ? s.properties : {};
    for (const [name, sub] of Object.entries(props)) {
      if (names.length >= MAX_ARGS) return;
      names.push(name);
      if (isObj(sub)) {
        const d = typeof sub.description === 'string' ? sub.description : typeof sub.title === 'string' ? sub.title : '';
        if (d) docs.push(plainText(d).slice(0, MAX_ARG_DOC_CHARS));
        walk(sub, depth + 1);
        if (isObj(sub.items)) walk(sub.items, depth + 1);
      }
    }
  };
  walk(schema, 0);
  return { names, docs };
}

/**
 * The literal segments of a URL template's path, e.g. "repos issues". The method is not
 * among them: "put", "get", "post" would match a person's English verbs; the action factor
 * (./action.ts) reads it instead.
 */
export function pathText(urlTemplate: string): string {
  const p = urlTemplate.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0] ?? '';
  const segs = p
    .split('/')
    .map((s) => s.replace(/\{[^}]*\}/g, ' ').replace(/\.json$/i, ''))
    .filter((s) => s.trim() && !/^v\d+(\.\d+)*$/i.test(s.trim()));
  return segs.join(' ');
}

export interface ToolOfBundle {
  tool: Pick<ToolView, 'slug' | 'displayName' | 'description' | 'tags' | 'argSchema'> & Partial<Pick<ToolView, 'http' | 'mcp'>>;
  bundleSlug: string;
  bundleName?: string;
}

export function toolFields({ tool, bundleSlug, bundleName }: ToolOfBundle): ToolFields {
  const description = plainText(tool.description).slice(0, MAX_DESCRIPTION_CHARS);
  const lead = firstSentence(tool.description);
  const args = argumentTexts(tool.argSchema);
  const http = tool.http as { method?: string; urlTemplate?: string } | undefined;
  return {
    name: tool.slug,
    title: [tool.displayName, tool.mcp?.title ?? ''].join(' '),
    lead,
    description,
    args: args.names.join(' '),
    argDocs: args.docs.join(' . '),
    tags: tool.tags.join(' '),
    bundle: [bundleSlug, bundleName ?? ''].join(' '),
    path: http?.urlTemplate ? pathText(http.urlTemplate) : '',
  };
}

/** A tool as the ranking reads it, found under `key`. */
export function searchableTool(key: string, t: ToolOfBundle): SearchableTool {
  const http = t.tool.http as { method?: string; urlTemplate?: string } | undefined;
  const action = toolAction(t.tool.displayName, t.tool.slug, http?.method);
  const scope = action === 'read' ? toolScope(t.tool.displayName, t.tool.slug, http?.method, http?.urlTemplate) : undefined;
  const names = t.bundleSlug ? serviceNames(t.bundleSlug, t.bundleName, http?.urlTemplate) : [];
  return { key, fields: toolFields(t), ...(action ? { action } : {}), ...(scope ? { scope } : {}), ...(names.length ? { service: { id: t.bundleSlug, names } } : {}) };
}
