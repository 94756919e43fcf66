import { useRef, type KeyboardEvent } from 'react';
import { t } from '../i18n/strings';
import { SCREENS, useUi, type Screen } from '../stores/ui';

/** Stroke icons drawn inline: no icon font, nothing fetched. */
const ICONS: Record<Screen, string> = {
  chat: 'M4 5h16v11H9l-5 4z',
  tools: 'M14 6a4 4 0 0 0 5 5l-8 8-3-3 8-8a4 4 0 0 1-2-2zM5 19l2-2',
  inspect: 'M11 4a7 7 0 1 1 0 14 7 7 0 0 1 0-14zM16 16l4 4',
  settings: 'M12 9a3 3 0 1 1 0 6 3 3 0 0 1 0-6zM12 2v3M12 19v3M2 12h3M19 12h3M5 5l2 2M17 17l2 2M5 19l2-2M17 7l2-2',
};

/** The screen list: arrows move between entries, Enter/Space opens, Alt/Ctrl+1…4 from anywhere. */
export function Sidebar() {
  const { screen, go } = useUi();
  const refs = useRef<(HTMLButtonElement | null)[]>([]);

  const onKeyDown = (e: KeyboardEvent, index: number) => {
    const delta = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
    if (delta === 0 && e.key !== 'Home' && e.key !== 'End') return;
    e.preventDefault();
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? SCREENS.length - 1 : (index + delta + SCREENS.length) % SCREENS.length;
    refs.current[next]?.focus();
  };

  return (
    <nav className="sidebar" aria-label={t.app.mainNav}>
      <div className="brand" aria-hidden="true">
        <span className="brand-mark">T</span>
        <span>{t.app.name}</span>
      </div>
      <ul>
        {SCREENS.map((s, i) => (
          <li key={s}>
            <button
              ref={(el) => {
                refs.current[i] = el;
              }}
              type="button"
              className={s === screen ? 'nav-item active' : 'nav-item'}
              aria-current={s === screen ? 'page' : undefined}
              data-testid={`nav-${s}`}
              onClick={() => go(s)}
              onKeyDown={(e) => onKeyDown(e, i)}
              title={`${t.nav[s]} (Alt+${i + 1})`}
            >
              <svg className="nav-icon" viewBox="0 0 24 24" aria-hidden="true">
                <path d={ICONS[s]} />
              </svg>
              {t.nav[s]}
            </button>
          </li>
        ))}
      </ul>
      <p className="sidebar-hint">{t.shortcuts.screens}</p>
    </nav>
  );
}
