/**
 * Which tools the open conversation's model may use: every enabled tool, or the bundles
 * and tools ticked here. A compact popover; each change is saved at once.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { ErrorInfo } from '../../../shared/errors';
import type { Conversation } from '../../../shared/model/conversation';
import type { ToolSelection } from '../../../shared/model/provider';
import type { ToolView } from '../../../shared/model/tool';
import { useApi, usePagedOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { Popover, usePopover } from '../../components/Popover';
import { chatStrings as s } from '../../i18n/chat-strings';
import { countChosen, isToolChosen, latestVersions, startChoice, toggleBundle, toggleTool } from './tool-selection';
import { useEnsureConversation } from './use-conversation';

export function ToolSelectionControl({ conversation }: { conversation: Conversation | undefined }) {
  const { client } = useApi();
  const qc = useQueryClient();
  const ensureConversation = useEnsureConversation();
  const ids = useId();
  const panelId = `${ids}-panel`;
  const { open, close, buttonProps, popoverProps } = usePopover(panelId);
  const bundles = usePagedOp('bundles.list', { pageSize: 100 });
  const tools = usePagedOp('tools.list', { pageSize: 100 });
  const allTools: ToolView[] = latestVersions(tools.data?.pages.flatMap((p) => p.items) ?? []);
  const allBundles = bundles.data?.pages.flatMap((p) => p.items) ?? [];
  const saved = conversation?.tools ?? null;
  /** What was last chosen here, shown at once while the save goes out. */
  const [local, setLocal] = useState<{ for: string | undefined; selection: ToolSelection | null } | null>(null);
  const selection = local && local.for === conversation?.id ? local.selection : saved;
  const [error, setError] = useState<ErrorInfo | null>(null);

  const save = async (next: ToolSelection | null) => {
    setLocal({ for: conversation?.id, selection: next });
    setError(null);
    try {
      const conversationId = await ensureConversation();
      setLocal({ for: conversationId, selection: next });
      const r = await client.call('conversations.setTools', { id: conversationId, tools: next });
      if (!r.ok) {
        setError(r.error);
        setLocal(null);
      }
      void qc.invalidateQueries({ queryKey: ['conversations.get', { id: conversationId }] }, { cancelRefetch: false });
    } catch (e) {
      setError({ code: 'UNAVAILABLE', message: (e as Error).message });
      setLocal(null);
    }
  };

  const summary = selection === null ? s.tools.summaryAll : s.tools.summarySome(countChosen(selection, allTools), allTools.length);
  const choice = selection ?? startChoice();
  return (
    <div className="tool-selection" data-testid="tool-selection">
      <button {...buttonProps} className="tool-selection-button" data-testid="tool-selection-button">
        {s.tools.button}: <span className={selection === null ? 'muted' : ''}>{summary}</span>
      </button>
      {open && (
        <Popover {...popoverProps} className="tool-selection-panel" role="dialog" aria-label={s.tools.label}>
          <fieldset className="tool-selection-mode">
            <legend className="visually-hidden">{s.tools.label}</legend>
            <label className="inline-check">
              <input type="radio" name={`${ids}-mode`} data-testid="tool-selection-all" checked={selection === null} onChange={() => void save(null)} />
              {s.tools.all}
            </label>
            <label className="inline-check">
              <input type="radio" name={`${ids}-mode`} data-testid="tool-selection-chosen" checked={selection !== null} onChange={() => void save(startChoice())} />
              {s.tools.chosen}
            </label>
          </fieldset>
          {(tools.isPending || bundles.isPending) && <p className="muted">{s.tools.loading}</p>}
          {tools.data && allTools.length === 0 && <p className="muted">{s.tools.noTools}</p>}
          <ul className="tool-selection-bundles">
            {allBundles
              .filter((b) => allTools.some((t) => t.bundleId === b.id))
              .map((b) => {
                const bundleOn = selection !== null && choice.bundleIds.includes(b.id);
                return (
                  <li key={b.id}>
                    <label className="inline-check tool-selection-bundle">
                      <input
                        type="checkbox"
                        data-testid={`tool-selection-bundle-${b.slug}`}
                        disabled={selection === null}
                        checked={selection === null || bundleOn}
                        onChange={(e) => void save(toggleBundle(choice, b.id, e.target.checked))}
                      />
                      <strong>{b.displayName}</strong>
                    </label>
                    <ul>
                      {allTools
                        .filter((t) => t.bundleId === b.id)
                        .map((t) => (
                          <li key={t.id}>
                            <label className="inline-check" title={t.description}>
                              <input
                                type="checkbox"
                                data-testid={`tool-selection-tool-${t.slug}`}
                                disabled={selection === null || bundleOn}
                                checked={isToolChosen(selection, t)}
                                onChange={(e) => void save(toggleTool(choice, t.id, e.target.checked))}
                              />
                              {t.displayName} <code className="muted">{t.slug}</code>
                            </label>
                          </li>
                        ))}
                    </ul>
                  </li>
                );
              })}
          </ul>
          {tools.hasNextPage && (
            <button type="button" className="link-button" onClick={() => void tools.fetchNextPage()}>
              {s.tools.loadMore}
            </button>
          )}
          {error && (
            <FieldError role="alert">
              {s.tools.failed} <code className="error-code">{error.code}</code> {error.message}
            </FieldError>
          )}
          <div className="form-actions">
            <button type="button" onClick={close}>
              {s.tools.close}
            </button>
          </div>
        </Popover>
      )}
    </div>
  );
}
