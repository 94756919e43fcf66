/**
 * The palette's tool list (a listbox driven from the composer: the caret stays in the
 * text while ↑ ↓ move the active option and Enter picks it).
 */
import { memo, useEffect, useRef } from 'react';
import type { ToolView } from '../../../shared/model/tool';
import { QueryError } from '../../components/QueryError';
import { chatStrings as s } from '../../i18n/chat-strings';

export interface PaletteListProps {
  id: string;
  query: string;
  tools: readonly ToolView[];
  active: number;
  stale: boolean;
  loading: boolean;
  error: Error | null;
  onPick: (tool: ToolView) => void;
  onHover: (index: number) => void;
}

export const optionId = (listId: string, index: number) => `${listId}-opt-${index}`;

export const PaletteList = memo(function PaletteList({ id, query, tools, active, stale, loading, error, onPick, onHover }: PaletteListProps) {
  const listRef = useRef<HTMLUListElement>(null);
  useEffect(() => {
    listRef.current?.querySelector<HTMLElement>(`#${CSS.escape(optionId(id, active))}`)?.scrollIntoView({ block: 'nearest' });
  }, [id, active, tools]);
  return (
    <div className="palette-list">
      {error && <QueryError error={error} />}
      {loading && <p className="muted palette-note">{s.palette.searching}</p>}
      {!loading && !error && tools.length === 0 && !stale && <p className="muted palette-note">{s.palette.noMatches(query)}</p>}
      <ul ref={listRef} id={id} role="listbox" aria-label={s.palette.listLabel(query)} aria-busy={stale} className={stale ? 'palette-options stale' : 'palette-options'}>
        {tools.map((tool, i) => (
          <li
            key={tool.id}
            id={optionId(id, i)}
            role="option"
            aria-selected={i === active}
            className={i === active ? 'palette-option active' : 'palette-option'}
            data-testid={`palette-item-${tool.slug}`}
            // Keeps the caret in the composer: a click picks without moving focus first.
            onMouseDown={(e) => e.preventDefault()}
            onMouseMove={() => i !== active && onHover(i)}
            onClick={() => onPick(tool)}
          >
            <span className="palette-option-name">
              <strong>{tool.displayName}</strong> <code>+{tool.slug}</code>
            </span>
            {tool.description && <span className="palette-option-desc muted">{tool.description}</span>}
          </li>
        ))}
      </ul>
      <p className="help palette-note">{s.palette.help}</p>
    </div>
  );
});
