/**
 * Inspect → Stored outputs: the handles of the conversation the bar shows (or of all), each with its
 * tool, size, lines, tokens and when it was stored, in a keyboard-navigable list; the one
 * picked in the virtualised viewer (read by line ranges through toolOutputs.read), with an
 * extraction run by hand and delete. A 'toolOutputs.changed' event refreshes the list.
 */
import { useRef, type KeyboardEvent } from 'react';
import type { StoredOutputSummary } from '../../../shared/contract';
import { useOp } from '../../api/hooks';
import { QueryError } from '../../components/QueryError';
import { inspectStrings as is } from '../../i18n/inspect-strings';
import { outputStrings as s } from '../../i18n/output-strings';
import { formatBytes, formatTokens } from '../outputs/format';
import { useInspect } from './inspect-store';
import { OutputDetails } from './OutputDetails';
import { useConversationTitles, useInspectedConversation } from './ConversationBar';

export function OutputsTab() {
  const conversationId = useInspectedConversation();
  const titles = useConversationTitles();
  const all = useInspect((st) => st.allOutputs) || !conversationId;
  const setAll = useInspect((st) => st.setAllOutputs);
  const selected = useInspect((st) => st.output);
  const select = useInspect((st) => st.selectOutput);
  const list = useOp('toolOutputs.list', all ? {} : { conversationId: conversationId! });
  const outputs = list.data ?? [];
  const info = outputs.find((o) => o.handle === selected);
  // A handle asked for by a card's link that this conversation does not hold: look in all.
  const elsewhere = useOp('toolOutputs.list', {}, { enabled: !all && !!selected && !!list.data && !info });
  const found = info ?? elsewhere.data?.find((o) => o.handle === selected);

  return (
    <div className="inspect-split" data-testid="outputs-tab">
      <section className="inspect-side" aria-labelledby="outputs-list-title">
        <div className="side-head">
          <h2 id="outputs-list-title">{s.inspect.listTitle}</h2>
        </div>
        {conversationId ? (
          <label className="outputs-scope">
            {s.inspect.scope}{' '}
            <select data-testid="outputs-scope" value={all ? 'all' : 'conversation'} onChange={(e) => setAll(e.target.value === 'all')}>
              <option value="conversation">{s.inspect.scopes.conversation}</option>
              <option value="all">{s.inspect.scopes.all}</option>
            </select>
          </label>
        ) : (
          <p className="muted small">{s.inspect.noConversation}</p>
        )}
        {list.error && <QueryError error={list.error} onRetry={() => void list.refetch()} />}
        {list.isPending && <p className="muted">{s.inspect.loading}</p>}
        {list.data && outputs.length === 0 && (
          <p className="muted" data-testid="inspect-empty-outputs">
            {all ? s.inspect.empty : is.conversation.outputsEmpty(titles.get(conversationId!) ?? conversationId!)}
          </p>
        )}
        {outputs.length > 0 && <OutputList outputs={outputs} selected={selected} onSelect={select} />}
      </section>
      <div className="inspect-main">
        {found ? (
          <OutputDetails key={found.handle} info={found} />
        ) : selected && list.data && (all || elsewhere.data) ? (
          <p className="muted" role="status">
            {s.inspect.notFound(selected)}
          </p>
        ) : (
          outputs.length > 0 && <p className="muted">{s.inspect.pick}</p>
        )}
      </div>
    </div>
  );
}

/** A listbox: Up/Down/Home/End move the selection (and the focus), as does a click. */
function OutputList({ outputs, selected, onSelect }: { outputs: StoredOutputSummary[]; selected: string | null; onSelect: (handle: string) => void }) {
  const refs = useRef(new Map<string, HTMLLIElement>());
  const current = outputs.findIndex((o) => o.handle === selected);

  const onKeyDown = (e: KeyboardEvent, i: number) => {
    let next: number | null = null;
    if (e.key === 'ArrowDown') next = Math.min(outputs.length - 1, i + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, i - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = outputs.length - 1;
    else if (e.key === 'Enter' || e.key === ' ') next = i;
    if (next === null) return;
    e.preventDefault();
    const o = outputs[next]!;
    onSelect(o.handle);
    refs.current.get(o.handle)?.focus();
  };

  return (
    <ul className="buffer-list" role="listbox" aria-label={s.inspect.listLabel}>
      {outputs.map((o, i) => {
        const isSelected = o.handle === selected;
        return (
          <li
            key={o.handle}
            ref={(el) => {
              if (el) refs.current.set(o.handle, el);
              else refs.current.delete(o.handle);
            }}
            role="option"
            aria-selected={isSelected}
            tabIndex={isSelected || (current < 0 && i === 0) ? 0 : -1}
            className={isSelected ? 'buffer-item active' : 'buffer-item'}
            data-testid="output-item"
            data-handle={o.handle}
            onClick={() => onSelect(o.handle)}
            onKeyDown={(e) => onKeyDown(e, i)}
          >
            <span className="buffer-item-name">{o.toolName}</span>
            <span className="buffer-item-meta output-handle">{o.handle}</span>
            <span className="buffer-item-meta">{s.inspect.figures(formatBytes(o.bytes), o.lines, formatTokens(o.tokens, o.tokensExact))}</span>
            <span className="buffer-item-meta">{s.inspect.created(is.when(o.createdAt))}</span>
          </li>
        );
      })}
    </ul>
  );
}
