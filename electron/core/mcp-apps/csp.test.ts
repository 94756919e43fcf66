import { describe, expect, it } from 'vitest';
import { frameCsp } from './csp';
import { checkAppPage, type AppCspDomains } from './resource';

const NONE: AppCspDomains = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

describe('frameCsp', () => {
  it('is the default policy without self when the page declares no domains', () => {
    expect(frameCsp(NONE, ['app://toolsmith'])).toBe(
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:; " +
        "connect-src 'none'; frame-src 'none'; base-uri 'none'; object-src 'none'; form-action 'none'; frame-ancestors app://toolsmith",
    );
  });

  it('adds each kept list where it belongs', () => {
    const domains: AppCspDomains = {
      connectDomains: ['https://api.example.com', 'wss://live.example.com'],
      resourceDomains: ['https://*.cdn.example.com', 'https://fonts.gstatic.com'],
      frameDomains: ['https://www.youtube.com'],
      baseUriDomains: ['https://example.com:8443'],
    };
    expect(frameCsp(domains, ['http://127.0.0.1:4801', 'http://localhost:4801'])).toBe(
      "default-src 'none'; " +
        "script-src 'unsafe-inline' https://*.cdn.example.com https://fonts.gstatic.com; " +
        "style-src 'unsafe-inline' https://*.cdn.example.com https://fonts.gstatic.com; " +
        'img-src data: https://*.cdn.example.com https://fonts.gstatic.com; ' +
        'font-src data: https://*.cdn.example.com https://fonts.gstatic.com; ' +
        'media-src data: https://*.cdn.example.com https://fonts.gstatic.com; ' +
        'connect-src https://api.example.com wss://live.example.com; ' +
        'frame-src https://www.youtube.com; ' +
        'base-uri https://example.com:8443; ' +
        "object-src 'none'; form-action 'none'; frame-ancestors http://127.0.0.1:4801 http://localhost:4801",
    );
  });

  it('builds the policy from what checkAppPage kept, never from what it refused', () => {
    const result = {
      contents: [
        {
          uri: 'ui://a/page.html',
          mimeType: 'text/html;profile=mcp-app',
          text: '<p>',
          _meta: { ui: { csp: { connectDomains: ["https://ok.example.com; script-src 'unsafe-eval'", 'https://ok.example.com', 'http://10.0.0.1'] } } },
        },
      ],
    };
    const page = checkAppPage(result, 'ui://a/page.html', 'a');
    expect(frameCsp(page.csp, ['app://toolsmith'])).toContain('; connect-src https://ok.example.com; frame-src');
    expect(frameCsp(page.csp, ['app://toolsmith'])).not.toContain('unsafe-eval');
  });

  it('throws on a domain that checkAppPage would not keep as it is', () => {
    for (const bad of ["https://a.example.com; script-src 'unsafe-eval'", 'https://A.example.com', 'http://a.example.com', '*', 'https://10.0.0.1']) {
      expect(() => frameCsp({ ...NONE, resourceDomains: [bad] }, ['app://toolsmith']), bad).toThrow(/not a domain checkAppPage keeps/);
    }
  });

  it('throws on a frame ancestor that is not an origin, or on none at all', () => {
    expect(() => frameCsp(NONE, [])).toThrow(/at least one frame ancestor/);
    for (const bad of ["'self'", '*', 'app://toolsmith/', 'http://127.0.0.1:4801; script-src *', 'http://a b', 'APP://toolsmith', 'http://*.example.com', 'toolsmith', '']) {
      expect(() => frameCsp(NONE, [bad]), bad).toThrow(/is not an origin/);
    }
    expect(frameCsp(NONE, ['http://[::1]:4801'])).toMatch(/frame-ancestors http:\/\/\[::1\]:4801$/);
  });
});
