/**
 * A FileSource's glob rules: the first rule whose pattern matches a path (relative to the
 * source's folder, `/` separators) gives its MemoryPermission; a path no rule matches is
 * refused. The permission then goes through the table in ../permissions.ts for the `file`
 * operation. Patterns are picomatch globs with `dot: true` (`**` matches `.notes/x` too).
 *
 * A rule covers a file however its path is spelled: the pattern and the path are compared in
 * Unicode NFC (a rule typed `café/**` covers the folder macOS stored as NFD `café`), and
 * without case on a volume that ignores case (./volume-case.ts), where `DOCS/a.md` is the
 * same file as `docs/a.md`.
 */
import picomatch from 'picomatch';
import type { MemoryOperation, MemoryPermission } from '../../../../shared/model/memory';
import type { FileRule } from '../../../../shared/model/memory-sources';
import { needs, opText, outcomeOf, PERMISSION_WHAT, type Decision } from '../permissions';

export interface CompiledRules {
  /** The first matching rule and its index, or undefined. */
  match(rel: string): { rule: FileRule; index: number } | undefined;
  readonly rules: readonly FileRule[];
}

export interface RuleOptions {
  /** The folder's volume ignores case: match without it. */
  ignoreCase?: boolean;
}

export function compileRules(rules: readonly FileRule[], opts: RuleOptions = {}): CompiledRules {
  const matchers = rules.map((r) => picomatch(r.pattern.normalize('NFC'), { dot: true, nocase: opts.ignoreCase === true }));
  return {
    rules,
    match(rel) {
      const path = rel.normalize('NFC');
      const i = matchers.findIndex((m) => m(path));
      return i < 0 ? undefined : { rule: rules[i]!, index: i };
    },
  };
}

/** The rules as one line for messages: `docs/** → ReadWrite, ** → ReadOnly`. */
export function rulesText(rules: readonly FileRule[]): string {
  return rules.length ? rules.map((r) => `${r.pattern} → ${r.permission}`).join(', ') : 'none';
}

/**
 * Layer 1 for a file: the rule's permission × the operation. `asOp` lets a save that only
 * appends count as an append (the message still names the operation asked for).
 */
export function fileDecision(sourceId: string, rules: CompiledRules, rel: string, op: MemoryOperation, asOp: MemoryOperation = op): Decision & { permission?: MemoryPermission } {
  const hit = rules.match(rel);
  const shown = opText(op);
  if (!hit) {
    return { kind: 'refused', layer: 'file source rules', reason: `no rule of source '${sourceId}' matches '${rel}', so ${shown} is not possible (rules: ${rulesText(rules.rules)})` };
  }
  const { permission, pattern } = hit.rule;
  const said = `'${rel}' matches rule '${pattern}' of source '${sourceId}' → ${permission}: it ${PERMISSION_WHAT[permission]}`;
  const outcome = outcomeOf(permission, asOp);
  if (outcome === 'allowed') return { kind: 'allowed', permission };
  if (outcome === 'human') return { kind: 'needs-human', layer: 'file source rules', reason: `${said}, so ${shown} waits for the user's answer`, permission };
  return { kind: 'refused', layer: 'file source rules', reason: `${said}, so ${shown} is not possible${needs(asOp)}`, permission };
}
