/**
 * Auth from the operation's (else the document's) first usable security requirement: apiKey
 * in a header or query → apiKey; apiKey in a cookie → the Cookie header; http bearer →
 * bearer; http basic → basic (a user name to fill in, or — when the scheme's description
 * says the key is the user name, as Stripe's `api_key:` — the key as `usernameSecret` with
 * an empty password); oauth2 with a clientCredentials flow → oauth2 client_credentials
 * (clientId to fill in); other OAuth2 flows and OpenID Connect → bearer with a token the
 * user pastes. Secret names are proposed (GITHUB_TOKEN, ...).
 */
import { proposeSecretName } from '../../../../shared/model/tool-naming';
import type { HttpAuth } from '../../../../shared/model/http-spec';
import { isObject, own, str, type Ctx, type Json } from './document';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A basic scheme whose description shows the key as the user name (`api_key:`, "API key as the username"). */
const KEY_AS_USERNAME = /\b(?:api[_ -]?key|secret[_ -]?key|token):(?![\w/])|\b(?:api[_ -]?key|token|key)\b[^.]{0,40}\bas (?:the )?user ?name/i;

export interface AuthChoice {
  auth: HttpAuth;
  cookie?: string;
}

export function authOf(ctx: Ctx, op: Json, serverUrl: string | undefined, nameHost: string, warnings: string[]): AuthChoice {
  const security = own(op, 'security') ?? own(ctx.doc, 'security');
  if (!Array.isArray(security) || security.length === 0) return { auth: { kind: 'none' } };
  const components = own(ctx.doc, 'components');
  const schemes = isObject(components) ? own(components, 'securitySchemes') : undefined;
  const secret = (what: string) => proposeSecretName(nameHost, what);
  const unsupported: string[] = [];
  for (const requirement of security) {
    if (!isObject(requirement)) continue;
    const names = Object.keys(requirement);
    if (names.length === 0) return { auth: { kind: 'none' } }; // {} = anonymous access allowed
    for (const name of names) {
      const scheme = isObject(schemes) ? ctx.deref(own(schemes, name), warnings) : undefined;
      if (!scheme) {
        unsupported.push(`'${name}' (not defined in components.securitySchemes)`);
        continue;
      }
      const others = names.filter((n) => n !== name);
      if (others.length) warnings.push(`the security requirement also needs ${others.map((n) => `'${n}'`).join(', ')}: only '${name}' was set up`);
      const type = str(own(scheme, 'type'));
      if (type === 'apiKey') {
        const keyName = str(own(scheme, 'name'));
        const where = str(own(scheme, 'in'));
        if (!keyName) {
          unsupported.push(`'${name}' (an apiKey scheme without a name)`);
          continue;
        }
        if (where === 'header' && HEADER_NAME.test(keyName)) return { auth: { kind: 'apiKey', in: 'header', name: keyName.slice(0, 128), secret: secret('API_KEY') } };
        if (where === 'query') return { auth: { kind: 'apiKey', in: 'query', name: keyName.slice(0, 128), secret: secret('API_KEY') } };
        if (where === 'cookie' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(keyName)) {
          return { auth: { kind: 'none' }, cookie: `${keyName}=\${secret:${secret('API_KEY')}}` };
        }
        unsupported.push(`'${name}' (an apiKey in ${where ?? 'nowhere'})`);
        continue;
      }
      if (type === 'http') {
        const s = str(own(scheme, 'scheme'))?.toLowerCase();
        if (s === 'bearer') return { auth: { kind: 'bearer', secret: secret('TOKEN') } };
        if (s === 'basic') {
          if (KEY_AS_USERNAME.test(str(own(scheme, 'description')) ?? '')) {
            return { auth: { kind: 'basic', username: '', usernameSecret: secret('API_KEY') } };
          }
          warnings.push('basic auth: fill in auth.username');
          return { auth: { kind: 'basic', username: '', passwordSecret: secret('PASSWORD') } };
        }
        unsupported.push(`'${name}' (HTTP ${s ?? 'unknown'} authentication)`);
        continue;
      }
      if (type === 'oauth2') {
        const flows = own(scheme, 'flows');
        const cc = isObject(flows) ? own(flows, 'clientCredentials') : undefined;
        const tokenUrl = isObject(cc) ? absoluteUrl(str(own(cc, 'tokenUrl')), serverUrl) : undefined;
        if (tokenUrl) {
          const scopes = Array.isArray(requirement[name]) ? (requirement[name] as unknown[]).filter((x): x is string => typeof x === 'string') : [];
          warnings.push('OAuth2 client credentials: fill in auth.clientId, and save the client secret under the proposed name');
          return {
            auth: { kind: 'oauth2', grant: 'client_credentials', tokenUrl, clientId: 'CLIENT-ID', clientSecret: secret('CLIENT_SECRET'), ...(scopes.length ? { scope: scopes.join(' ').slice(0, 1024) } : {}) },
          };
        }
        warnings.push(`'${name}' is OAuth2 without a client-credentials flow: set up as a bearer token you paste as the secret`);
        return { auth: { kind: 'bearer', secret: secret('TOKEN') } };
      }
      if (type === 'openIdConnect') {
        warnings.push(`'${name}' is OpenID Connect: set up as a bearer token you paste as the secret`);
        return { auth: { kind: 'bearer', secret: secret('TOKEN') } };
      }
      unsupported.push(`'${name}' (type ${type ?? 'missing'})`);
    }
  }
  if (unsupported.length) warnings.push(`security left out: ${unsupported.join(', ')}; set up auth by hand`);
  return { auth: { kind: 'none' } };
}

export function absoluteUrl(url: string | undefined, base: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = base ? new URL(url, `${base}/`) : new URL(url);
    return /^https?:$/.test(u.protocol) && u.href.length <= 2048 ? u.href : undefined;
  } catch {
    return undefined;
  }
}
