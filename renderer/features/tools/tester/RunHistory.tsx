/**
 * The tool's last runs, from the invocation log (kept in the data folder, so they survive a
 * restart): the saved tool's runs by its id and, when the tester runs drafts, this slug's
 * draft runs (the log keeps every draft under the tool id 'draft'). A click loads a run's
 * args back into the form.
 */
import { useId } from 'react';
import type { InvocationRecord } from '../../../../shared/model/invocation';
import { useOp } from '../../../api/hooks';
import { QueryError } from '../../../components/QueryError';
import { testerStrings as s } from '../../../i18n/tester-strings';

/** The id the invocation log files every draft run under (electron/core/invoke/dispatcher.ts). */
export const DRAFT_TOOL_ID = 'draft';
const SHOWN = 20;

export interface RunHistoryProps {
  bundleId: string;
  slug: string;
  /** The saved tool's id; without it only draft runs are listed. */
  toolId?: string;
  /** Also list draft runs of this bundle and slug. */
  includeDrafts: boolean;
  onLoad: (args: unknown) => void;
}

export function RunHistory({ bundleId, slug, toolId, includeDrafts, onLoad }: RunHistoryProps) {
  const titleId = useId();
  const saved = useOp('invocations.list', { toolId: toolId ?? '', limit: SHOWN }, { enabled: !!toolId });
  const drafts = useOp('invocations.list', { toolId: DRAFT_TOOL_ID, limit: 200 }, { enabled: includeDrafts });
  const runs = [...(toolId ? (saved.data ?? []) : []), ...(includeDrafts ? (drafts.data ?? []).filter((r) => r.bundleId === bundleId && r.slug === slug) : [])]
    .sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0))
    .slice(0, SHOWN);
  const error = saved.error ?? drafts.error;
  const loaded = (!toolId || saved.data) && (!includeDrafts || drafts.data);

  return (
    <section className="run-history" aria-labelledby={titleId}>
      <h3 id={titleId}>{s.history.title}</h3>
      {error && (
        <QueryError
          error={error}
          onRetry={() => {
            void saved.refetch();
            void drafts.refetch();
          }}
        />
      )}
      {loaded && runs.length === 0 && <p className="muted">{s.history.empty}</p>}
      <ol className="history-list" data-testid="history-list">
        {runs.map((r) => (
          <li key={r.id}>
            <HistoryItem record={r} onLoad={onLoad} />
          </li>
        ))}
      </ol>
    </section>
  );
}

function HistoryItem({ record: r, onLoad }: { record: InvocationRecord; onLoad: (args: unknown) => void }) {
  const when = new Date(r.startedAt);
  const time = Number.isNaN(when.getTime()) ? r.startedAt : when.toLocaleString();
  const outcome = r.ok ? s.history.ok : (r.error?.code ?? s.history.ok);
  const ms = s.result.ms(r.durationMs);
  return (
    <button type="button" className="history-item" data-testid="history-item" aria-label={s.history.load(time, outcome, ms)} onClick={() => onLoad(structuredClone(r.args))}>
      <span className={r.ok ? 'badge ok' : 'badge danger'}>{outcome}</span>
      <time dateTime={r.startedAt}>{time}</time>
      <span className="muted">{ms}</span>
      {r.toolId === DRAFT_TOOL_ID ? <span className="badge">{s.history.draft}</span> : <span className="muted">{s.history.version(r.version)}</span>}
      <code className="history-args">{preview(r.args)}</code>
    </button>
  );
}

function preview(args: unknown): string {
  const text = JSON.stringify(args) ?? '';
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
