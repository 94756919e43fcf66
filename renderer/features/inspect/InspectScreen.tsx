import { useRef, useState, type KeyboardEvent } from 'react';
import { EmptyState } from '../../components/EmptyState';
import { t } from '../../i18n/strings';

const TABS = ['buffers', 'files', 'outputs', 'memory', 'timeline'] as const;
type Tab = (typeof TABS)[number];

export function InspectScreen() {
  const [tab, setTab] = useState<Tab>('buffers');
  const refs = useRef<(HTMLButtonElement | null)[]>([]);

  const onKeyDown = (e: KeyboardEvent, i: number) => {
    const delta = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!delta) return;
    e.preventDefault();
    const next = (i + delta + TABS.length) % TABS.length;
    setTab(TABS[next]!);
    refs.current[next]?.focus();
  };

  return (
    <section className="screen" aria-labelledby="inspect-title" data-testid="screen-inspect">
      <header className="screen-header">
        <h1 id="inspect-title">{t.inspect.title}</h1>
      </header>
      <div role="tablist" aria-label={t.inspect.title} className="tabs">
        {TABS.map((name, i) => (
          <button
            key={name}
            ref={(el) => {
              refs.current[i] = el;
            }}
            role="tab"
            id={`inspect-tab-${name}`}
            aria-selected={tab === name}
            aria-controls={`inspect-panel-${name}`}
            tabIndex={tab === name ? 0 : -1}
            className={tab === name ? 'tab active' : 'tab'}
            onClick={() => setTab(name)}
            onKeyDown={(e) => onKeyDown(e, i)}
          >
            {t.inspect.tabs[name]}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`inspect-panel-${tab}`} aria-labelledby={`inspect-tab-${tab}`} className="tab-panel">
        <EmptyState title={t.inspect.tabs[tab]} testId={`inspect-empty-${tab}`}>
          {t.inspect.empty[tab]}
        </EmptyState>
      </div>
    </section>
  );
}
