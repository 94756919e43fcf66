/**
 * What each tool's results take of the open conversation's context ('conversations.toolTokens'):
 * tool, calls and tokens, most first. Read when shown and again when the conversation gets rows.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useOp } from '../../api/hooks';
import { QueryError } from '../../components/QueryError';
import { usageStrings as u } from '../../i18n/usage-strings';
import { useUi } from '../../stores/ui';
import { useConversationDetail } from './use-conversation';

const t = u.tokens;

export function ToolTokenUse() {
  const conversationId = useUi((st) => st.conversationId);
  if (!conversationId) return null;
  return <TokenTable key={conversationId} conversationId={conversationId} />;
}

function TokenTable({ conversationId }: { conversationId: string }) {
  const q = useOp('conversations.toolTokens', { id: conversationId }, { staleTime: 0, refetchOnMount: 'always' });
  // The conversation's rows come with events into its cached detail: a change in their count means new results.
  const count = useConversationDetail(conversationId).data?.messages.length;
  const qc = useQueryClient();
  const seen = useRef(count);
  useEffect(() => {
    if (count === undefined || seen.current === count) return;
    const first = seen.current === undefined;
    seen.current = count;
    if (!first) void qc.invalidateQueries({ queryKey: ['conversations.toolTokens', { id: conversationId }] });
  }, [count, conversationId, qc]);

  if (q.error) return <QueryError error={q.error} onRetry={() => void q.refetch()} />;
  const data = q.data;
  if (!data) return <p className="muted">{t.loading}</p>;
  if (data.tools.length === 0) return <p className="muted">{t.empty}</p>;
  return (
    <div className="tool-token-use" data-testid="tool-token-use">
      <p className="help">{t.help}</p>
      <table className="token-table">
        <thead>
          <tr>
            <th scope="col">{t.tool}</th>
            <th scope="col" className="num">
              {t.calls}
            </th>
            <th scope="col" className="num">
              {t.tokens}
            </th>
          </tr>
        </thead>
        <tbody>
          {data.tools.map((tool) => (
            <tr key={`${tool.bundleId}/${tool.slug}`} data-testid={`token-row-${tool.slug}`}>
              <th scope="row">
                <code>+{tool.slug}</code>
                {tool.errors > 0 && <span className="muted"> · {t.errors(tool.errors)}</span>}
              </th>
              <td className="num" data-testid={`token-calls-${tool.slug}`}>
                {tool.calls}
              </td>
              <td className="num" data-testid={`token-tokens-${tool.slug}`}>
                {data.exact ? '' : '≈'}
                {tool.tokens.toLocaleString('en-US')}
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">{t.total}</th>
            <td className="num">{data.tools.reduce((n, x) => n + x.calls, 0)}</td>
            <td className="num" data-testid="token-total">
              {data.exact ? '' : '≈'}
              {data.totalTokens.toLocaleString('en-US')}
            </td>
          </tr>
        </tfoot>
      </table>
      <p className="help">{t.counter(data.counter, data.exact)}</p>
    </div>
  );
}
