/**
 * The Timeline tab: every event of the conversation the bar shows as the core recorded it (the
 * messages table is the timeline: user messages, model text, tool calls and results,
 * approvals, errors), in order, with the stored row shown for the one picked (a result that is
 * content, part by part, the row's JSON a toggle away).
 */
import { useMemo, useState } from 'react';
import type { Message } from '../../../shared/model/conversation';
import { resultParts } from '../../../shared/model/result-content';
import { useOp } from '../../api/hooks';
import { EmptyState } from '../../components/EmptyState';
import { ResultParts } from '../../components/ResultParts';
import { QueryError } from '../../components/QueryError';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { timelineRows } from './timeline-rows';
import { useInspectedConversation } from './ConversationBar';

export function TimelineTab() {
  const conversationId = useInspectedConversation();
  if (!conversationId) {
    return (
      <EmptyState title={s.timeline.noConversationTitle} testId="inspect-empty-timeline">
        {s.timeline.noConversation}
      </EmptyState>
    );
  }
  return <ConversationTimeline key={conversationId} conversationId={conversationId} />;
}

function ConversationTimeline({ conversationId }: { conversationId: string }) {
  const detail = useOp('conversations.get', { id: conversationId });
  const rows = useMemo(() => timelineRows(detail.data?.messages ?? []), [detail.data]);
  const [picked, setPicked] = useState<string | null>(null);
  if (detail.error) return <QueryError error={detail.error} onRetry={() => void detail.refetch()} />;
  if (!detail.data) return null;
  if (rows.length === 0) {
    return (
      <EmptyState title={s.timeline.emptyTitle} testId="inspect-empty-timeline">
        {s.timeline.emptyIn(detail.data.conversation.title)}
      </EmptyState>
    );
  }
  const chosen = rows.find((r) => r.id === picked);
  const turnNumbers = new Map<string, number>();
  for (const r of rows) if (r.turnId && !turnNumbers.has(r.turnId)) turnNumbers.set(r.turnId, turnNumbers.size + 1);

  return (
    <div className="timeline-tab" data-testid="timeline">
      <p className="muted">{s.timeline.count(rows.length)}</p>
      <table className="timeline-table" aria-label={s.timeline.listLabel}>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{s.timeline.columns.at}</th>
            <th scope="col">{s.timeline.columns.turn}</th>
            <th scope="col">{s.timeline.columns.kind}</th>
            <th scope="col">{s.timeline.columns.summary}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={r.id} className={r.id === picked ? 'picked' : undefined} data-testid="timeline-row" data-kind={r.kind}>
              <td>{i + 1}</td>
              <td>
                <time dateTime={r.at}>{new Date(r.at).toLocaleTimeString()}</time>
              </td>
              <td>{r.turnId ? turnNumbers.get(r.turnId) : ''}</td>
              <td>
                <span className={`timeline-kind kind-${r.kind.replace(' ', '-')}`}>{r.kind}</span>
              </td>
              <td>
                <button type="button" className="link-button" aria-pressed={r.id === picked} onClick={() => setPicked(r.id === picked ? null : r.id)}>
                  {r.summary || '—'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {chosen && (
        <section aria-label={s.timeline.detailsLabel} className="timeline-details" data-testid="timeline-details">
          <RowDetails message={chosen.message} />
        </section>
      )}
    </div>
  );
}

/** The stored row; a tool result that is content shows its parts first, the row's JSON behind "Raw JSON". */
function RowDetails({ message }: { message: Message }) {
  const tool = message.role === 'tool' ? message.tool : undefined;
  const parts = useMemo(() => (tool ? resultParts(tool.value) : undefined), [tool]);
  const json = () => <pre>{JSON.stringify(message, null, 2)}</pre>;
  if (!parts || !tool) return json();
  return <ResultParts parts={parts} toolName={tool.displayName} bundleId={tool.bundleId} testId="timeline-details-value" raw={json} />;
}
