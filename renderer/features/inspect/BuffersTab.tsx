/**
 * The Buffers tab: the buffers of one owner (the inspector target's, else the conversation
 * the bar shows) in a keyboard-navigable list, and the one picked: its viewer, go to line,
 * search, export and delete.
 */
import { useRef, type KeyboardEvent } from 'react';
import type { BufferInfo } from '../../../shared/model/routing';
import { useOp } from '../../api/hooks';
import { EmptyState } from '../../components/EmptyState';
import { QueryError } from '../../components/QueryError';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { useUi } from '../../stores/ui';
import { BufferDetails } from './BufferDetails';
import { useInspect } from './inspect-store';
import { useBufferOwner, useConversationTitle } from './ConversationBar';

export function BuffersTab() {
  const ownerId = useBufferOwner();
  if (!ownerId) {
    return (
      <EmptyState title={s.buffers.noOwnerTitle} testId="inspect-empty-buffers">
        {s.buffers.noOwner}
      </EmptyState>
    );
  }
  return <OwnerBuffers key={ownerId} ownerId={ownerId} />;
}

function OwnerBuffers({ ownerId }: { ownerId: string }) {
  const list = useOp('buffers.list', { ownerId });
  const conversationId = useUi((st) => st.conversationId);
  const title = useConversationTitle(ownerId);
  const selected = useInspect((st) => st.buffer);
  const selectBuffer = useInspect((st) => st.selectBuffer);
  const name = selected?.ownerId === ownerId ? selected.name : null;
  const buffers = list.data ?? [];
  const info = buffers.find((b) => b.name === name);

  return (
    <div className="inspect-split">
      <section className="inspect-side" aria-labelledby="buffers-list-title">
        <h2 id="buffers-list-title">{s.buffers.listTitle}</h2>
        {list.error && <QueryError error={list.error} onRetry={() => void list.refetch()} />}
        {list.isPending && <p className="muted">{s.buffers.loading}</p>}
        {list.data && buffers.length === 0 && <p className="muted" data-testid="inspect-empty-buffers">{s.buffers.emptyIn(title)}</p>}
        {buffers.length > 0 && <BufferList buffers={buffers} selected={name} onSelect={(n) => selectBuffer({ ownerId, name: n })} />}
        {conversationId !== ownerId && <p className="muted small">{s.buffers.owner(ownerId)}</p>}
      </section>
      <div className="inspect-main">
        {info ? (
          <BufferDetails key={info.name} info={info} />
        ) : name && list.data ? (
          <p className="muted" role="status">
            {s.buffers.notFound(name)}
          </p>
        ) : (
          buffers.length > 0 && <p className="muted">{s.buffers.pick}</p>
        )}
      </div>
    </div>
  );
}

/** A listbox: Up/Down/Home/End move the selection (and the focus), as does a click. */
function BufferList({ buffers, selected, onSelect }: { buffers: BufferInfo[]; selected: string | null; onSelect: (name: string) => void }) {
  const refs = useRef(new Map<string, HTMLLIElement>());
  const current = buffers.findIndex((b) => b.name === selected);

  /** From the item that has the focus (the selection may be elsewhere, or nowhere). */
  const onKeyDown = (e: KeyboardEvent, i: number) => {
    let next: number | null = null;
    if (e.key === 'ArrowDown') next = Math.min(buffers.length - 1, i + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, i - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = buffers.length - 1;
    if (next === null) return;
    e.preventDefault();
    const b = buffers[next]!;
    onSelect(b.name);
    refs.current.get(b.name)?.focus();
  };

  return (
    <ul className="buffer-list" role="listbox" aria-label={s.buffers.listLabel}>
      {buffers.map((b, i) => {
        const isSelected = b.name === selected;
        return (
          <li
            key={b.name}
            ref={(el) => {
              if (el) refs.current.set(b.name, el);
              else refs.current.delete(b.name);
            }}
            role="option"
            aria-selected={isSelected}
            tabIndex={isSelected || (current < 0 && i === 0) ? 0 : -1}
            className={isSelected ? 'buffer-item active' : 'buffer-item'}
            data-testid={`buffer-item-${b.name}`}
            onClick={() => onSelect(b.name)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                onSelect(b.name);
              } else onKeyDown(e, i);
            }}
          >
            <span className="buffer-item-name">{b.name}</span>
            <span className="buffer-item-meta">
              {s.size.chars(b.chars)} · {s.size.lines(b.lines)}
            </span>
            <span className="buffer-item-meta">{s.buffers.updated(s.when(b.updatedAt))}</span>
            <span className="buffer-item-meta source" title={b.source}>
              {s.buffers.source(b.source)}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
