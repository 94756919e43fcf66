/**
 * Where to drop a tool's files to have them registered (the data folder's drop-in folder,
 * AppInfo.dropInDir), what to drop there, and a Copy button for the path. Shown in Settings →
 * Script tools and beside the Tools screen's bundle import.
 *
 *   <DropInFolder headingLevel={3} />
 */
import { useId, useState } from 'react';
import { useOp } from '../api/hooks';
import { scriptStrings } from '../i18n/script-strings';
import './drop-in-folder.css';

const s = scriptStrings.settings;

export function DropInFolder({ headingLevel = 3 }: { headingLevel?: 3 | 4 }) {
  const ids = useId();
  const info = useOp('app.info', {});
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const dir = info.data?.dropInDir;
  if (!dir) return null;
  const Heading = headingLevel === 3 ? 'h3' : 'h4';
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(dir);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <section className="drop-in-folder" aria-labelledby={`${ids}-title`} data-testid="drop-in-folder">
      <Heading id={`${ids}-title`}>{s.dropIn}</Heading>
      <div className="drop-in-path">
        <code data-testid="drop-in-path">{dir}</code>
        <button type="button" onClick={() => void copy()} data-testid="drop-in-copy">
          {s.copy}
        </button>
        <span role="status" className={copied === 'failed' ? 'field-error' : 'status-ok'}>
          {copied === 'copied' ? s.copied : copied === 'failed' ? s.copyFailed : ''}
        </span>
      </div>
      <p className="help">{s.dropInHelp}</p>
    </section>
  );
}
