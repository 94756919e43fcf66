/**
 * What kind of thing a need asks for, and what kind of thing a tool does: read, create,
 * update or delete. A need says it with its verbs ("which numbers do we own", "change the
 * email"); a tool with the verb its name or title opens with, else its HTTP method. When both
 * are known the ranking prefers tools whose kind agrees (ACTION_AGREES, ACTION_DIFFERS).
 */
import { firstWord, words } from './text';

export type Action = 'read' | 'create' | 'update' | 'delete';

export const ACTION_AGREES = 1.25;
export const ACTION_DIFFERS = 0.85;

const VERBS: Readonly<Record<string, Action>> = {
  get: 'read', list: 'read', fetch: 'read', retrieve: 'read', read: 'read', show: 'read', view: 'read', see: 'read',
  find: 'read', look: 'read', lookup: 'read', search: 'read', what: 'read', which: 'read', who: 'read', how: 'read',
  check: 'read', count: 'read', browse: 'read', download: 'read', query: 'read', returns: 'read', return: 'read', lists: 'read',
  gets: 'read', retrieves: 'read', fetches: 'read', describe: 'read',
  create: 'create', add: 'create', make: 'create', new: 'create', send: 'create', post: 'create',
  start: 'create', upload: 'create', invite: 'create', register: 'create', creates: 'create', adds: 'create', sends: 'create',
  write: 'create', generate: 'create', submit: 'create', attach: 'create', convert: 'create', note: 'create',
  enable: 'update', disable: 'update',
  update: 'update', change: 'update', edit: 'update', modify: 'update', rename: 'update', set: 'update', move: 'update',
  replace: 'update', updates: 'update', modifies: 'update', changes: 'update', put: 'update', patch: 'update', adjust: 'update',
  delete: 'delete', remove: 'delete', erase: 'delete', clear: 'delete', drop: 'delete', destroy: 'delete', deletes: 'delete',
  removes: 'delete', purge: 'delete', unassign: 'delete', kick: 'delete', nuke: 'delete', wipe: 'delete', scrap: 'delete', ditch: 'delete',
  grab: 'read', tweak: 'update', amend: 'update', slap: 'create', append: 'create',
  mark: 'update', mute: 'update', silence: 'update', approve: 'update', assign: 'update', reassign: 'update',
  publish: 'create', ship: 'create', deploy: 'create', upvote: 'create', react: 'create', text: 'create', ask: 'create', schedule: 'create',
};

/** Whether a word is one of the verbs that say a kind of action ("get", "list", "create"...). */
export function isActionVerb(word: string): boolean {
  return Object.hasOwn(VERBS, word);
}

const METHODS: Readonly<Record<string, Action>> = { GET: 'read', HEAD: 'read', POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

/** Verbs a person uses otherwise than an API does: "put a user into a group" adds. */
const NEED_VERBS: Readonly<Record<string, Action>> = { ...VERBS, put: 'create' };

/** The first action verb of a need, or undefined when it names none. */
export function needAction(query: string): Action | undefined {
  for (const w of words(query)) {
    const a = NEED_VERBS[w];
    if (a) return a;
  }
  return undefined;
}

/** What a tool does: the verb its title (then its slug) opens with, else its HTTP method. */
export function toolAction(title: string, slug: string, method?: string): Action | undefined {
  for (const text of [title, slug]) {
    const first = firstWord(text);
    const a = first ? VERBS[first] : undefined;
    if (a && first !== 'what' && first !== 'which' && first !== 'how') return a;
  }
  return method ? METHODS[method.toUpperCase()] : undefined;
}

/**
 * Whether a read gives one thing or a list. A need says it with few words ("one", "single",
 * "by its id"; "list", "all", "every", "which"); a tool with its title ("List ...") or the end
 * of its path (`/tasks/{task_gid}` is one, `/tasks` many).
 */
export type Scope = 'one' | 'many';

export const SCOPE_AGREES = 1.15;
export const SCOPE_DIFFERS = 0.9;

const MANY = new Set(['list', 'lists', 'all', 'every', 'which']);
const ONE = new Set(['one', 'single', 'specific', 'particular', 'id']);

export function needScope(query: string): Scope | undefined {
  const ws = words(query);
  if (ws.some((w) => MANY.has(w))) return 'many';
  if (ws.some((w) => ONE.has(w))) return 'one';
  return undefined;
}

export function toolScope(title: string, slug: string, method?: string, urlTemplate?: string): Scope | undefined {
  const first = firstWord(title) ?? firstWord(slug);
  if (first === 'list' || first === 'search') return 'many';
  if (method?.toUpperCase() !== 'GET' || !urlTemplate) return undefined;
  const path = urlTemplate.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0]!.replace(/\.json$/i, '');
  const last = path.split('/').filter(Boolean).at(-1);
  if (!last) return undefined;
  return /^\{[^}]*\}$/.test(last) ? 'one' : 'many';
}

/** The factor a tool's score is multiplied by. */
export function actionFactor(need: Action | undefined, tool: Action | undefined): number {
  if (!need || !tool) return 1;
  return need === tool ? ACTION_AGREES : ACTION_DIFFERS;
}

/** The factor for a read tool's scope against the need's. */
export function scopeFactor(need: Scope | undefined, tool: Scope | undefined): number {
  if (!need || !tool) return 1;
  return need === tool ? SCOPE_AGREES : SCOPE_DIFFERS;
}
