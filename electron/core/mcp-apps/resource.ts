/**
 * The page of an MCP App (extension io.modelcontextprotocol/ui), checked before it is shown: the
 * content item of a `resources/read` answer must be an MCP App page (`text/html;profile=mcp-app`)
 * of at most 8 MiB, as text or base64 UTF-8; its `_meta.ui` is read strictly. Domains for the
 * frame's CSP must be plain https:/wss: origins that reach the public internet; every entry that
 * is not is dropped and named in `refused`, and nothing a server declares is ever a crash.
 * Pure: no I/O, so the core module and its tests run the same code.
 */
import { AppError } from '../../../shared/errors';
import { classifyAddress, describeKind, ipLiteralOfHostname } from '../../../shared/ip-address';

/** The MIME type of an MCP App page (the SDK's RESOURCE_MIME_TYPE). */
export const APP_MIME = 'text/html;profile=mcp-app';

/** The largest page shown, once decoded (a base64 blob is measured after decoding). */
export const APP_PAGE_MAX_BYTES = 8 * 1024 * 1024;

/** At most this many domains are kept in each list of `_meta.ui.csp`. */
export const APP_CSP_LIST_MAX = 32;

/** The domains a page declared and Toolsmith kept, each a normalised origin (see parseAppDomain). */
export interface AppCspDomains {
  /** → `connect-src` */
  connectDomains: string[];
  /** → `script-src`, `style-src`, `img-src`, `font-src`, `media-src` */
  resourceDomains: string[];
  /** → `frame-src` */
  frameDomains: string[];
  /** → `base-uri` */
  baseUriDomains: string[];
}

export const APP_CSP_LISTS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

export interface AppPage {
  /** The page, decoded. */
  html: string;
  /** Its size in bytes, UTF-8. */
  bytes: number;
  csp: AppCspDomains;
  /** What the page's metadata asked for and did not get, each as `connectDomains: http://10.0.0.1 (a private address)`. */
  refused: string[];
  prefersBorder?: boolean;
}

/**
 * Checks the answer of `resources/read` for the page `uri` of an app of the server `server`,
 * and returns the page with what its metadata may have. `listEntryMeta` is the `_meta` of the
 * page's `resources/list` entry: its `ui` is used when the content item has no `_meta.ui`.
 *
 * Throws an AppError with one sentence naming the server: VALIDATION_FAILED when there is no
 * page for `uri`, or it has neither text nor blob, or its blob is not base64 of UTF-8;
 * UNSUPPORTED_MEDIA_TYPE for a type other than APP_MIME; PAYLOAD_TOO_LARGE past APP_PAGE_MAX_BYTES.
 */
export function checkAppPage(result: unknown, uri: string, server: string, listEntryMeta?: unknown): AppPage {
  const app = `The app of '${server}'`;
  const details = { server, uri };
  const item = contentItem(result, uri);
  if (!item) {
    throw new AppError('VALIDATION_FAILED', `${app} cannot be shown: the server's answer to resources/read holds no page for ${shown(uri, 200)}.`, details);
  }

  const mime = item.mimeType;
  if (typeof mime !== 'string' || !isAppMime(mime)) {
    const is = typeof mime === 'string' ? `its page is ${shown(mime, 100)}` : 'its page has no MIME type';
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${app} cannot be shown: ${is}, not an MCP App page (${APP_MIME}).`, {
      ...details,
      mimeType: typeof mime === 'string' ? mime.slice(0, 100) : null,
    });
  }

  const { html, bytes } = pageText(item, app, details);
  const meta = isRecord(item._meta) && item._meta.ui !== undefined ? item._meta.ui : isRecord(listEntryMeta) ? listEntryMeta.ui : undefined;
  return { html, bytes, ...readUiMeta(meta) };
}

/** True for `text/html;profile=mcp-app` in any case, with spaces around the `;` or none. */
export function isAppMime(mimeType: string): boolean {
  if (mimeType.length > 200) return false;
  return mimeType.trim().replace(/\s*;\s*/g, ';').toLowerCase() === APP_MIME;
}

type ContentItem = Record<string, unknown>;

function contentItem(result: unknown, uri: string): ContentItem | undefined {
  if (!isRecord(result) || !Array.isArray(result.contents)) return undefined;
  for (const c of result.contents as unknown[]) if (isRecord(c) && c.uri === uri) return c;
  return undefined;
}

function pageText(item: ContentItem, app: string, details: object): { html: string; bytes: number } {
  if (typeof item.text === 'string') {
    const bytes = Buffer.byteLength(item.text, 'utf8');
    if (bytes > APP_PAGE_MAX_BYTES) throw tooLarge(app, bytes, details);
    return { html: item.text, bytes };
  }
  if (typeof item.blob !== 'string') {
    throw new AppError('VALIDATION_FAILED', `${app} cannot be shown: its page has neither text nor blob.`, details);
  }
  const blob = item.blob;
  // Measured before decoding, so a huge blob is never decoded.
  const decoded = (blob.length / 4) * 3 - (blob.endsWith('==') ? 2 : blob.endsWith('=') ? 1 : 0);
  if (decoded > APP_PAGE_MAX_BYTES) throw tooLarge(app, Math.floor(decoded), details);
  const buffer = Buffer.from(blob, 'base64');
  // Standard base64 with its padding: Node's decoder skips what is not base64, so encoding the
  // bytes again must give the blob back (no whitespace, no URL-safe alphabet, no stray bits).
  if (buffer.toString('base64') !== blob) {
    throw new AppError('VALIDATION_FAILED', `${app} cannot be shown: its page is a blob that is not valid base64.`, details);
  }
  let html: string;
  try {
    html = new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    throw new AppError('VALIDATION_FAILED', `${app} cannot be shown: its page is a blob that is not valid UTF-8 text.`, details);
  }
  return { html, bytes: buffer.length };
}

function tooLarge(app: string, bytes: number, details: object): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `${app} is ${megabytes(bytes)}; Toolsmith shows apps of up to ${APP_PAGE_MAX_BYTES / 1048576} MB.`, {
    ...details,
    bytes,
    limit: APP_PAGE_MAX_BYTES,
  });
}

/** Units of 1,024², rounded up to a tenth, so a page over the limit never reads as the limit. */
function megabytes(bytes: number): string {
  return `${(Math.ceil((bytes / 1048576) * 10) / 10).toFixed(1)} MB`;
}

// ---------------------------------------------------------------------------------------------
// _meta.ui

const REFUSED_PER_LIST_MAX = 32;

function readUiMeta(ui: unknown): Pick<AppPage, 'csp' | 'refused' | 'prefersBorder'> {
  const csp: AppCspDomains = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };
  const refused: string[] = [];
  if (ui === undefined) return { csp, refused };
  if (!isRecord(ui)) {
    refused.push('_meta.ui (not an object: ignored)');
    return { csp, refused };
  }

  if (ui.csp !== undefined) {
    if (!isRecord(ui.csp)) refused.push('csp (not an object: ignored)');
    else {
      for (const list of APP_CSP_LISTS) csp[list] = readDomainList(list, ui.csp[list], refused);
      const unknown = Object.keys(ui.csp).filter((k) => !(APP_CSP_LISTS as readonly string[]).includes(k));
      for (const k of unknown.slice(0, REFUSED_PER_LIST_MAX)) refused.push(`csp.${shown(k, 60)} (not a list Toolsmith knows: ignored)`);
    }
  }

  if (ui.permissions !== undefined) {
    const p = ui.permissions;
    const names = isRecord(p) ? Object.keys(p) : Array.isArray(p) ? p.slice(0, REFUSED_PER_LIST_MAX).map(String) : undefined;
    if (!names) refused.push('permissions (not an object: ignored)');
    else for (const name of names.slice(0, REFUSED_PER_LIST_MAX)) refused.push(`${shown(name, 60)} (permissions are not granted to apps)`);
  }

  let prefersBorder: boolean | undefined;
  if (typeof ui.prefersBorder === 'boolean') prefersBorder = ui.prefersBorder;
  else if (ui.prefersBorder !== undefined) refused.push('prefersBorder (not true or false: ignored)');

  return prefersBorder === undefined ? { csp, refused } : { csp, refused, prefersBorder };
}

function readDomainList(list: string, value: unknown, refused: string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    refused.push(`${list} (not a list: ignored)`);
    return [];
  }
  const kept: string[] = [];
  let notes = 0;
  let unnoted = 0;
  const refuse = (note: string) => {
    if (notes < REFUSED_PER_LIST_MAX) {
      refused.push(note);
      notes++;
    } else unnoted++;
  };
  value.forEach((entry: unknown, i) => {
    if (typeof entry !== 'string') return refuse(`${list}: entry ${i + 1} (not a string)`);
    const d = parseAppDomain(entry);
    if (!d.ok) return refuse(`${list}: ${shown(entry, 100)} (${d.reason})`);
    if (kept.includes(d.origin)) return;
    if (kept.length >= APP_CSP_LIST_MAX) return refuse(`${list}: ${d.origin} (more than ${APP_CSP_LIST_MAX} in one list)`);
    kept.push(d.origin);
  });
  if (unnoted > 0) refused.push(`${list}: ${unnoted} more ${unnoted === 1 ? 'entry' : 'entries'} refused`);
  return kept;
}

// ---------------------------------------------------------------------------------------------
// Domains

export type AppDomain = { ok: true; origin: string } | { ok: false; reason: string };

/**
 * Reads one entry of a `_meta.ui.csp` list: an `https:` or `wss:` origin (scheme, host, optional
 * port, nothing after but an optional `/`), with `*.` allowed as the whole first label of a
 * name of two labels or more. The host is written with letters, digits, `-` and `.` only (a
 * CSP host-source; internationalised names in their `xn--` form), or is an IP address. Refused:
 * anything that does not reach the public internet (loopback, private, link-local and other
 * special addresses in any spelling, `localhost`, `*.localhost`, `.local` names and names of one
 * label) and IPv6 addresses, which a CSP source cannot name. Returns the origin normalised
 * (lower case, IPv4 as a dotted quad, the port as a number) or why it was refused.
 */
export function parseAppDomain(entry: string): AppDomain {
  const no = (reason: string): AppDomain => ({ ok: false, reason });
  if (entry.length > 300) return no('longer than 300 characters');
  if (/[\s'"`;,]/.test(entry)) return no("contains whitespace, a quote, ';' or ','");
  if (/[^\x21-\x7e]/.test(entry)) return no('contains characters an origin cannot have');
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/.exec(entry);
  if (!m) return no(entry === '*' ? "'*' alone would allow every site" : 'not an https: or wss: origin');
  const scheme = m[1]!.toLowerCase();
  const authority = m[2]!;
  const rest = m[3]!;
  if (rest.startsWith('?')) return no('has a query');
  if (rest.startsWith('#')) return no('has a fragment');
  if (rest !== '' && rest !== '/') return no('has a path');
  if (authority.includes('@')) return no('has a user name');

  const hp = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(authority);
  if (!hp) return no('not a valid host');
  let host = hp[1]!;
  const portText = hp[2];
  let port = '';
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return no('the port must be a number from 1 to 65535');
    port = `:${Number(portText)}`;
  }
  if (host === '') return no('has no host');
  if (host === '*') return no("'*' alone would allow every site");
  const wildcard = host.startsWith('*.');
  if (wildcard) host = host.slice(2);
  if (host.includes('*')) return no('a wildcard is allowed only as the whole first label (https://*.example.com)');

  const bracketed = host.startsWith('[') && host.endsWith(']');
  if (!bracketed && !/^[A-Za-z0-9.-]+$/.test(host)) return no("the host may have letters, digits, '-' and '.' only");
  let hostname: string;
  try {
    hostname = new URL(`https://${host}/`).hostname;
  } catch {
    return no('not a valid host');
  }

  const ip = ipLiteralOfHostname(hostname);
  if (ip) {
    if (wildcard) return no('a wildcard cannot stand before an IP address');
    const kind = classifyAddress(ip.address)?.kind ?? 'reserved';
    if (kind !== 'public') return no(describeKind(kind));
    if (ip.family === 6) return no('a CSP source cannot name an IPv6 address');
  } else {
    if (bracketed) return no('not a valid host');
    const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
    const labels = name.split('.');
    if (name.length > 253 || labels.some((l) => l === '' || l.length > 63 || l.startsWith('-') || l.endsWith('-'))) return no('not a valid host name');
    if (name === 'localhost' || name.endsWith('.localhost')) return no('a loopback name');
    if (name === 'local' || name.endsWith('.local')) return no('a local network name');
    if (labels.length < 2) return no(wildcard ? 'a wildcard over a whole top-level domain' : 'a name of one label (a local network name)');
  }

  if (scheme !== 'https' && scheme !== 'wss') return no('only https: and wss: origins are allowed');
  return { ok: true, origin: `${scheme}://${wildcard ? '*.' : ''}${hostname}${port}` };
}

// ---------------------------------------------------------------------------------------------

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value a server chose, cut and made printable for a message. */
function shown(text: string, max: number): string {
  const printable = text.slice(0, max).replace(/[^\x20-\x7e\u00a0-\uffff]/g, '?');
  return text.length > max ? `${printable}…` : printable;
}
