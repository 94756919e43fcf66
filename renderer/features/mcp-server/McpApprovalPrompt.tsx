/**
 * A tool served over MCP that requires approval asks here, on every screen, while this
 * window is open: the app that asked (the name it gave itself, shown as its claim), the tool,
 * why it asks and its arguments; the answer goes back to the waiting call (the client gets
 * its result, or why it was not run).
 */
import type { McpApprovalDecision } from '../../../shared/model/mcp-serve';
import { useOp, useOpMutation } from '../../api/hooks';
import { ApprovalWhy } from '../../components/ApprovalWhy';
import { mcpServerStrings } from '../../i18n/mcp-server-strings';
import '../settings/mcp-server.css';

const p = mcpServerStrings.prompt;
const DECISIONS: { decision: McpApprovalDecision; label: string }[] = [
  { decision: 'allow-once', label: p.allowOnce },
  { decision: 'allow-session', label: p.allowSession },
  { decision: 'allow-always', label: p.allowAlways },
  { decision: 'deny', label: p.deny },
];

export function McpApprovalPrompt() {
  const pending = useOp('mcpServer.approvals', {});
  const respond = useOpMutation('mcpServer.respond');
  const first = pending.data?.[0];
  if (!first) return null;
  const more = (pending.data?.length ?? 1) - 1;
  return (
    <section className="mcp-approval" role="alertdialog" aria-labelledby="mcp-approval-title" aria-describedby="mcp-approval-asks" data-testid="mcp-approval">
      <h2 id="mcp-approval-title">{p.title}</h2>
      <p id="mcp-approval-asks">
        {/* The client's name is its own claim, cleaned by the core; React renders it as text. */}
        {first.appOf ? p.appAsks(first.appOf) : first.client ? p.asks(first.client) : p.asksUnnamed}{' '}
        <code>{first.toolName}</code>
      </p>
      <ApprovalWhy info={first.approval} />
      <details open>
        <summary>{p.args}</summary>
        <pre>
          <code>{JSON.stringify(first.args, null, 2)}</code>
        </pre>
      </details>
      <div className="form-actions">
        {DECISIONS.map((d) => (
          <button
            key={d.decision}
            type="button"
            className={d.decision === 'allow-once' ? 'primary' : d.decision === 'deny' ? 'danger-button' : undefined}
            disabled={respond.isPending}
            data-testid={`mcp-approval-${d.decision}`}
            onClick={() => respond.mutate({ id: first.id, decision: d.decision }, { onSettled: () => void pending.refetch() })}
          >
            {d.decision === 'allow-session' && first.appOf ? p.allowApp : d.label}
          </button>
        ))}
        {more > 0 && <span className="muted">{p.more(more)}</span>}
      </div>
    </section>
  );
}
