import { useMemo, useState } from 'react';
import type { ToolView } from '../../../shared/model/tool';
import { useOpMutation, usePagedOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { McpHintBadges } from '../../components/McpHints';
import { QueryError } from '../../components/QueryError';
import { Switch } from '../../components/Switch';
import { t } from '../../i18n/strings';
import { useUi } from '../../stores/ui';
import { useDebounced } from '../../hooks/use-debounced';
import { ToolUsageCell } from './usage/ToolUsageCell';
import { useUsageSummaries } from './usage/use-usage';

export interface ToolListProps {
  /** Opens a tool (in the workbench's editor); without it the rows are not buttons. */
  onOpen?: (tool: ToolView) => void;
  /** The id of the tool open in the editor, marked as current. */
  openToolId?: string;
}

export function ToolList({ onOpen, openToolId }: ToolListProps = {}) {
  const { toolsBundleId, toolsIncludeDisabled, setIncludeDisabled } = useUi();
  const [query, setQuery] = useState('');
  const q = useDebounced(query.trim(), 120);
  const searching = q !== '';
  const [tagText, setTagText] = useState('');
  const tagsText = useDebounced(tagText, 200);
  const tags = useMemo(() => [...new Set(tagsText.split(',').map((s) => s.trim()).filter(Boolean))], [tagsText]);
  const listed = usePagedOp(
    'tools.list',
    { bundleIds: toolsBundleId ? [toolsBundleId] : undefined, tags: tags.length ? tags : undefined, includeDisabled: toolsIncludeDisabled, pageSize: 50 },
    !searching,
  );
  const found = usePagedOp('tools.search', { q, includeDisabled: toolsIncludeDisabled, pageSize: 50 }, searching);
  const active = searching ? found : listed;
  // Search has no tag parameter: its hits are filtered here (a tool must have every tag).
  const tools: ToolView[] = searching
    ? (found.data?.pages.flatMap((p) => p.items.map((h) => h.tool)) ?? []).filter((tool) => tags.every((tag) => tool.tags.includes(tag)))
    : (listed.data?.pages.flatMap((p) => p.items) ?? []);
  const patch = useOpMutation('tools.patch');
  // Every row's usage in one request.
  const usage = useUsageSummaries(tools.map((tool) => tool.id));

  return (
    <section className="tool-list" aria-labelledby="tool-list-title">
      <h2 id="tool-list-title" className="visually-hidden">
        {t.tools.title}
      </h2>
      <div className="tool-filters">
        <input
          type="search"
          aria-label={t.tools.search}
          placeholder={t.tools.searchPlaceholder}
          value={query}
          data-testid="tool-search"
          onChange={(e) => setQuery(e.target.value)}
        />
        <input
          type="text"
          aria-label={t.tools.tagFilter}
          placeholder={t.tools.tagPlaceholder}
          value={tagText}
          data-testid="tag-filter"
          className="tag-filter"
          onChange={(e) => setTagText(e.target.value)}
        />
        <label className="inline-check">
          <input type="checkbox" checked={toolsIncludeDisabled} data-testid="include-disabled" onChange={(e) => setIncludeDisabled(e.target.checked)} />
          {t.tools.includeDisabled}
        </label>
      </div>
      {active.error && <QueryError error={active.error} onRetry={() => void active.refetch()} />}
      {patch.error && (
        <FieldError role="alert">
          {patch.error.message}
        </FieldError>
      )}
      <ul className="tools" data-testid="tool-list">
        {tools.map((tool) => (
          <li
            key={tool.id}
            className={`${tool.isEnabled ? 'tool-row' : 'tool-row disabled'}${tool.id === openToolId ? ' current' : ''}`}
            data-testid={`tool-${tool.slug}`}
          >
            <div className="tool-main">
              <div className="tool-title">
                {onOpen ? (
                  <button
                    type="button"
                    className="tool-open"
                    aria-current={tool.id === openToolId || undefined}
                    data-testid={`open-tool-${tool.slug}`}
                    onClick={() => onOpen(tool)}
                  >
                    <strong>{tool.displayName}</strong>
                  </button>
                ) : (
                  <strong>{tool.displayName}</strong>
                )}
                <code>
                  +{tool.slug} <span className="muted">{t.tools.version} {tool.version}</span>
                </code>
                <span className="badge">{tool.type}</span>
                {tool.isBuiltIn && <span className="badge">{t.tools.builtIn}</span>}
                <McpHintBadges mcp={tool.mcp} testId={`tool-hints-${tool.slug}`} />
                {tool.unavailableReason && (
                  <span className="badge danger" title={tool.unavailableReason}>
                    {t.tools.unavailable}
                  </span>
                )}
              </div>
              <p className="tool-desc">{tool.description}</p>
              {tool.tags.length > 0 && (
                <p className="tags">
                  {tool.tags.map((tag) => (
                    <span key={tag} className="tag">
                      {tag}
                    </span>
                  ))}
                </p>
              )}
            </div>
            <ToolUsageCell summary={usage.get(tool.id)} slug={tool.slug} />
            <Switch
              checked={tool.isEnabled}
              label={t.tools.enableTool(tool.displayName)}
              disabled={!!tool.unavailableReason}
              testId={`tool-switch-${tool.slug}`}
              // Not disabled while a change is saved (that would drop the keyboard focus): a press meanwhile is ignored.
              onChange={(isEnabled) =>
                !patch.isPending &&
                patch.mutate({ bundleId: tool.bundleId, slug: tool.slug, version: tool.version, isEnabled })
              }
            />
          </li>
        ))}
      </ul>
      {active.data && tools.length === 0 && (
        <p className="muted" data-testid="tool-list-empty">
          {searching ? t.tools.noMatches(q) : t.tools.noToolsInBundle}
        </p>
      )}
      {active.hasNextPage && (
        <button type="button" onClick={() => void active.fetchNextPage()}>
          {t.tools.loadMore}
        </button>
      )}
    </section>
  );
}

