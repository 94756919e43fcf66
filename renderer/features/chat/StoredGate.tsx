/**
 * What the gate did with an oversized result, on its tool card: size, lines, tokens (≈ when
 * estimated) and share of the model's window; where it went (a handle linking to Inspect →
 * Stored outputs, inline, a buffer, dropped); and a menu to change that (toolOutputs.choose,
 * a new row for the call), optionally remembered for the tool. The menu is a menu button:
 * Enter, Space or Down opens it, arrows move, Enter or Space picks, Escape or Tab closes.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { StoredOutputInfo } from '../../../shared/model/conversation';
import type { OversizedChoice } from '../../../shared/model/settings';
import { useOp, useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { Popover } from '../../components/Popover';
import { outputStrings as s } from '../../i18n/output-strings';
import { useUi } from '../../stores/ui';
import { availableChoices, CHOICES, formatBytes, formatShare, formatTokens, shareOf } from '../outputs/format';
import { addMessages } from './use-conversation';

export function StoredGate({ info, conversationId, invocationId }: { info: StoredOutputInfo; conversationId?: string; invocationId: string }) {
  const openInspector = useUi((st) => st.openInspector);
  const list = useOp('toolOutputs.list', { conversationId: conversationId ?? '' }, { enabled: !!conversationId && !!info.handle });
  const kept = !!info.handle && !!list.data?.some((o) => o.handle === info.handle);
  const share = shareOf(info);
  return (
    <section className="stored-gate" data-testid="stored-gate" data-choice={info.choice} aria-label={s.gate.label}>
      <p className="stored-figures" data-testid="stored-figures">
        <span title={info.tokensExact ? undefined : s.gate.estimated}>{s.gate.figures(formatBytes(info.bytes), info.lines, formatTokens(info.tokens, info.tokensExact))}</span>
        {share !== undefined && info.contextTokens !== undefined && <span data-testid="stored-share"> · {s.gate.share(formatShare(share), info.contextTokens)}</span>}
        <span className="muted"> · {s.gate.reason[info.reason]}</span>
      </p>
      <div className="stored-state">
        <p data-testid="stored-state">
          {info.choice === 'handle' && info.handle ? (
            <>
              {s.gate.storedAs}{' '}
              <button type="button" className="link-button stored-handle" data-testid="stored-handle-link" title={s.gate.openHandle(info.handle)} aria-label={s.gate.openHandle(info.handle)} onClick={() => openInspector({ kind: 'output', handle: info.handle! })}>
                {info.handle}
              </button>
            </>
          ) : info.choice === 'inline' ? (
            s.gate.stateInline
          ) : info.choice === 'buffer' ? (
            s.gate.stateBuffer
          ) : info.choice === 'drop' ? (
            s.gate.stateDrop
          ) : (
            s.gate.storedAs
          )}
        </p>
        {info.handle && list.data && !kept && info.choice !== 'drop' && <p className="muted small">{s.gate.gone}</p>}
        {conversationId && <ChoiceMenu conversationId={conversationId} invocationId={invocationId} current={info.choice} available={availableChoices(info, kept)} />}
      </div>
    </section>
  );
}

function ChoiceMenu({ conversationId, invocationId, current, available }: { conversationId: string; invocationId: string; current: OversizedChoice; available: OversizedChoice[] }) {
  const qc = useQueryClient();
  const choose = useOpMutation('toolOutputs.choose');
  const [open, setOpen] = useState(false);
  const [remember, setRemember] = useState(false);
  const [active, setActive] = useState(0);
  const menuId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const itemRefs = useRef<(HTMLElement | null)[]>([]);
  // The four choices, then the remember checkbox.
  const count = CHOICES.length + 1;

  useEffect(() => {
    if (open) itemRefs.current[active]?.focus();
  }, [open, active]);

  const close = (focusButton: boolean) => {
    setOpen(false);
    if (focusButton) buttonRef.current?.focus();
  };
  const openAt = (i: number) => {
    setActive(i);
    setOpen(true);
  };

  const pick = (choice: OversizedChoice) => {
    if (!available.includes(choice)) return;
    if (choice === current && !remember) return close(true);
    choose.mutate(
      { conversationId, invocationId, choice, ...(remember ? { remember: true } : {}) },
      {
        onSuccess: (msg) => {
          addMessages(qc, conversationId, [msg]);
          void qc.invalidateQueries({ queryKey: ['toolOutputs.list'] });
          if (remember) void qc.invalidateQueries({ queryKey: ['settings.get'] });
          close(true);
        },
      },
    );
  };

  const onButtonKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      openAt(Math.max(0, CHOICES.indexOf(current)));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      openAt(count - 1);
    }
  };

  const onMenuKey = (e: KeyboardEvent) => {
    // Escape (and a click elsewhere) is the Popover's.
    if (e.key === 'Tab') {
      close(false);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp' || e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      setActive((i) => (e.key === 'Home' ? 0 : e.key === 'End' ? count - 1 : (i + (e.key === 'ArrowDown' ? 1 : -1) + count) % count));
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (active < CHOICES.length) pick(CHOICES[active]!);
      else setRemember((r) => !r);
    }
  };

  return (
    <div className="choice-menu">
      <button
        ref={buttonRef}
        type="button"
        className="small-button"
        data-testid="stored-choice-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={s.gate.menuLabel}
        disabled={choose.isPending}
        onClick={() => (open ? close(false) : openAt(Math.max(0, CHOICES.indexOf(current))))}
        onKeyDown={onButtonKey}
      >
        {choose.isPending ? s.gate.applying : `${s.gate.menu} ▾`}
      </button>
      {open && (
        <Popover anchorRef={buttonRef} onClose={() => setOpen(false)} id={menuId} role="menu" aria-label={s.gate.menuLabel} className="choice-menu-list" data-testid="stored-choice-menu" onKeyDown={onMenuKey}>
          {CHOICES.map((c, i) => {
            const enabled = available.includes(c);
            return (
              <div
                key={c}
                ref={(el) => {
                  itemRefs.current[i] = el;
                }}
                role="menuitemradio"
                aria-checked={c === current}
                aria-disabled={!enabled}
                tabIndex={i === active ? 0 : -1}
                className={`choice-item${enabled ? '' : ' disabled'}`}
                data-testid={`stored-choice-${c}`}
                onClick={() => pick(c)}
                onMouseEnter={() => setActive(i)}
              >
                <span className="choice-name">
                  {s.choices[c]}
                  {c === current && <span className="muted"> ({s.gate.current})</span>}
                </span>
                <span className="choice-help">{s.choiceHelp[c]}</span>
              </div>
            );
          })}
          <div role="separator" className="choice-separator" />
          <div
            ref={(el) => {
              itemRefs.current[CHOICES.length] = el;
            }}
            role="menuitemcheckbox"
            aria-checked={remember}
            tabIndex={active === CHOICES.length ? 0 : -1}
            className="choice-item"
            data-testid="stored-choice-remember"
            title={s.gate.rememberHelp}
            onClick={() => setRemember((r) => !r)}
            onMouseEnter={() => setActive(CHOICES.length)}
          >
            <span className="choice-name">
              <span aria-hidden="true">{remember ? '☑' : '☐'}</span> {s.gate.remember}
            </span>
            <span className="choice-help">{s.gate.rememberHelp}</span>
          </div>
        </Popover>
      )}
      {choose.error && (
        <FieldError role="alert" data-testid="stored-choice-error">
          {s.gate.failed} {choose.error.message}
        </FieldError>
      )}
    </div>
  );
}
