/**
 * Inspect → Documents: the workspace files tools and routes wrote, with their metadata —
 * filtered by tags, type, creator and words — in a keyboard-navigable list; the one picked
 * in DocumentDetails. A 'documents.changed' event refreshes both.
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { DocumentInfo } from '../../../shared/model/document';
import { useOp } from '../../api/hooks';
import { QueryError } from '../../components/QueryError';
import { documentsStrings as s } from '../../i18n/documents-strings';
import { inspectStrings as is } from '../../i18n/inspect-strings';
import { formatBytes } from '../outputs/format';
import { DocumentDetails } from './DocumentDetails';
import { DOCUMENT_LIST_LIMIT, emptyFilters, filterChoices, hasFilters, parseTags, queryOf, withTag, type DocumentFilters } from './document-filters';
import { useDocumentsUi } from './documents-store';
import { useCreatorLabel } from './use-creator-label';
import './documents.css';

/** What is typed in the filters reaches the query once typing pauses. */
const TYPING_PAUSE_MS = 250;

function useSettled<T>(value: T): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
}

export function DocumentsTab() {
  const ids = useId();
  const filters = useDocumentsUi((st) => st.filters);
  const setFilters = useDocumentsUi((st) => st.setFilters);
  const clearFilters = useDocumentsUi((st) => st.clearFilters);
  const selected = useDocumentsUi((st) => st.selected);
  const select = useDocumentsUi((st) => st.select);
  // The selects apply at once; the text boxes once typing pauses.
  const typed = useSettled({ tags: filters.tags, words: filters.words });
  const applied: DocumentFilters = { ...filters, tags: typed.tags, words: typed.words };
  const all = useOp('documents.list', queryOf(emptyFilters()));
  const list = useOp('documents.list', queryOf(applied), { placeholderData: (prev) => prev });
  const docs = list.data ?? [];
  const choices = filterChoices(all.data ?? [], filters);
  const chosenTags = parseTags(filters.tags);
  const who = useCreatorLabel();

  return (
    <div className="documents-tab" data-testid="documents-tab">
      <form className="documents-filters" role="search" aria-label={s.filters.label} onSubmit={(e) => e.preventDefault()}>
        <div className="documents-filter">
          <label htmlFor={`${ids}-tags`}>{s.filters.tags}</label>
          <input
            id={`${ids}-tags`}
            data-testid="documents-filter-tags"
            value={filters.tags}
            placeholder={s.filters.tagsPlaceholder}
            autoComplete="off"
            list={`${ids}-tag-list`}
            aria-describedby={`${ids}-tags-help`}
            onChange={(e) => setFilters({ tags: e.target.value })}
          />
          <datalist id={`${ids}-tag-list`}>
            {choices.tags.map((t) => (
              <option key={t.value} value={withTag(filters.tags.replace(/[^,]*$/, ''), t.value)} />
            ))}
          </datalist>
        </div>
        <div className="documents-filter choice">
          <label htmlFor={`${ids}-type`}>{s.filters.type}</label>
          <select id={`${ids}-type`} data-testid="documents-filter-type" value={filters.mimeType} onChange={(e) => setFilters({ mimeType: e.target.value })}>
            <option value="">{s.filters.anyType}</option>
            {choices.mimeTypes.map((m) => (
              <option key={m.value} value={m.value}>
                {m.family ? s.filters.family(m.value, m.count) : s.filters.oneType(m.value, m.count)}
              </option>
            ))}
          </select>
        </div>
        <div className="documents-filter choice">
          <label htmlFor={`${ids}-creator`}>{s.filters.creator}</label>
          <select id={`${ids}-creator`} data-testid="documents-filter-creator" value={filters.createdBy} onChange={(e) => setFilters({ createdBy: e.target.value })}>
            <option value="">{s.filters.anyone}</option>
            {choices.creators.map((c) => (
              <option key={c.value} value={c.value}>
                {s.filters.oneCreator(who(c.value), c.count)}
              </option>
            ))}
          </select>
        </div>
        <div className="documents-filter grow">
          <label htmlFor={`${ids}-words`}>{s.filters.words}</label>
          <input
            id={`${ids}-words`}
            type="search"
            data-testid="documents-filter-words"
            value={filters.words}
            placeholder={s.filters.wordsPlaceholder}
            autoComplete="off"
            onChange={(e) => setFilters({ words: e.target.value })}
          />
        </div>
        <button type="button" className="documents-clear" data-testid="documents-filter-clear" disabled={!hasFilters(filters)} onClick={clearFilters}>
          {s.filters.clear}
        </button>
        <p className="help documents-filters-help" id={`${ids}-tags-help`}>
          {s.filters.tagsHelp}
        </p>
      </form>
      {choices.tags.length > 0 && (
        <div className="documents-tag-chips" role="group" aria-label={s.filters.tagChips}>
          {choices.tags.map((t) => (
            <button
              key={t.value}
              type="button"
              className={chosenTags.includes(t.value) ? 'chip active' : 'chip'}
              aria-pressed={chosenTags.includes(t.value)}
              aria-label={s.filters.addTag(t.value, t.count)}
              data-testid={`documents-tag-chip-${t.value}`}
              onClick={() => setFilters({ tags: chosenTags.includes(t.value) ? chosenTags.filter((x) => x !== t.value).join(', ') : withTag(filters.tags, t.value) })}
            >
              {t.value} <span className="muted">{t.count}</span>
            </button>
          ))}
        </div>
      )}
      <div className="documents-split">
        <section className="documents-side" aria-labelledby={`${ids}-list-title`}>
          <div className="side-head">
            <h2 id={`${ids}-list-title`}>{s.listTitle}</h2>
            {list.data && (
              <span className="muted small" data-testid="documents-count" role="status">
                {s.count(docs.length, docs.length >= DOCUMENT_LIST_LIMIT)}
              </span>
            )}
          </div>
          {list.error && <QueryError error={list.error} onRetry={() => void list.refetch()} />}
          {list.isPending && <p className="muted">{s.loading}</p>}
          {list.data && docs.length === 0 && (
            <p className="muted" data-testid="documents-empty">
              {hasFilters(applied) ? s.noMatches : s.empty}
            </p>
          )}
          {docs.length >= DOCUMENT_LIST_LIMIT && <p className="muted small">{s.more(DOCUMENT_LIST_LIMIT)}</p>}
          {docs.length > 0 && <DocumentList docs={docs} selected={selected} onSelect={select} />}
        </section>
        <div className="documents-main">{selected ? <DocumentDetails key={selected} path={selected} /> : docs.length > 0 && <p className="muted">{s.pick}</p>}</div>
      </div>
    </div>
  );
}

/** A listbox: Up/Down/Home/End move the selection (and the focus), as does a click. */
function DocumentList({ docs, selected, onSelect }: { docs: DocumentInfo[]; selected: string | null; onSelect: (path: string) => void }) {
  const who = useCreatorLabel();
  const refs = useRef(new Map<string, HTMLLIElement>());
  const current = docs.findIndex((d) => d.path === selected);

  const onKeyDown = (e: KeyboardEvent, i: number) => {
    let next: number | null = null;
    if (e.key === 'ArrowDown') next = Math.min(docs.length - 1, i + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, i - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = docs.length - 1;
    else if (e.key === 'Enter' || e.key === ' ') next = i;
    if (next === null) return;
    e.preventDefault();
    const d = docs[next]!;
    onSelect(d.path);
    refs.current.get(d.path)?.focus();
  };

  return (
    <ul className="buffer-list document-list" role="listbox" aria-label={s.listLabel} data-testid="documents-list">
      {docs.map((d, i) => {
        const isSelected = d.path === selected;
        return (
          <li
            key={d.path}
            ref={(el) => {
              if (el) refs.current.set(d.path, el);
              else refs.current.delete(d.path);
            }}
            role="option"
            aria-selected={isSelected}
            tabIndex={isSelected || (current < 0 && i === 0) ? 0 : -1}
            className={isSelected ? 'buffer-item document-item active' : 'buffer-item document-item'}
            data-testid="document-item"
            data-path={d.path}
            onClick={() => onSelect(d.path)}
            onKeyDown={(e) => onKeyDown(e, i)}
          >
            <span className="buffer-item-name document-path">{d.path}</span>
            <span className="buffer-item-meta">
              {d.mimeType} · {formatBytes(d.sizeBytes)}
              {d.tokenCount !== undefined && <> · {s.item.tokens(d.tokenCount)}</>}
            </span>
            <span className="buffer-item-meta document-who">
              {s.item.by(who(d.createdBy))} · {s.item.updated(is.when(d.updatedAt))}
            </span>
            {d.tags.length > 0 && (
              <span className="document-tags" data-testid="document-item-tags">
                {d.tags.map((t) => (
                  <span key={t} className="badge">
                    {t}
                  </span>
                ))}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
