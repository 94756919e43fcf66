/**
 * What kind of thing a need asks for, and what kind of thing a tool does: read, create,
 * update or delete. A need says it with its verbs ("which numbers do we own", "change the
 * email"); a tool with the verb its name or title opens with, else its HTTP method. When both
 * are known the ranking prefers tools whose kind agrees (ACTION_AGREES, ACTION_DIFFERS).
 */
import { words } from './text';

export type Action = 'read' | 'create' | 'update' | 'delete';

export const ACTION_AGREES = 1.25;
export const ACTION_DIFFERS = 0.85;

const VERBS: Readonly<Record<string, Action>> = {
  get: 'read', list: 'read', fetch: 'read', retrieve: 'read', read: 'read', show: 'read', view: 'read', see: 'read',
  find: 'read', look: 'read', lookup: 'read', search: 'read', what: 'read', which: 'read', who: 'read', how: 'read',
  check: 'read', count: 'read', browse: 'read', download: 'read', query: 'read', returns: 'read', return: 'read', lists: 'read',
  gets: 'read', retrieves: 'read', fetches: 'read', describe: 'read',
  create: 'create', add: 'create', make: 'create', new: 'create', send: 'create', post: 'create', open: 'create',
  start: 'create', upload: 'create', invite: 'create', register: 'create', creates: 'create', adds: 'create', sends: 'create',
  write: 'create', generate: 'create', submit: 'create', attach: 'create',
  update: 'update', change: 'update', edit: 'update', modify: 'update', rename: 'update', set: 'update', move: 'update',
  replace: 'update', updates: 'update', modifies: 'update', changes: 'update', put: 'update', patch: 'update', adjust: 'update',
  delete: 'delete', remove: 'delete', erase: 'delete', clear: 'delete', drop: 'delete', destroy: 'delete', deletes: 'delete',
  removes: 'delete', purge: 'delete', unassign: 'delete',
};

const METHODS: Readonly<Record<string, Action>> = { GET: 'read', HEAD: 'read', POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

/** The first action verb of a need, or undefined when it names none. */
export function needAction(query: string): Action | undefined {
  for (const w of words(query)) {
    const a = VERBS[w];
    if (a) return a;
  }
  return undefined;
}

/** What a tool does: the verb its title (then its slug) opens with, else its HTTP method. */
export function toolAction(title: string, slug: string, method?: string): Action | undefined {
  for (const text of [title, slug]) {
    const first = words(text)[0];
    const a = first ? VERBS[first] : undefined;
    if (a && first !== 'what' && first !== 'which' && first !== 'how') return a;
  }
  return method ? METHODS[method.toUpperCase()] : undefined;
}

/** The factor a tool's score is multiplied by. */
export function actionFactor(need: Action | undefined, tool: Action | undefined): number {
  if (!need || !tool) return 1;
  return need === tool ? ACTION_AGREES : ACTION_DIFFERS;
}
