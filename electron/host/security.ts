/**
 * Security rules shared by the Electron shell and the headless host. Pure functions,
 * so tests can read them without Electron.
 */

/** The origin the Electron window loads the renderer from (a privileged custom scheme). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'toolsmith';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** True for URLs of the app's own renderer in the Electron shell. */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}

/** `shell.openExternal` is only ever given http(s) links without credentials. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '' && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The renderer's Content-Security-Policy: nothing inline, nothing remote. `frameSrc` is the
 * origin that serves MCP Apps' frame documents (a second loopback port, or the Electron shell's
 * frame scheme): the only thing a frame in the renderer may load.
 */
export function contentSecurityPolicy(opts: { frameSrc?: string } = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Monaco and React inject style attributes; no remote styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    // A tool's sound is played from the data: URL its value carries; nothing remote.
    "media-src data:",
    "font-src 'self' data:",
    // 'self' covers the host's own ws:// origin in the headless host.
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    `frame-src ${opts.frameSrc ?? "'none'"}`,
  ].join('; ');
}

/** Headers every response of the renderer carries, in both hosts. */
export function securityHeaders(opts: { frameSrc?: string } = {}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(opts),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
  };
}

/** The Electron shell's scheme for MCP Apps' frame documents (one-time ids: toolsmith-frame://view/<id>). */
export const FRAME_SCHEME = 'toolsmith-frame';
export const FRAME_ORIGIN = `${FRAME_SCHEME}://view`;
