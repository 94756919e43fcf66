/**
 * The values inside a secret that are redacted on their own.
 *
 * A secret may hold a JSON object of credentials: an MCP server's OAuth sign-in is kept as
 * its token response (`{"access_token": …, "refresh_token": …, "expires_in": …}`) and its
 * registered client (`{"client_id": …, "client_secret": …}`). What goes on the wire, and what
 * a server may echo back, is one token (`Authorization: Bearer <access_token>`), never the
 * whole object, so redacting the secret's value alone would never match it. The credential
 * fields named here are redacted as values of their own; the other fields (token_type,
 * expires_in, scope, client_name, redirect_uris, ...) are not secret and stay readable
 * (redacting "Bearer" or "3600" everywhere would shred every text).
 */

/** Fields of a JSON secret whose string values are credentials (OAuth 2: RFC 6749, 7591; OpenID Connect). */
export const CREDENTIAL_FIELDS: readonly string[] = ['access_token', 'refresh_token', 'id_token', 'client_secret', 'registration_access_token'];

/** The credential values a secret's value holds as a JSON object (top level); none for any other value. */
export function innerSecretValues(value: string): string[] {
  if (!value.trimStart().startsWith('{')) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
  const out: string[] = [];
  for (const field of CREDENTIAL_FIELDS) {
    const v = Object.hasOwn(parsed, field) ? (parsed as Record<string, unknown>)[field] : undefined;
    if (typeof v === 'string' && v !== '') out.push(v);
  }
  return out;
}
