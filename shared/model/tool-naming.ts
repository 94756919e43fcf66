/**
 * Names given to what an import makes from a curl command (shared/model/curl.ts) or an OpenAPI
 * document (electron/core/transfer/openapi): tool slugs, argument names, secret names, text put
 * into a template as it is, and whether a field's name or value says it holds a credential.
 * Pure (no Node, no DOM), so the renderer and the core use the same rules.
 */
import { looksLikeCredential } from './curl-values';
import { labelViolation, LABEL_MAX_RUNES, nfc } from './validation';

/** Text put into a template as it is: `${` becomes `$${`. */
export function escapeTemplateText(s: string): string {
  return s.split('${').join('$${');
}

/** An argument name a placeholder can hold: letters, digits, '_', '$', '-', starting with a letter, '_' or '$'; no dots. */
export function toArgName(raw: string): string {
  let s = raw.normalize('NFC').replace(/[^A-Za-z0-9_$-]+/g, '_');
  if (!/^[A-Za-z_$]/.test(s)) s = `a_${s}`;
  return s.slice(0, 64) || 'arg';
}

/**
 * `base` if `isTaken` says it is free, else the first free of `base_2`, `base_3`, ... (the base
 * cut to 60 characters first): how two arguments or two secrets of one import that would share
 * a name are told apart.
 */
export function numberedName(base: string, isTaken: (name: string) => boolean): string {
  let name = base;
  for (let n = 2; isTaken(name); n++) name = `${base.slice(0, 60)}_${n}`;
  return name;
}

/** A slug (letters, digits, '-'; at most 64) from any text: `listPets` → `list-pets`. */
export function slugify(raw: string, fallback = 'tool'): string {
  const s = nfc(raw)
    .replace(/(\p{Ll}|\p{Nd})(\p{Lu})/gu, '$1-$2')
    .toLowerCase()
    .replace(/[^\p{L}\p{Nd}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  const cut = [...s].slice(0, LABEL_MAX_RUNES).join('').replace(/-+$/, '');
  return cut && labelViolation('slug', cut) === null ? cut : fallback;
}

/** A slug not in `taken`: `name`, `name-2`, `name-3`, ... within 64 runes. Adds it to `taken`. */
export function uniqueSlug(base: string, taken: Set<string>): string {
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) {
    const suffix = `-${n}`;
    candidate = [...base].slice(0, LABEL_MAX_RUNES - suffix.length).join('').replace(/-+$/, '') + suffix;
  }
  taken.add(candidate);
  return candidate;
}

const GENERIC_LABELS = new Set(['api', 'www', 'app', 'com', 'org', 'net', 'co', 'io', 'dev', 'gov', 'edu', 'ac']);

/** A secret name for a host and what it holds: api.github.com + TOKEN → GITHUB_TOKEN. */
export function proposeSecretName(host: string, what: string): string {
  const bare = host.replace(/^\[|\](:\d+)?$/g, '').replace(/:\d+$/, '');
  const isIp = /^[\d.]+$/.test(bare) || bare.includes(':');
  const all = isIp ? [] : bare.split('.').filter(Boolean);
  // Without the top-level domain, the last label that says something: api.github.com → github.
  const labels = (all.length >= 2 ? all.slice(0, -1) : all).filter((l) => !GENERIC_LABELS.has(l.toLowerCase()));
  const base = labels[labels.length - 1] ?? 'API';
  let name = `${base}_${what}`.toUpperCase().replace(/[^A-Z0-9_]+/g, '_').replace(/_+/g, '_');
  if (!/^[A-Z]/.test(name)) name = `S_${name}`;
  return name.slice(0, 64).replace(/_+$/, '');
}

/** Names secret-like keys: passwords, tokens, API keys (OpenWeatherMap's `appid`, ipstack's `access_key`). */
const SECRET_KEY =
  /^(?:x-)?(?:api[-_]?key|apikey|key|access[-_]?token|auth[-_]?token|token|secret|client[-_]?secret|password|passwd|pass|private[-_]?token|x-auth-token|session[-_]?token|api[-_]?token|api[-_]?secret|access[-_]?key|secret[-_]?key|app[-_]?key|app[-_]?secret|appid|refresh[-_]?token|id[-_]?token)$/i;

/**
 * Names that hold a credential inside a longer name (`user_password`, `dbPassword`, `pwd`,
 * `passphrase`, `private_key`, `client-credentials`, `oauth_token`); cursors such as
 * `page_token` or `next_token` are not among them.
 */
const SECRET_KEY_PART =
  /password|passwd|passphrase|secret|private[-_]?key|credential|(?:^|[-_])pwd(?:$|[-_])|(?:^|[-_])(?:access|auth|api|bearer|session|refresh|id|oauth|csrf|xsrf)[-_]?(?:token|key)$/i;

/** Whether a field's name says it holds a credential. */
export function isSecretName(key: string): boolean {
  return SECRET_KEY.test(key) || SECRET_KEY_PART.test(key);
}

/** Whether a field's value must become a secret: by its name, or by its shape whatever the name. */
export function isSecretField(key: string, value: string): boolean {
  return isSecretName(key) || looksLikeCredential(value);
}

/** Below the top level of a JSON body a bare `key` names a thing, not a credential (Jira's `"project": {"key": "PROJ"}`). */
export function isNestedSecretField(key: string, value: string): boolean {
  return key.toLowerCase() === 'key' ? looksLikeCredential(value) : isSecretField(key, value);
}

/** The singular of a path segment, for naming the id that follows it: `users` → `user`, `categories` → `category`. */
export function singular(word: string): string {
  const w = word.replace(/[^A-Za-z0-9]+/g, '');
  if (/ies$/i.test(w)) return `${w.slice(0, -3)}y`;
  if (/[^s]s$/i.test(w)) return w.slice(0, -1);
  return w;
}
