import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import { APP_CSP_LIST_MAX, APP_MIME, APP_PAGE_MAX_BYTES, checkAppPage, isAppMime, parseAppDomain } from './resource';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const URI = 'ui://get-time/mcp-app.html';
const PAGE = '<!doctype html><title>t</title><p>hello</p>';

/** A resources/read answer with one content item for URI. */
function read(item: Record<string, unknown>): unknown {
  return { contents: [{ uri: URI, mimeType: APP_MIME, ...item }] };
}

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected a refusal');
}

describe('checkAppPage: the page', () => {
  it('gives the text of the content item with that URI, and its size in UTF-8 bytes', () => {
    const html = '<p>été</p>';
    const other = { uri: 'ui://other/page.html', mimeType: APP_MIME, text: 'other' };
    const page = checkAppPage({ contents: [other, { uri: URI, mimeType: APP_MIME, text: html }] }, URI, 'time');
    expect(page).toEqual({
      html,
      bytes: Buffer.byteLength(html),
      csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
      refused: [],
    });
  });

  it('refuses an answer with no content item for the URI', () => {
    for (const result of [{ contents: [{ uri: 'ui://other/page.html', mimeType: APP_MIME, text: PAGE }] }, { contents: [] }, {}, null, 'page', { contents: 'x' }]) {
      const e = refusal(() => checkAppPage(result, URI, 'time'));
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.message).toBe("The app of 'time' cannot be shown: the server's answer to resources/read holds no page for ui://get-time/mcp-app.html.");
    }
  });

  it('refuses a page of another type, with the type it has', () => {
    const e = refusal(() => checkAppPage(read({ mimeType: 'text/plain', text: PAGE }), URI, 'X'));
    expect(e.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(e.message).toBe("The app of 'X' cannot be shown: its page is text/plain, not an MCP App page (text/html;profile=mcp-app).");
    expect(refusal(() => checkAppPage(read({ mimeType: 'text/html', text: PAGE }), URI, 'X')).message).toBe(
      "The app of 'X' cannot be shown: its page is text/html, not an MCP App page (text/html;profile=mcp-app).",
    );
    expect(refusal(() => checkAppPage(read({ mimeType: undefined, text: PAGE }), URI, 'X')).message).toBe(
      "The app of 'X' cannot be shown: its page has no MIME type, not an MCP App page (text/html;profile=mcp-app).",
    );
  });

  it('compares the type case-insensitively, ignoring spaces around the semicolon', () => {
    for (const t of ['text/html;profile=mcp-app', 'TEXT/HTML;Profile=MCP-App', 'text/html ; profile=mcp-app', 'text/html;  profile=mcp-app', ' text/html; profile=mcp-app ']) {
      expect(isAppMime(t), t).toBe(true);
      expect(checkAppPage(read({ mimeType: t, text: PAGE }), URI, 'X').html).toBe(PAGE);
    }
    for (const t of ['text/html', 'text/html;profile=mcp', 'text/html;profile="mcp-app"', 'text/html;profile=mcp-app;charset=utf-8', 'text/html profile=mcp-app', `text/html;${' '.repeat(100_000)}x`]) {
      expect(isAppMime(t), t).toBe(false);
    }
  });

  it('refuses a page with neither text nor blob', () => {
    for (const item of [{}, { text: 42 }, { blob: null }]) {
      const e = refusal(() => checkAppPage(read(item), URI, 'X'));
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.message).toBe("The app of 'X' cannot be shown: its page has neither text nor blob.");
    }
  });

  it('decodes a base64 blob of UTF-8, and counts the decoded bytes', () => {
    for (const html of [PAGE, '<p>été ✓ 𝄞</p>', 'ab', 'abc', '']) {
      const blob = Buffer.from(html).toString('base64');
      expect(checkAppPage(read({ blob }), URI, 'X')).toMatchObject({ html, bytes: Buffer.byteLength(html) });
    }
  });

  it('refuses a blob that is not base64', () => {
    const good = Buffer.from(PAGE).toString('base64');
    for (const blob of ['not base64!', good.slice(0, -1), `${good.slice(0, 8)}\n${good.slice(8)}`, good.replace(/=+$/, ''), '-_-_', 'QQ', 'QR==']) {
      const e = refusal(() => checkAppPage(read({ blob }), URI, 'X'));
      expect(e.code, blob).toBe('VALIDATION_FAILED');
      expect(e.message).toBe("The app of 'X' cannot be shown: its page is a blob that is not valid base64.");
    }
  });

  it('refuses a blob that is not UTF-8', () => {
    for (const bytes of [[0xff, 0xfe, 0x41], [0xc3], [0xed, 0xa0, 0x80], [0x3c, 0x70, 0x3e, 0xe9]]) {
      const e = refusal(() => checkAppPage(read({ blob: Buffer.from(bytes).toString('base64') }), URI, 'X'));
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.message).toBe("The app of 'X' cannot be shown: its page is a blob that is not valid UTF-8 text.");
    }
  });

  it('takes text over blob when an item has both', () => {
    expect(checkAppPage(read({ text: PAGE, blob: 'not base64!' }), URI, 'X').html).toBe(PAGE);
  });

  it('shows a page of exactly 8 MiB and refuses one byte more, as text or as a blob', () => {
    expect(APP_PAGE_MAX_BYTES).toBe(8 * 1024 * 1024);
    const fits = 'a'.repeat(APP_PAGE_MAX_BYTES);
    expect(checkAppPage(read({ text: fits }), URI, 'X').bytes).toBe(APP_PAGE_MAX_BYTES);
    expect(checkAppPage(read({ blob: Buffer.from(fits).toString('base64') }), URI, 'X').bytes).toBe(APP_PAGE_MAX_BYTES);

    const over = `${fits}a`;
    for (const item of [{ text: over }, { blob: Buffer.from(over).toString('base64') }, { text: `${'a'.repeat(APP_PAGE_MAX_BYTES - 1)}é` }]) {
      const e = refusal(() => checkAppPage(read(item), URI, 'X'));
      expect(e.code).toBe('PAYLOAD_TOO_LARGE');
      expect(e.message).toBe("The app of 'X' is 8.1 MB; Toolsmith shows apps of up to 8 MB.");
    }
  });

  it('names the size of a larger page in MB, rounded up to a tenth', () => {
    const bytes = Math.round(9.15 * 1024 * 1024);
    expect(refusal(() => checkAppPage(read({ text: 'a'.repeat(bytes) }), URI, 'X')).message).toBe("The app of 'X' is 9.2 MB; Toolsmith shows apps of up to 8 MB.");
    expect(refusal(() => checkAppPage(read({ text: 'a'.repeat(9 * 1024 * 1024) }), URI, 'X')).message).toBe("The app of 'X' is 9.0 MB; Toolsmith shows apps of up to 8 MB.");
  });

  it('measures a blob before decoding it: a large invalid blob is refused for its size', () => {
    const e = refusal(() => checkAppPage(read({ blob: '!'.repeat(12 * 1024 * 1024) }), URI, 'X'));
    expect(e.message).toBe("The app of 'X' is 9.0 MB; Toolsmith shows apps of up to 8 MB.");
  });

  it('cuts and cleans what the server chose before it goes into a sentence', () => {
    const e = refusal(() => checkAppPage(read({ mimeType: `text/\u0007${'x'.repeat(500)}`, text: PAGE }), URI, 'X'));
    expect(e.message).toBe(`The app of 'X' cannot be shown: its page is text/?${'x'.repeat(94)}…, not an MCP App page (text/html;profile=mcp-app).`);
  });
});

describe('checkAppPage: _meta.ui', () => {
  const check = (ui: unknown, listEntryMeta?: unknown) => checkAppPage(read({ text: PAGE, _meta: { ui } }), URI, 'X', listEntryMeta);

  it('keeps the declared domains of each list and prefersBorder', () => {
    const page = check({
      csp: {
        connectDomains: ['https://api.example.com', 'wss://live.example.com'],
        resourceDomains: ['https://*.cdn.example.com', 'https://fonts.gstatic.com/'],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://example.com:8443'],
      },
      prefersBorder: true,
      domain: 'ignored.example.com',
    });
    expect(page.csp).toEqual({
      connectDomains: ['https://api.example.com', 'wss://live.example.com'],
      resourceDomains: ['https://*.cdn.example.com', 'https://fonts.gstatic.com'],
      frameDomains: ['https://www.youtube.com'],
      baseUriDomains: ['https://example.com:8443'],
    });
    expect(page.prefersBorder).toBe(true);
    expect(page.refused).toEqual([]);
  });

  it('takes _meta.ui from the content item, else from the resources/list entry', () => {
    const list = { ui: { csp: { connectDomains: ['https://list.example.com'] }, prefersBorder: false } };
    const fromItem = check({ csp: { connectDomains: ['https://item.example.com'] } }, list);
    expect(fromItem.csp.connectDomains).toEqual(['https://item.example.com']);
    expect(fromItem.prefersBorder).toBeUndefined();

    const fromList = checkAppPage(read({ text: PAGE }), URI, 'X', list);
    expect(fromList.csp.connectDomains).toEqual(['https://list.example.com']);
    expect(fromList.prefersBorder).toBe(false);
    expect(checkAppPage(read({ text: PAGE, _meta: {} }), URI, 'X', list).csp.connectDomains).toEqual(['https://list.example.com']);
    expect(checkAppPage(read({ text: PAGE }), URI, 'X', 'nonsense').csp.connectDomains).toEqual([]);
  });

  it('names each refused domain with why, in the form the log and the trust prompt show', () => {
    const page = check({ csp: { connectDomains: ['http://10.0.0.1', 'https://api.example.com', 'https://127.0.0.1'], frameDomains: ['*'] } });
    expect(page.csp.connectDomains).toEqual(['https://api.example.com']);
    expect(page.csp.frameDomains).toEqual([]);
    expect(page.refused).toEqual([
      'connectDomains: http://10.0.0.1 (a private address)',
      'connectDomains: https://127.0.0.1 (a loopback address)',
      "frameDomains: * ('*' alone would allow every site)",
    ]);
  });

  it('ignores what is not a list or not a string, with a note, and never throws', () => {
    const page = check({ csp: { connectDomains: 'https://a.example.com', resourceDomains: [42, null, 'https://ok.example.com', { x: 1 }], frameDomains: {}, workerDomains: ['blob:'] } });
    expect(page.csp).toEqual({ connectDomains: [], resourceDomains: ['https://ok.example.com'], frameDomains: [], baseUriDomains: [] });
    expect(page.refused).toEqual([
      'connectDomains (not a list: ignored)',
      'resourceDomains: entry 1 (not a string)',
      'resourceDomains: entry 2 (not a string)',
      'resourceDomains: entry 4 (not a string)',
      'frameDomains (not a list: ignored)',
      'csp.workerDomains (not a list Toolsmith knows: ignored)',
    ]);
    expect(check('ui').refused).toEqual(['_meta.ui (not an object: ignored)']);
    expect(check(null).refused).toEqual(['_meta.ui (not an object: ignored)']);
    expect(check({ csp: ['https://a.example.com'] }).refused).toEqual(['csp (not an object: ignored)']);
    expect(check({ prefersBorder: 'yes' })).toMatchObject({ refused: ['prefersBorder (not true or false: ignored)'] });
    expect(check({ prefersBorder: 'yes' }).prefersBorder).toBeUndefined();
    expect(check({ permissions: 'camera' }).refused).toEqual(['permissions (not an object: ignored)']);
  });

  it('grants no permission and names each one asked for', () => {
    const page = check({ permissions: { camera: {}, microphone: {}, geolocation: {}, clipboardWrite: {} } });
    expect(page.refused).toEqual([
      'camera (permissions are not granted to apps)',
      'microphone (permissions are not granted to apps)',
      'geolocation (permissions are not granted to apps)',
      'clipboardWrite (permissions are not granted to apps)',
    ]);
    expect(check({ permissions: ['camera'] }).refused).toEqual(['camera (permissions are not granted to apps)']);
  });

  it(`keeps at most ${APP_CSP_LIST_MAX} domains a list, refusing the rest by name, and notes at most 32 refusals a list`, () => {
    const many = Array.from({ length: 40 }, (_, i) => `https://h${i}.example.com`);
    const page = check({ csp: { connectDomains: many, resourceDomains: many.slice(0, 3) } });
    expect(page.csp.connectDomains).toEqual(many.slice(0, 32));
    expect(page.csp.resourceDomains).toEqual(many.slice(0, 3));
    expect(page.refused).toEqual(many.slice(32).map((d) => `connectDomains: ${d} (more than 32 in one list)`));

    const flood = check({ csp: { connectDomains: Array.from({ length: 1000 }, (_, i) => `http://h${i}.example.com`) } });
    expect(flood.refused).toHaveLength(33);
    expect(flood.refused.at(-1)).toBe('connectDomains: 968 more entries refused');
  });

  it('keeps a domain once when it is declared twice', () => {
    expect(check({ csp: { connectDomains: ['https://a.example.com', 'https://A.example.com/', 'https://a.example.com'] } }).csp.connectDomains).toEqual(['https://a.example.com']);
  });
});

describe('parseAppDomain', () => {
  it.each([
    ['https://example.com', 'https://example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['wss://live.example.com', 'wss://live.example.com'],
    ['HTTPS://Example.COM', 'https://example.com'],
    ['https://example.com:8443', 'https://example.com:8443'],
    ['https://example.com:0443', 'https://example.com:443'],
    ['https://*.example.com', 'https://*.example.com'],
    ['wss://*.ws.example.com', 'wss://*.ws.example.com'],
    ['https://xn--bcher-kva.example', 'https://xn--bcher-kva.example'],
    ['https://example.com.', 'https://example.com.'],
    ['https://8.8.8.8', 'https://8.8.8.8'],
    ['https://134744072', 'https://8.8.8.8'],
  ])('keeps %s as %s', (entry, origin) => {
    expect(parseAppDomain(entry)).toEqual({ ok: true, origin });
  });

  it.each([
    ['*', "'*' alone would allow every site"],
    ['https://*', "'*' alone would allow every site"],
    ['https://*.*.example.com', 'a wildcard is allowed only as the whole first label (https://*.example.com)'],
    ['https://a.*.example.com', 'a wildcard is allowed only as the whole first label (https://*.example.com)'],
    ['https://*example.com', 'a wildcard is allowed only as the whole first label (https://*.example.com)'],
    ['https://ex*.example.com', 'a wildcard is allowed only as the whole first label (https://*.example.com)'],
    ['https://example.*', 'a wildcard is allowed only as the whole first label (https://*.example.com)'],
    ['https://*.com', 'a wildcard over a whole top-level domain'],
    ['https://*.8.8.8.8', 'a wildcard cannot stand before an IP address'],
    ['https://example.com:*', 'the port must be a number from 1 to 65535'],
    ['https://example.com:0', 'the port must be a number from 1 to 65535'],
    ['https://example.com:65536', 'the port must be a number from 1 to 65535'],
    ['https://example.com:', 'the port must be a number from 1 to 65535'],
    ['https://example.com/path', 'has a path'],
    ['https://example.com//', 'has a path'],
    ['https://example.com/?', 'has a path'],
    ['https://example.com?x=1', 'has a query'],
    ['https://example.com#top', 'has a fragment'],
    ['https://user@example.com', 'has a user name'],
    ["'self'", "contains whitespace, a quote, ';' or ','"],
    ["https://example.com'", "contains whitespace, a quote, ';' or ','"],
    ['"https://example.com"', "contains whitespace, a quote, ';' or ','"],
    ['https://example.com; script-src *', "contains whitespace, a quote, ';' or ','"],
    ['https://example.com;', "contains whitespace, a quote, ';' or ','"],
    ['https://a.example.com https://b.example.com', "contains whitespace, a quote, ';' or ','"],
    ['https://example.com\n', "contains whitespace, a quote, ';' or ','"],
    ['https://example.com\t', "contains whitespace, a quote, ';' or ','"],
    ['https://a.example.com,https://b.example.com', "contains whitespace, a quote, ';' or ','"],
    ['https://bücher.example', 'contains characters an origin cannot have'],
    ['https://exa_mple.com', "the host may have letters, digits, '-' and '.' only"],
    ['https://%31%32%37.0.0.1', "the host may have letters, digits, '-' and '.' only"],
    ['https://a..example.com', 'not a valid host name'],
    ['https://-a.example.com', 'not a valid host name'],
    ['https://1.2.3.999', 'not a valid host'],
    ['https://', 'has no host'],
    ['http://example.com', 'only https: and wss: origins are allowed'],
    ['ws://example.com', 'only https: and wss: origins are allowed'],
    ['ftp://example.com', 'only https: and wss: origins are allowed'],
    ['data:', 'not an https: or wss: origin'],
    ['blob:', 'not an https: or wss: origin'],
    ['example.com', 'not an https: or wss: origin'],
    ['*.example.com', 'not an https: or wss: origin'],
    ['//example.com', 'not an https: or wss: origin'],
    ['https:example.com', 'not an https: or wss: origin'],
    ['javascript:alert(1)', 'not an https: or wss: origin'],
  ])('refuses %j: %s', (entry, reason) => {
    expect(parseAppDomain(entry)).toEqual({ ok: false, reason });
  });

  it.each([
    ['https://127.0.0.1', 'a loopback address'],
    ['https://127.8.9.10:8443', 'a loopback address'],
    ['https://2130706433', 'a loopback address'],
    ['https://0x7f.1', 'a loopback address'],
    ['https://127.1', 'a loopback address'],
    ['https://[::1]', 'a loopback address'],
    ['https://[::ffff:127.0.0.1]', 'a loopback address'],
    ['https://10.0.0.1', 'a private address'],
    ['https://172.16.0.1', 'a private address'],
    ['https://172.31.255.255', 'a private address'],
    ['https://192.168.1.1', 'a private address'],
    ['wss://192.168.1.1:9000', 'a private address'],
    ['https://[fc00::1]', 'a private address'],
    ['https://[fd12:3456::1]', 'a private address'],
    ['https://169.254.169.254', 'a link-local address'],
    ['https://[fe80::1]', 'a link-local address'],
    ['https://0.0.0.0', 'an unspecified address'],
    ['https://0', 'an unspecified address'],
    ['https://[::]', 'an unspecified address'],
    ['https://100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['https://224.0.0.1', 'a multicast address'],
    ['https://[2001:4860:4860::8888]', 'a CSP source cannot name an IPv6 address'],
    ['https://[not-ipv6]', 'not a valid host'],
    ['https://localhost', 'a loopback name'],
    ['https://LOCALHOST:3000', 'a loopback name'],
    ['https://localhost.', 'a loopback name'],
    ['https://app.localhost', 'a loopback name'],
    ['https://*.localhost', 'a loopback name'],
    ['https://printer.local', 'a local network name'],
    ['https://intranet', 'a name of one label (a local network name)'],
  ])('refuses %s: %s', (entry, reason) => {
    expect(parseAppDomain(entry)).toEqual({ ok: false, reason });
  });

  it('refuses an entry too long to be an origin', () => {
    expect(parseAppDomain(`https://${'a'.repeat(300)}.com`)).toEqual({ ok: false, reason: 'longer than 300 characters' });
  });

  it('shows a refused entry cut to 100 characters', () => {
    const long = `https://example.com/${'p'.repeat(200)}`;
    const page = checkAppPage(read({ text: PAGE, _meta: { ui: { csp: { connectDomains: [long] } } } }), URI, 'X');
    expect(page.refused).toEqual([`connectDomains: ${long.slice(0, 100)}… (has a path)`]);
  });
});

describe('checkAppPage on the page of a real app', () => {
  it('shows the page of @modelcontextprotocol/server-basic-vanillajs, byte for byte', () => {
    const file = readFileSync(path.join(ROOT, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/mcp-app.html'));
    const result = { contents: [{ uri: 'ui://get-time/mcp-app.html', mimeType: 'text/html;profile=mcp-app', text: file.toString('utf8') }] };
    const page = checkAppPage(result, 'ui://get-time/mcp-app.html', 'time-app');
    expect(page.bytes).toBe(file.length);
    expect(page.html).toBe(file.toString('utf8'));
    expect(page.refused).toEqual([]);

    const asBlob = checkAppPage({ contents: [{ ...result.contents[0], text: undefined, blob: file.toString('base64') }] }, 'ui://get-time/mcp-app.html', 'time-app');
    expect(asBlob.bytes).toBe(file.length);
    expect(asBlob.html).toBe(page.html);
  });
});
