/** Settings → Approvals: the remembered "always" and "in this chat" approvals, each revocable. */
import type { ApprovalRule } from '../../../shared/model/provider';
import { useOp, useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { t } from '../../i18n/strings';

const a = t.settings.approvals;

function ruleKey(r: ApprovalRule): string {
  return `${r.toolId}|${r.scope}|${r.conversationId ?? ''}`;
}

function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString();
}

export function ApprovalsSection() {
  const rules = useOp('approvals.list', {});
  const conversations = useOp('conversations.list', {});
  const revoke = useOpMutation('approvals.revoke');
  const titleOf = (id: string | undefined) => conversations.data?.find((c) => c.id === id)?.title;

  return (
    <section className="settings-section approvals" aria-labelledby="approvals-title" data-testid="settings-approvals">
      <h2 id="approvals-title">{a.title}</h2>
      <p className="help">{a.help}</p>
      {rules.error && <QueryError error={rules.error} onRetry={() => void rules.refetch()} />}
      {rules.data?.length === 0 && <p className="muted">{a.none}</p>}
      <ul className="approval-rules">
        {rules.data?.map((r) => {
          const title = titleOf(r.conversationId);
          return (
            <li key={ruleKey(r)} className="approval-rule" data-testid="approval-rule" data-tool-id={r.toolId}>
              <code>{r.toolName}</code>
              <span className={r.scope === 'always' ? 'badge ok' : 'badge'}>{r.scope === 'always' ? a.always : a.conversation}</span>
              {r.scope === 'conversation' && <span className="muted">{title !== undefined ? a.inConversation(title) : conversations.data ? a.unknownConversation : ''}</span>}
              <span className="muted approval-since">{a.since(when(r.createdAt))}</span>
              <button
                type="button"
                data-testid="approval-revoke"
                aria-label={a.revokeLabel(r.toolName)}
                disabled={revoke.isPending}
                onClick={() =>
                  revoke.mutate(
                    { toolId: r.toolId, scope: r.scope, ...(r.conversationId ? { conversationId: r.conversationId } : {}) },
                    { onSuccess: () => void rules.refetch() },
                  )
                }
              >
                {a.revoke}
              </button>
            </li>
          );
        })}
      </ul>
      {revoke.error && (
        <FieldError role="alert">
          {revoke.error.message}
        </FieldError>
      )}
    </section>
  );
}
