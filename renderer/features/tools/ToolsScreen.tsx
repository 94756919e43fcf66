import { ProblemsList } from '../../components/ProblemsList';
import { t } from '../../i18n/strings';
import { BundleList } from './BundleList';
import { ToolList } from './ToolList';

export function ToolsScreen() {
  return (
    <section className="screen wide" aria-labelledby="tools-title" data-testid="screen-tools">
      <header className="screen-header">
        <h1 id="tools-title">{t.tools.title}</h1>
      </header>
      <div className="tools-layout">
        <BundleList />
        <ToolList />
      </div>
      <ProblemsList onlyWhenAny />
    </section>
  );
}
