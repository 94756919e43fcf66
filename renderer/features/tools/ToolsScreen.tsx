import { EmptyState } from '../../components/EmptyState';
import { t } from '../../i18n/strings';

export function ToolsScreen() {
  return (
    <section className="screen" aria-labelledby="tools-title" data-testid="screen-tools">
      <header className="screen-header">
        <h1 id="tools-title">{t.tools.title}</h1>
      </header>
      <EmptyState title={t.tools.emptyTitle} testId="tools-empty">
        {t.tools.emptyBody}
      </EmptyState>
    </section>
  );
}
