/**
 * Inspect → Memory (docs/design/memory.md): the blocks of a memory (the open conversation's, or
 * another conversation's or an agent profile's) with their schema, type, permission, pinned and
 * size against the limit; the one picked shows its content, its history of versions with undo and
 * redo, and the difference between two chosen versions. Below: the memory's archival recall
 * entries, searched with their scores, and its data sources. A 'memory.changed' event refreshes
 * all of it.
 */
import { useId, useMemo, useState, type FormEvent } from 'react';
import type { ErrorInfo } from '../../../shared/errors';
import type { BlockInfo, BlockVersion } from '../../../shared/model/memory';
import { useApi, useOp } from '../../api/hooks';
import { EmptyState } from '../../components/EmptyState';
import { QueryError } from '../../components/QueryError';
import { inspectStrings as is } from '../../i18n/inspect-strings';
import { memoryStrings } from '../../i18n/memory-strings';
import { useUi } from '../../stores/ui';
import { DiffView } from '../../components/DiffView';
import { NewBlockForm } from '../memory/NewBlockForm';
import { diffCounts, textDiff } from '../../components/diff-lines';
import { FieldError } from '../../components/Field';
import { byText, canRedo, canUndo, compared, defaultCompare, ownersOf } from '../memory/memory-view';
import '../memory/memory.css';
import { useConversationTitles, useInspectedConversation } from './ConversationBar';

const s = memoryStrings.tab;

export function MemoryTab() {
  const ids = useId();
  const conversationId = useInspectedConversation();
  const openInChat = useUi((st) => st.conversationId);
  const titles = useConversationTitles();
  const agents = useOp('agents.list', {});
  /** A memory's name for a person: its conversation's title or its agent's name (the owner id stays in the tooltip). */
  const nameOf = (o: string, markOpen = true): string => {
    if (o.startsWith('conversation:')) {
      const id = o.slice('conversation:'.length);
      const title = titles.get(id);
      return title ? s.conversationOwner(title, markOpen && id === openInChat) : id === conversationId ? s.thisConversation(id) : o;
    }
    const name = o.slice('agent:'.length);
    const profile = agents.data?.find((a) => a.profile.name === name)?.profile;
    return s.agentOwner(profile?.displayName ?? name);
  };
  const all = useOp('memory.blocks.list', {});
  const owners = useMemo(() => ownersOf(all.data ?? [], conversationId), [all.data, conversationId]);
  const [chosenOwner, setOwner] = useState<string | null>(null);
  const owner = chosenOwner && owners.includes(chosenOwner) ? chosenOwner : (owners[0] ?? null);
  const [label, setLabel] = useState<string | null>(null);

  if (all.error) return <QueryError error={all.error} onRetry={() => void all.refetch()} />;
  if (!all.data) return null;
  if (!owner) {
    return (
      <EmptyState title={s.title} testId="inspect-empty-memory">
        {s.noOwner}
      </EmptyState>
    );
  }
  const blocks = all.data.filter((b) => b.owner === owner);
  const picked = blocks.find((b) => b.label === label);

  return (
    <div className="memory-tab" data-testid="memory-tab">
      <div className="memory-owner">
        <label htmlFor={`${ids}-owner`}>{s.owner}</label>
        <select
          id={`${ids}-owner`}
          data-testid="memory-owner"
          value={owner}
          title={owner}
          aria-describedby={`${ids}-owner-help`}
          onChange={(e) => {
            setOwner(e.target.value);
            setLabel(null);
          }}
        >
          {owners.map((o) => (
            <option key={o} value={o} title={o}>
              {nameOf(o)}
            </option>
          ))}
        </select>
        <span className="help" id={`${ids}-owner-help`}>
          {s.ownerHelp}
        </span>
      </div>
      <div className="memory-split">
        <section className="memory-side" aria-labelledby={`${ids}-blocks`}>
          <h2 id={`${ids}-blocks`}>{s.blocks}</h2>
          {blocks.length === 0 ? (
            <p className="muted" data-testid="memory-no-blocks">
              {s.noBlocksIn(nameOf(owner, false))}
            </p>
          ) : (
            <BlockTable blocks={blocks} picked={picked?.label} onPick={setLabel} />
          )}
          <NewBlockForm owner={owner} onCreated={setLabel} />
        </section>
        <section className="memory-main" aria-label={picked ? picked.label : s.pick}>
          {picked ? <BlockDetails key={`${owner}\u0000${picked.label}`} block={picked} /> : blocks.length > 0 && <p className="muted">{s.pick}</p>}
        </section>
      </div>
      <RecallSearch key={owner} owner={owner} />
      <Sources />
    </div>
  );
}

function BlockTable({ blocks, picked, onPick }: { blocks: BlockInfo[]; picked: string | undefined; onPick: (label: string) => void }) {
  const c = s.columns;
  return (
    <div className="memory-table-wrap">
      <table className="memory-blocks" aria-label={s.blocksLabel}>
        <thead>
          <tr>
            <th scope="col">{c.label}</th>
            <th scope="col">{c.schema}</th>
            <th scope="col">{c.type}</th>
            <th scope="col">{c.permission}</th>
            <th scope="col">{c.pinned}</th>
            <th scope="col" className="num">
              {c.size}
            </th>
          </tr>
        </thead>
        <tbody>
          {blocks.map((b) => (
            <tr key={b.id} className={b.label === picked ? 'picked' : undefined} data-testid="memory-block-row" data-label={b.label}>
              <td>
                <button type="button" className="link-button" aria-pressed={b.label === picked} data-testid="memory-block-pick" onClick={() => onPick(b.label)}>
                  {b.label}
                </button>
              </td>
              <td>{b.schema.kind}</td>
              <td>{b.type}</td>
              <td>{b.permission}</td>
              <td>{b.pinned ? <span className="badge">{s.pinned}</span> : <span className="muted">{s.notPinned}</span>}</td>
              <td className="num">{s.size(b.size, b.charLimit)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BlockDetails({ block }: { block: BlockInfo }) {
  const ref = { owner: block.owner, label: block.label };
  const view = useOp('memory.blocks.get', ref);
  const history = useOp('memory.blocks.history', ref);
  return (
    <div className="memory-details" data-testid="memory-block-details">
      <h3 className="memory-details-title">{block.label}</h3>
      {block.description && (
        <p>
          <span className="muted">{s.description}:</span> {block.description}
        </p>
      )}
      <h4>{s.content}</h4>
      {view.error ? (
        <QueryError error={view.error} onRetry={() => void view.refetch()} />
      ) : (
        view.data && (
          <pre className="memory-content" data-testid="memory-block-content" tabIndex={0}>
            {view.data.text || s.empty}
          </pre>
        )
      )}
      {history.error ? <QueryError error={history.error} onRetry={() => void history.refetch()} /> : history.data && <History block={block} history={history.data} />}
    </div>
  );
}

function History({ block, history }: { block: BlockInfo; history: BlockVersion[] }) {
  const { client } = useApi();
  const conversationId = useUi((st) => st.conversationId);
  const ids = useId();
  // A new version (an edit, undo, redo) moves the comparison back to the new current one.
  const key = history.map((v) => `${v.seq}${v.current ? 'c' : ''}`).join(',');
  const [chosen, setChosen] = useState<{ key: string; pick: { from: number; to: number } } | null>(null);
  const pick = chosen?.key === key ? chosen.pick : defaultCompare(history);
  const setPick = (p: { from: number; to: number }) => setChosen({ key, pick: p });
  const [busy, setBusy] = useState<'undo' | 'redo' | null>(null);
  const [problem, setProblem] = useState<ErrorInfo | null>(null);
  const versions = pick ? compared(history, pick) : undefined;
  const lines = useMemo(
    () => (versions ? textDiff(versions.from.text, versions.to.text, { before: `version ${versions.from.seq}`, after: `version ${versions.to.seq}` }) : []),
    [versions],
  );

  const step = async (op: 'undo' | 'redo') => {
    setBusy(op);
    setProblem(null);
    try {
      const r = await client.call(op === 'undo' ? 'memory.blocks.undo' : 'memory.blocks.redo', { owner: block.owner, label: block.label });
      if (!r.ok) setProblem(r.error);
    } catch (e) {
      setProblem({ code: 'UNAVAILABLE', message: (e as Error).message });
    } finally {
      setBusy(null);
    }
  };
  const c = s.versionColumns;
  return (
    <div className="memory-history">
      <div className="memory-history-head">
        <h4 id={`${ids}-title`}>{s.history}</h4>
        <div className="form-actions">
          <button type="button" data-testid="memory-undo" disabled={busy !== null || !canUndo(history)} onClick={() => void step('undo')}>
            {s.undo}
          </button>
          <button type="button" data-testid="memory-redo" disabled={busy !== null || !canRedo(history)} onClick={() => void step('redo')}>
            {s.redo}
          </button>
        </div>
      </div>
      <p className="help">{s.undoHelp}</p>
      {problem && (
        <FieldError role="alert">
          {s.failed} <code className="error-code">{problem.code}</code> {problem.message}
        </FieldError>
      )}
      <div className="memory-table-wrap">
        <table className="memory-versions" aria-label={s.historyLabel(block.label)} data-testid="memory-history">
          <thead>
            <tr>
              <th scope="col" className="num">
                {c.seq}
              </th>
              <th scope="col">{c.op}</th>
              <th scope="col">{c.by}</th>
              <th scope="col">{c.at}</th>
              <th scope="col">{c.state}</th>
              <th scope="col">{s.from}</th>
              <th scope="col">{s.to}</th>
            </tr>
          </thead>
          <tbody>
            {history.map((v) => (
              <tr key={v.seq} data-testid="memory-version" data-current={v.current} data-undone={v.undone} className={v.undone ? 'undone' : undefined}>
                <td className="num">{v.seq}</td>
                <td>{v.op}</td>
                <td className="memory-by" title={v.by}>
                  {byText(v.by, conversationId)}
                </td>
                <td>{is.when(v.at)}</td>
                <td>{v.current ? <span className="badge ok">{s.current}</span> : v.undone ? <span className="badge">{s.undone}</span> : null}</td>
                <td>
                  <input type="radio" name={`${ids}-from`} aria-label={s.compareFrom(v.seq)} checked={pick?.from === v.seq} onChange={() => setPick({ from: v.seq, to: pick?.to ?? v.seq })} />
                </td>
                <td>
                  <input type="radio" name={`${ids}-to`} aria-label={s.compareTo(v.seq)} checked={pick?.to === v.seq} onChange={() => setPick({ from: pick?.from ?? v.seq, to: v.seq })} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {versions && (
        <div className="memory-diff" data-testid="memory-diff">
          <h4>
            {s.diffTitle}: {versions.from.seq} → {versions.to.seq}
          </h4>
          {lines.length === 0 ? (
            <p className="muted">{s.same}</p>
          ) : (
            <>
              <p className="muted small">{s.diffCounts(diffCounts(lines).added, diffCounts(lines).removed)}</p>
              <DiffView lines={lines} label={s.diffLabel(versions.from.seq, versions.to.seq)} testId="memory-diff-lines" />
            </>
          )}
        </div>
      )}
    </div>
  );
}

function RecallSearch({ owner }: { owner: string }) {
  const ids = useId();
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const hits = useOp('memory.recall.search', { owner, query, limit: 50 }, { enabled: query.trim() !== '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQuery(text.trim());
  };
  return (
    <section className="memory-recall" aria-labelledby={`${ids}-title`} data-testid="memory-recall">
      <h2 id={`${ids}-title`}>{s.recall}</h2>
      <p className="help">{s.recallHelp}</p>
      <form role="search" aria-label={s.searchLabel} className="memory-search" onSubmit={submit}>
        <input id={`${ids}-q`} aria-label={s.searchLabel} data-testid="memory-recall-query" placeholder={s.searchPlaceholder} value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit" data-testid="memory-recall-search">
          {s.search}
        </button>
      </form>
      {query === '' ? (
        <p className="muted">{s.searchFirst}</p>
      ) : hits.error ? (
        <QueryError error={hits.error} onRetry={() => void hits.refetch()} />
      ) : hits.data && hits.data.length === 0 ? (
        <p className="muted" data-testid="memory-recall-none">
          {s.noHits}
        </p>
      ) : (
        <ol className="memory-hits" aria-live="polite">
          {(hits.data ?? []).map((h) => (
            <li key={h.id} data-testid="memory-recall-hit">
              <div className="memory-hit-head">
                <span className="badge" data-testid="memory-recall-score">
                  {s.score(h.score)}
                </span>
                <span className="muted small">{is.when(h.createdAt)}</span>
                {h.tags.length > 0 && (
                  <span className="muted small">
                    {s.tags}: {h.tags.join(', ')}
                  </span>
                )}
              </div>
              <p className="memory-hit-text">{h.content}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The data sources (Settings → Memory sources) with their state; folder watchers pause and resume here. */
function Sources() {
  const ids = useId();
  const { client } = useApi();
  const list = useOp('memory.sources.list', {});
  const [problem, setProblem] = useState<ErrorInfo | null>(null);
  /** A watcher that is not watching (paused, or stopped by an error) is resumed: for an error, that is trying again. */
  const toggle = async (id: string, resume: boolean) => {
    setProblem(null);
    try {
      const r = await client.call(resume ? 'memory.sources.resume' : 'memory.sources.pause', { id });
      if (!r.ok) setProblem(r.error);
    } catch (e) {
      setProblem({ code: 'UNAVAILABLE', message: (e as Error).message });
    }
  };
  return (
    <section className="memory-sources" aria-labelledby={`${ids}-sources`} data-testid="memory-sources">
      <h2 id={`${ids}-sources`}>{s.sources}</h2>
      {list.error ? (
        <QueryError error={list.error} onRetry={() => void list.refetch()} />
      ) : !list.data ? null : list.data.length === 0 ? (
        <p className="muted">{s.noSources}</p>
      ) : (
        <ul className="memory-source-list">
          {list.data.map((src) => (
            <li key={src.id} data-testid="memory-source" data-state={src.state}>
              <code>{src.id}</code> <span className="muted">{src.kind === 'files' ? s.fileSource : s.watcher}</span> <span className="muted small">{src.folder}</span>{' '}
              <span className={`badge ${src.state === 'error' ? 'danger' : src.state === 'paused' ? '' : 'ok'}`}>{src.state}</span>
              {src.error && <FieldError as="span"> {src.error}</FieldError>}
              {src.type === 'stream' && (
                <button type="button" className="memory-source-toggle" onClick={() => void toggle(src.id, src.state !== 'watching')}>
                  {src.state === 'watching' ? s.pause : s.resume}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <FieldError role="alert">
          {s.failed} <code className="error-code">{problem.code}</code> {problem.message}
        </FieldError>
      )}
    </section>
  );
}
