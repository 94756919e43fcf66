/**
 * Import and export in one small tabbed panel: "From curl", "From OpenAPI" and "Bundle ZIP".
 * The curl and OpenAPI tabs add tools to `bundleId` and ask for a bundle when there is none.
 * Panels stay mounted (hidden) so switching tabs keeps what was typed; the OpenAPI document's
 * text is kept here, so choosing or making another bundle (which starts its panel afresh)
 * keeps it too.
 *
 *   <ImportPanel bundleId={selectedBundleId} />
 */
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { DropInFolder } from '../../../components/DropInFolder';
import { importStrings as s } from '../../../i18n/import-strings';
import { BundleTransfer } from './BundleTransfer';
import { CurlImport } from './CurlImport';
import { OpenApiImport } from './OpenApiImport';
import './import.css';

export interface ImportPanelProps {
  bundleId?: string;
}

const TABS = ['curl', 'openapi', 'bundle'] as const;
type Tab = (typeof TABS)[number];

export function ImportPanel({ bundleId }: ImportPanelProps) {
  const [tab, setTab] = useState<Tab>('curl');
  const [openApiText, setOpenApiText] = useState('');
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const id = useId();

  const onKeyDown = (e: KeyboardEvent, i: number) => {
    let next: number;
    if (e.key === 'ArrowRight') next = (i + 1) % TABS.length;
    else if (e.key === 'ArrowLeft') next = (i - 1 + TABS.length) % TABS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = TABS.length - 1;
    else return;
    e.preventDefault();
    setTab(TABS[next]!);
    refs.current[next]?.focus();
  };

  const needsBundle = <p className="muted import-needs-bundle">{s.panel.chooseBundle}</p>;

  return (
    <section className="import-panel" aria-labelledby={`${id}-title`} data-testid="import-panel">
      <h2 id={`${id}-title`}>{s.panel.title}</h2>
      <div role="tablist" aria-label={s.panel.title} className="tabs">
        {TABS.map((name, i) => (
          <button
            key={name}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${name}`}
            data-testid={`import-tab-${name}`}
            aria-selected={tab === name}
            aria-controls={`${id}-panel-${name}`}
            tabIndex={tab === name ? 0 : -1}
            className={tab === name ? 'tab active' : 'tab'}
            onClick={() => setTab(name)}
            onKeyDown={(e) => onKeyDown(e, i)}
          >
            {s.panel.tabs[name]}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel-curl`} aria-labelledby={`${id}-tab-curl`} hidden={tab !== 'curl'} className="import-tabpanel">
        {bundleId ? <CurlImport key={bundleId} bundleId={bundleId} /> : needsBundle}
      </div>
      <div role="tabpanel" id={`${id}-panel-openapi`} aria-labelledby={`${id}-tab-openapi`} hidden={tab !== 'openapi'} className="import-tabpanel">
        {bundleId ? <OpenApiImport key={bundleId} bundleId={bundleId} text={openApiText} onTextChange={setOpenApiText} /> : needsBundle}
      </div>
      <div role="tabpanel" id={`${id}-panel-bundle`} aria-labelledby={`${id}-tab-bundle`} hidden={tab !== 'bundle'} className="import-tabpanel">
        <BundleTransfer bundleId={bundleId} />
        <DropInFolder />
      </div>
    </section>
  );
}
