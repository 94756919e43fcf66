/**
 * The secrets the imported tools refer to (their auth, and `${secret:NAME}` in their headers,
 * query and URL), with the hosts each is sent to: what the panel asks for after an import so
 * that the first run does not fail on a missing secret.
 */

export interface SecretNeed {
  name: string;
  /** The hosts of the tools that use it, once each, in order. */
  hosts: string[];
  /** The slugs of the tools that use it. */
  tools: string[];
}

interface ToolLike {
  slug: string;
  tool: Record<string, unknown>;
}

const SECRET_REF = /\$\{secret:([A-Za-z0-9_.-]+)\}/g;

function hostOf(urlTemplate: unknown): string | undefined {
  if (typeof urlTemplate !== 'string') return undefined;
  const m = /^https?:\/\/([^/?#\s]+)/i.exec(urlTemplate);
  if (!m || m[1]!.includes('{')) return undefined;
  const authority = m[1]!.replace(/^.*@/, '');
  return authority.replace(/:\d+$/, '').toLowerCase() || undefined;
}

function namesIn(value: unknown, out: Set<string>): void {
  if (typeof value === 'string') for (const m of value.matchAll(SECRET_REF)) out.add(m[1]!);
  else if (Array.isArray(value)) value.forEach((v) => namesIn(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => namesIn(v, out));
}

/** The secret names one tool's HTTP spec uses. */
export function secretNamesOf(tool: Record<string, unknown>): string[] {
  const http = tool.http as Record<string, unknown> | undefined;
  if (!http) return [];
  const names = new Set<string>();
  const auth = http.auth as Record<string, unknown> | undefined;
  if (auth) for (const key of ['secret', 'usernameSecret', 'passwordSecret', 'clientSecret']) if (typeof auth[key] === 'string' && auth[key]) names.add(auth[key]);
  namesIn([http.urlTemplate, http.headers, http.query], names);
  return [...names];
}

/** The secrets `tools` need, by name in first-use order. */
export function secretsNeeded(tools: readonly ToolLike[]): SecretNeed[] {
  const byName = new Map<string, SecretNeed>();
  for (const { slug, tool } of tools) {
    const host = hostOf((tool.http as Record<string, unknown> | undefined)?.urlTemplate);
    for (const name of secretNamesOf(tool)) {
      const need = byName.get(name) ?? { name, hosts: [], tools: [] };
      byName.set(name, need);
      if (host && !need.hosts.includes(host)) need.hosts.push(host);
      if (!need.tools.includes(slug)) need.tools.push(slug);
    }
  }
  return [...byName.values()];
}
