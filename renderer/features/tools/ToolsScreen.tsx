import type { JsonSchemaObject } from '../../../shared/model/tool';
import { ProblemsList } from '../../components/ProblemsList';
import { t } from '../../i18n/strings';
import { useUi } from '../../stores/ui';
import { ToolsWorkbench, type TesterContext } from './editor/ToolsWorkbench';
import { ImportPanel } from './import/ImportPanel';
import { McpServers } from './mcp/McpServers';
import { Tester } from './tester/Tester';
import { testerStrings } from '../../i18n/tester-strings';

/** The live tester beside the editor: the saved tool, or the draft being edited. */
function testerFor({ tool, draft, drafting }: TesterContext) {
  if (draft && draft.slug && draft.version) {
    const argSchema = (draft.body.argSchema ?? { type: 'object' }) as JsonSchemaObject;
    return <Tester bundleId={draft.bundleId} slug={draft.slug} version={draft.version} argSchema={argSchema} draft={draft.body} />;
  }
  // The tester's place is kept while the draft has no slug or version yet: the layout does not move under the typing.
  if (drafting) {
    return (
      <section className="tester" aria-labelledby="tester-waiting-title" data-testid="tester-waiting">
        <header className="section-head">
          <h2 id="tester-waiting-title">{testerStrings.title}</h2>
        </header>
        <p className="help">{testerStrings.waitingForDraft}</p>
      </section>
    );
  }
  if (tool) return <Tester bundleId={tool.bundleId} slug={tool.slug} version={tool.version} toolId={tool.id} argSchema={tool.argSchema} toolType={tool.type} />;
  return null;
}

export function ToolsScreen() {
  const bundleId = useUi((s) => s.toolsBundleId);
  return (
    <section className="screen wide" aria-labelledby="tools-title" data-testid="screen-tools">
      <header className="screen-header">
        <h1 id="tools-title">{t.tools.title}</h1>
      </header>
      <ToolsWorkbench testerSlot={testerFor} />
      <ImportPanel bundleId={bundleId ?? undefined} />
      <McpServers />
      <ProblemsList onlyWhenAny />
    </section>
  );
}
