/**
 * Servers: the base URL of the tools and the variables it holds.
 *
 * A server variable (`https://{tenant}.example.com/{version}`) stays in the URL as `{name}`
 * and is offered to the user, its default pre-filled (OpenApiImport.serverVariables); a tool
 * whose URL still holds one is refused until it is filled (a host is never a placeholder). A
 * literal host that is a placeholder (`your-domain.atlassian.net`) becomes a variable
 * without a default, so the user cannot save the document's example host by mistake.
 */
import type { OpenApiServerVariable } from '../../../../shared/model/transfer';
import { isObject, own, str } from './document';

export interface Servers {
  /** Absolute http(s) base URLs (no trailing '/'), variables kept as `{name}`. */
  absolute: string[];
  relative: boolean;
  variables: OpenApiServerVariable[];
}

/** A first host label that stands for the user's own: your-domain, yourcompany, my-site, ... */
const PLACEHOLDER_LABEL = /^(?:your|my)[-_]?(?:domain|site|instance|company|org|organi[sz]ation|subdomain|host|tenant|account|server|name|workspace|shop|store)$/i;
const VAR_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function serverUrls(list: unknown): Servers {
  const absolute: string[] = [];
  const variables = new Map<string, OpenApiServerVariable>();
  let relative = false;
  if (!Array.isArray(list)) return { absolute, relative, variables: [] };
  for (const s of list) {
    if (!isObject(s) || typeof own(s, 'url') !== 'string') continue;
    const url = own(s, 'url') as string;
    const vars = own(s, 'variables');
    const names: string[] = [];
    // Each variable becomes a token a URL may hold, so the URL can be checked and normalised.
    const tokenised = url.replace(/\{([^{}]+)\}/g, (m, name: string) => {
      if (!VAR_NAME.test(name)) return m;
      names.push(name);
      return `tsvar${names.length - 1}x`;
    });
    if (!/^https?:\/\//i.test(tokenised) || /[{}\s]/.test(tokenised)) {
      if (url.startsWith('/') || url === '') relative = true;
      continue;
    }
    let u: URL;
    try {
      u = new URL(tokenised);
    } catch {
      continue;
    }
    let host = u.host;
    const first = u.hostname.split('.')[0] ?? '';
    if (!first.startsWith('tsvar') && PLACEHOLDER_LABEL.test(first) && u.hostname.includes('.')) {
      names.push(first);
      host = `tsvar${names.length - 1}x${host.slice(first.length)}`;
      if (!variables.has(first)) variables.set(first, { name: first, description: `The document's host starts with '${first}', a placeholder: put your own here` });
    }
    let out = `${u.protocol}//${host}${u.pathname.replace(/\/+$/, '')}`;
    out = out.replace(/tsvar(\d+)x/gi, (_m, i: string) => `{${names[Number(i)]!}}`);
    absolute.push(out);
    for (const name of names) {
      if (variables.has(name)) continue;
      const v = isObject(vars) ? own(vars, name) : undefined;
      const d = isObject(v) ? own(v, 'default') : undefined;
      const e = isObject(v) ? own(v, 'enum') : undefined;
      const description = isObject(v) ? str(own(v, 'description')) : undefined;
      variables.set(name, {
        name,
        ...(typeof d === 'string' || typeof d === 'number' ? { default: String(d).slice(0, 256) } : {}),
        ...(Array.isArray(e) ? { enum: e.filter((x) => typeof x === 'string' || typeof x === 'number').map(String).slice(0, 50) } : {}),
        ...(description ? { description: description.slice(0, 500) } : {}),
      });
    }
  }
  return { absolute: [...new Set(absolute)], relative, variables: [...variables.values()] };
}

/** host[:port] of a base URL, variables kept. */
export function hostOf(url: string): string {
  const m = /^https?:\/\/([^/?#]+)/i.exec(url);
  return (m?.[1] ?? '').toLowerCase();
}
