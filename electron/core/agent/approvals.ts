/**
 * Remembered approvals (a tool always allowed, or allowed in one conversation) in
 * `<data>/approvals.json`, written atomically before a change is acknowledged. A file that
 * does not parse is moved aside and reported; the app starts with no remembered approvals.
 */
import path from 'node:path';
import { z } from 'zod';
import type { Problem } from '../../../shared/model/app-info';
import { ApprovalRuleSchema, type ApprovalRule } from '../../../shared/model/provider';
import { moveAside, readJson } from '../lib/json-file';
import { SerialQueue } from '../lib/serial-queue';
import { nodeFs, replaceFile, toFileText } from '../lib/durable-fs';

export interface ApprovalStoreOptions {
  dataDir: string;
  now: () => Date;
  onChange?: () => void;
  /** Told about a file that had to be set aside. */
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
}

const FileSchema = z.object({ version: z.literal(1), rules: z.array(ApprovalRuleSchema) }).strict();

export type ApprovalScope = ApprovalRule['scope'];

export class ApprovalStore {
  private rules: ApprovalRule[] = [];
  private readonly queue = new SerialQueue();

  private constructor(
    private readonly opts: ApprovalStoreOptions,
    private readonly file: string,
  ) {}

  static async open(opts: ApprovalStoreOptions): Promise<ApprovalStore> {
    const store = new ApprovalStore(opts, path.join(opts.dataDir, 'approvals.json'));
    await store.load();
    return store;
  }

  list(): ApprovalRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  /** Reads the file again: another process on the same data folder (the app, `toolsmith mcp`) changed it. */
  reload(): Promise<void> {
    return this.queue.run(() => this.load());
  }

  /** A rule lets this tool run without asking, always or in this conversation. */
  allows(toolId: string, conversationId: string): boolean {
    return this.rules.some((r) => r.toolId === toolId && (r.scope === 'always' || r.conversationId === conversationId));
  }

  /** Remembers a rule (an existing identical rule is kept as it was). */
  add(rule: { toolId: string; toolName: string; scope: ApprovalScope; conversationId?: string }): Promise<ApprovalRule> {
    return this.change(() => {
      const found = this.rules.find((r) => sameRule(r, rule));
      if (found) return { next: this.rules, result: found };
      const added: ApprovalRule = {
        toolId: rule.toolId,
        toolName: rule.toolName,
        scope: rule.scope,
        ...(rule.scope === 'conversation' && rule.conversationId ? { conversationId: rule.conversationId } : {}),
        createdAt: this.opts.now().toISOString(),
      };
      return { next: [...this.rules, added], result: added };
    });
  }

  /** Forgets a rule; false when there was none. */
  revoke(toolId: string, scope: ApprovalScope, conversationId?: string): Promise<boolean> {
    return this.change(() => this.without((r) => sameRule(r, { toolId, scope, conversationId })));
  }

  /** Forgets the rules of a deleted conversation. */
  forgetConversation(conversationId: string): Promise<boolean> {
    return this.change(() => this.without((r) => r.conversationId === conversationId));
  }

  /** The rules less those `drop` picks: the same array when it picks none (so nothing is written). */
  private without(drop: (r: ApprovalRule) => boolean): { next: ApprovalRule[]; result: boolean } {
    const next = this.rules.filter((r) => !drop(r));
    return next.length === this.rules.length ? { next: this.rules, result: false } : { next, result: true };
  }

  /**
   * Serialised, so two quick changes cannot interleave their writes. The file is written only
   * when the rules changed: this copy may be older than the file (a process that does not
   * watch it, such as the CLI), and writing it unchanged would undo another process's rules.
   */
  private change<T>(fn: () => { next: ApprovalRule[]; result: T }): Promise<T> {
    return this.queue.run(async () => {
      const { next, result } = fn();
      if (next !== this.rules) {
        await replaceFile(nodeFs, this.file, toFileText({ version: 1, rules: next }), () => undefined);
        this.rules = next;
        this.opts.onChange?.();
      }
      return result;
    });
  }

  private async load(): Promise<void> {
    const r = await readJson(this.file);
    if (r.kind === 'missing') return;
    if (r.kind === 'ok') {
      const parsed = FileSchema.safeParse(r.value);
      if (parsed.success) {
        this.rules = parsed.data.rules;
        return;
      }
      await this.setAside(`it does not match the expected form: ${parsed.error.issues[0]?.message ?? ''}`);
      return;
    }
    await this.setAside(r.message);
  }

  private async setAside(why: string): Promise<void> {
    const movedTo = await moveAside(this.file, this.opts.now());
    this.opts.problems?.({ kind: 'corrupt-file', path: this.file, message: `the remembered approvals could not be read (${why}); none are in use`, movedTo });
  }
}

function sameRule(a: { toolId: string; scope: ApprovalScope; conversationId?: string }, b: { toolId: string; scope: ApprovalScope; conversationId?: string }): boolean {
  return a.toolId === b.toolId && a.scope === b.scope && (a.scope === 'always' || a.conversationId === b.conversationId);
}
