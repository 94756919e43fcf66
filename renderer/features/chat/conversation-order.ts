import type { Conversation } from '../../../shared/model/conversation';

/** Most recently active first (then most recently created); the list's order and "the newest". */
export function newestFirst<C extends Conversation>(items: readonly C[]): C[] {
  return [...items].sort((a, b) => (b.updatedAt === a.updatedAt ? cmp(b.createdAt, a.createdAt) : cmp(b.updatedAt, a.updatedAt)));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
