/**
 * The `mcpServers` JSON that Claude Desktop, Cursor and others write (and VS Code's `servers`):
 * each entry becomes a server input, or a refusal that says why.
 */
import { McpServerInputSchema, type McpServerInput } from '../../../shared/model/mcp-client';

export interface ParsedImport {
  servers: { name: string; input: McpServerInput; enabled: boolean }[];
  refused: { name: string; message: string }[];
}

/** At most this many servers in one paste. */
export const MAX_IMPORTED_SERVERS = 100;

export function parseMcpServersJson(text: string): ParsedImport {
  let doc: unknown;
  try {
    doc = JSON.parse(stripJsonComments(text));
  } catch (e) {
    throw new ImportError(`not JSON: ${(e as Error).message}`);
  }
  const entries = serversOf(doc);
  const out: ParsedImport = { servers: [], refused: [] };
  const names = Object.keys(entries);
  if (names.length === 0) throw new ImportError('no servers found: expected {"mcpServers": {"name": {"command": …}}} or VS Code\'s {"servers": {…}}');
  if (names.length > MAX_IMPORTED_SERVERS) throw new ImportError(`${names.length} servers in one import; at most ${MAX_IMPORTED_SERVERS}`);
  for (const name of names) {
    try {
      out.servers.push(entryToInput(name, entries[name]));
    } catch (e) {
      out.refused.push({ name, message: (e as Error).message });
    }
  }
  return out;
}

export class ImportError extends Error {}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function serversOf(doc: unknown): Record<string, unknown> {
  if (!isObject(doc)) throw new ImportError('expected a JSON object with "mcpServers" (or "servers")');
  // Claude Desktop, Cursor, Windsurf: mcpServers; VS Code (.vscode/mcp.json): servers; its settings.json: mcp.servers.
  for (const key of ['mcpServers', 'servers']) {
    if (key in doc) {
      if (!isObject(doc[key])) throw new ImportError(`"${key}" must be an object of servers by name`);
      return doc[key];
    }
  }
  if (isObject(doc.mcp) && isObject(doc.mcp.servers)) return doc.mcp.servers;
  // A bare object of servers (the inside of mcpServers).
  const values = Object.values(doc);
  if (values.length > 0 && values.every((v) => isObject(v) && ('command' in v || 'url' in v || 'serverUrl' in v))) return doc;
  throw new ImportError('no "mcpServers" or "servers" key: expected {"mcpServers": {"name": {"command": …}}}');
}

function entryToInput(name: string, raw: unknown): ParsedImport['servers'][number] {
  if (!isObject(raw)) throw new Error('the entry must be an object with "command" or "url"');
  const text = JSON.stringify(raw);
  if (text.includes('${input:')) throw new Error('uses VS Code ${input:…} variables, which only VS Code can ask for: put the value, or ${secret:NAME} in a header, instead');
  const type = typeof raw.type === 'string' ? raw.type.toLowerCase() : undefined;
  const url = typeof raw.url === 'string' ? raw.url : typeof raw.serverUrl === 'string' ? raw.serverUrl : undefined;
  if (type === 'sse') throw new Error('uses the old SSE transport; give the server\'s Streamable HTTP endpoint (often …/mcp) instead');
  let connection: unknown;
  if (typeof raw.command === 'string' && (type === undefined || type === 'stdio')) {
    connection = { transport: 'stdio', command: raw.command, args: raw.args ?? [], env: raw.env ?? {}, ...(typeof raw.cwd === 'string' ? { cwd: raw.cwd } : {}) };
  } else if (url !== undefined && (type === undefined || type === 'http' || type === 'streamable-http' || type === 'streamablehttp')) {
    connection = { transport: 'http', url, headers: raw.headers ?? {} };
  } else if (type !== undefined && !['stdio', 'http', 'streamable-http', 'streamablehttp'].includes(type)) {
    throw new Error(`unknown type '${String(raw.type)}': expected stdio or http`);
  } else {
    throw new Error('needs "command" (a program to start) or "url" (a Streamable HTTP endpoint)');
  }
  const displayName = name.trim().slice(0, 128) || 'MCP server';
  const parsed = McpServerInputSchema.safeParse({ name: displayName, connection });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.slice(1).map(String).join('.') || 'entry';
    throw new Error(`${field}: ${issue.message}`);
  }
  return { name, input: parsed.data, enabled: raw.disabled !== true };
}

/** VS Code's files allow // and /* comments and trailing commas; strings are left alone. */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  let inString = false;
  while (i < text.length) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[i + 1] ?? '';
        i += 2;
        continue;
      }
      if (c === '"') inString = false;
      i++;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === ',' && /^\s*[}\]]/.test(text.slice(i + 1, i + 1 + 256))) {
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
