import type { Bundle } from '../../../shared/model/bundle';
import { useOp, useOpMutation, usePagedOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { Switch } from '../../components/Switch';
import { t } from '../../i18n/strings';
import { useUi } from '../../stores/ui';
import { McpStateBadge } from './mcp/McpServers';

export function BundleList() {
  const bundles = usePagedOp('bundles.list', { includeDisabled: true, includeDeleted: true, pageSize: 100 });
  const { toolsBundleId, selectBundle } = useUi();
  const patch = useOpMutation('bundles.patch');
  const items: Bundle[] = bundles.data?.pages.flatMap((p) => p.items) ?? [];
  // MCP servers' bundles show their server's status.
  const mcp = new Map((useOp('mcpServers.list', {}).data ?? []).map((v) => [v.bundleId, v]));

  // Not disabled while a change is saved (a disabled switch would drop the keyboard focus): a press meanwhile is ignored.
  const toggle = (b: Bundle, isEnabled: boolean) =>
    !patch.isPending && patch.mutate({ bundleId: b.id, isEnabled });

  return (
    <section className="bundle-list" aria-labelledby="bundles-title">
      <h2 id="bundles-title">{t.tools.bundles}</h2>
      {bundles.error && <QueryError error={bundles.error} onRetry={() => void bundles.refetch()} />}
      {patch.error && (
        <FieldError role="alert">
          {patch.error.message}
        </FieldError>
      )}
      <ul data-testid="bundle-list">
        <li>
          <button type="button" className={toolsBundleId === null ? 'bundle-item active' : 'bundle-item'} aria-current={toolsBundleId === null} onClick={() => selectBundle(null)}>
            {t.tools.allBundles}
          </button>
        </li>
        {items.map((b) => (
          <li key={b.id} className={b.softDeletedAt ? 'bundle-row deleted' : 'bundle-row'} data-testid={`bundle-${b.slug}`}>
            <button
              type="button"
              className={toolsBundleId === b.id ? 'bundle-item active' : 'bundle-item'}
              aria-current={toolsBundleId === b.id}
              onClick={() => selectBundle(b.id)}
              title={b.description}
            >
              <span className="bundle-name">{b.displayName}</span>
              {b.isBuiltIn && <span className="badge">{t.tools.builtIn}</span>}
              {b.softDeletedAt && <span className="badge danger">{t.tools.deleted}</span>}
              {mcp.has(b.id) && <McpStateBadge server={mcp.get(b.id)!} />}
            </button>
            <Switch
              checked={b.isEnabled}
              label={t.tools.enableBundle(b.displayName)}
              disabled={!!b.softDeletedAt}
              testId={`bundle-switch-${b.slug}`}
              onChange={(on) => toggle(b, on)}
            />
          </li>
        ))}
      </ul>
      {bundles.data && items.length === 0 && <p className="muted">{t.tools.noBundles}</p>}
      {bundles.hasNextPage && (
        <button type="button" onClick={() => void bundles.fetchNextPage()}>
          {t.tools.loadMore}
        </button>
      )}
    </section>
  );
}
