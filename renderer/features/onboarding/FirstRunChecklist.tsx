/**
 * The first-run checklist, shown on the chat screen while the data folder has no conversation:
 * add a model (or use the `+` palette without one), allow a host for HTTP tools, try a built-in
 * tool. Each item starts with one click; an item is done when the data says so (a provider
 * exists, a host is allowed, a tool has run), not when its button was pressed.
 */
import { useState } from 'react';
import { useOp, useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { onboardingStrings as s } from '../../i18n/onboarding-strings';
import { useUi } from '../../stores/ui';
import { checklistState, TIME_BUNDLE_ID, TIME_NOW_SLUG } from './checklist';
import './onboarding.css';

export function FirstRunChecklist({ onOpenPalette }: { onOpenPalette(): void }) {
  const providers = useOp('providers.list', {});
  const settings = useOp('settings.get', {});
  const invocations = useOp('invocations.list', { limit: 1 });
  const timeTools = useOp('tools.list', { bundleIds: [TIME_BUNDLE_ID] });
  const invoke = useOpMutation('tools.invoke');
  const [hidden, setHidden] = useState(false);
  const [ran, setRan] = useState<string | null>(null);

  if (hidden || !providers.data || !settings.data || !invocations.data) return null;
  const state = checklistState({ providers: providers.data.length, allowedHosts: settings.data.allowedHosts, invocations: invocations.data.length });
  const now = timeTools.data?.items.filter((tool) => tool.slug === TIME_NOW_SLUG).at(-1);

  const runNow = () => {
    if (!now) return;
    setRan(null);
    invoke.mutate(
      { bundleId: now.bundleId, slug: now.slug, version: now.version, args: {}, source: 'user' },
      {
        onSuccess: (r) => {
          const iso = (r.value as { iso?: unknown } | null)?.iso;
          setRan(s.tool.result(typeof iso === 'string' ? iso : JSON.stringify(r.value), Math.round(r.durationMs)));
          void invocations.refetch();
        },
      },
    );
  };

  return (
    <section className="first-run" aria-labelledby="first-run-title" data-testid="first-run">
      <header>
        <h2 id="first-run-title">{s.title}</h2>
        <span className="muted" data-testid="first-run-progress">
          {s.progress(state.done, state.total)}
        </span>
        <button type="button" className="link-button" data-testid="first-run-hide" onClick={() => setHidden(true)}>
          {s.dismiss}
        </button>
      </header>
      <p className="help">{s.intro}</p>
      <ol className="first-run-items">
        <Item id="model" title={s.model.title} done={state.model} body={state.model ? s.model.doneBody(providers.data.length) : s.model.body}>
          {!state.model && (
            <>
              <button type="button" className="primary" data-testid="first-run-model" onClick={() => useUi.getState().openSettings('add-provider')}>
                {s.model.action}
              </button>
              <span className="muted">{s.model.alternative}</span>
              <button type="button" data-testid="first-run-palette" onClick={onOpenPalette}>
                {s.model.alternativeAction}
              </button>
            </>
          )}
        </Item>
        <Item id="hosts" title={s.hosts.title} done={state.hosts} body={state.hosts ? s.hosts.doneBody(settings.data.allowedHosts) : s.hosts.body}>
          {!state.hosts && (
            <button type="button" className="primary" data-testid="first-run-hosts" onClick={() => useUi.getState().openSettings('allowed-hosts')}>
              {s.hosts.action}
            </button>
          )}
        </Item>
        <Item id="tool" title={s.tool.title} done={state.tool} body={state.tool ? s.tool.doneBody : s.tool.body}>
          {!state.tool && (
            <button type="button" className="primary" data-testid="first-run-tool" disabled={!now || invoke.isPending} onClick={runNow}>
              {invoke.isPending ? s.tool.running : s.tool.action}
            </button>
          )}
          {ran && (
            <p className="first-run-result" role="status" data-testid="first-run-tool-result">
              {ran}
            </p>
          )}
          {invoke.error && (
            <FieldError role="alert">
              {s.tool.failed(invoke.error.message)}
            </FieldError>
          )}
        </Item>
      </ol>
    </section>
  );
}

function Item({ id, title, done, body, children }: { id: string; title: string; done: boolean; body: string; children?: React.ReactNode }) {
  return (
    <li className={done ? 'first-run-item done' : 'first-run-item'} data-testid={`first-run-item-${id}`} data-done={done}>
      <span className="first-run-mark" aria-hidden="true">
        {done ? '✓' : ''}
      </span>
      <div>
        <h3>
          {title}
          {done && <span className="visually-hidden"> — {s.done}</span>}
        </h3>
        <p>{body}</p>
        {children && <div className="first-run-actions">{children}</div>}
      </div>
    </li>
  );
}
