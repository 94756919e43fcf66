/**
 * The Content-Security-Policy of an app's frame document: the spec's default policy for MCP Apps
 * without `'self'` (the frame origin serves nothing but the page), plus the domains the page
 * declared and checkAppPage kept. No `'unsafe-eval'`, no `blob:`, no workers; forms, plugins
 * and a `<base>` elsewhere are refused; only the given origins may frame it.
 */
import { APP_CSP_LISTS, parseAppDomain, type AppCspDomains } from './resource';

/**
 * The policy for a page with the kept `domains`, framed only by `frameAncestors` (the renderer's
 * origins, e.g. `app://toolsmith` or `http://127.0.0.1:4801`). Throws on a domain that is not
 * what parseAppDomain keeps or on an ancestor that is not a bare origin: both come from the core,
 * so either is a programming error, and neither may reach a header.
 */
export function frameCsp(domains: AppCspDomains, frameAncestors: string[]): string {
  for (const list of APP_CSP_LISTS) {
    for (const d of domains[list]) {
      const parsed = parseAppDomain(d);
      if (!parsed.ok || parsed.origin !== d) throw new Error(`frameCsp: ${list} holds ${JSON.stringify(d)}, not a domain checkAppPage keeps`);
    }
  }
  if (frameAncestors.length === 0) throw new Error('frameCsp: at least one frame ancestor is needed');
  for (const a of frameAncestors) {
    if (!ANCESTOR.test(a)) throw new Error(`frameCsp: the frame ancestor ${JSON.stringify(a)} is not an origin (scheme://host[:port])`);
  }

  const r = domains.resourceDomains;
  const src = (name: string, first: string[], rest: string[]) => [name, ...first, ...rest].join(' ');
  const orNone = (name: string, list: string[]) => (list.length > 0 ? src(name, [], list) : `${name} 'none'`);
  return [
    "default-src 'none'",
    src('script-src', ["'unsafe-inline'"], r),
    src('style-src', ["'unsafe-inline'"], r),
    src('img-src', ['data:'], r),
    src('font-src', ['data:'], r),
    src('media-src', ['data:'], r),
    orNone('connect-src', domains.connectDomains),
    orNone('frame-src', domains.frameDomains),
    orNone('base-uri', domains.baseUriDomains),
    "object-src 'none'",
    "form-action 'none'",
    src('frame-ancestors', [], frameAncestors),
  ].join('; ');
}

/** A bare origin: scheme, a host of letters, digits, '-' and '.' (or an IPv6 address in brackets), a port. */
const ANCESTOR = /^[a-z][a-z0-9+.-]*:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
