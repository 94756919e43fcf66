/**
 * A routed result's manifest, exactly as the core wrote it, with its destination as a
 * button that opens the buffer or the workspace file in the inspector.
 */
import type { Manifest } from '../../../shared/model/routing';
import { chatStrings as s } from '../../i18n/chat-strings';
import { useUi, type InspectTarget } from '../../stores/ui';
import { splitManifest } from './format';

function targetOf(m: Manifest): InspectTarget | null {
  switch (m.target.kind) {
    case 'variable':
      return { kind: 'buffer', ownerId: m.target.ownerId, name: m.target.name };
    case 'file':
      return { kind: 'file', path: m.target.path };
    default:
      return null;
  }
}

/** The destination as a button (or plain text for `discard`). */
export function ManifestLink({ manifest }: { manifest: Manifest }) {
  const openInspector = useUi((st) => st.openInspector);
  const target = targetOf(manifest);
  if (!target) return <span className="manifest-dest">{manifest.destination}</span>;
  return (
    <button
      type="button"
      className="link-button manifest-link"
      data-testid="manifest-link"
      aria-label={s.manifest.open(manifest.destination)}
      title={s.manifest.open(manifest.destination)}
      onClick={() => openInspector(target)}
    >
      {manifest.destination}
    </button>
  );
}

/** The manifest's text (first line with the linked destination, then `paths: ...` if any). */
export function ManifestView({ manifest }: { manifest: Manifest }) {
  const nl = manifest.text.indexOf('\n');
  const first = nl === -1 ? manifest.text : manifest.text.slice(0, nl);
  const rest = nl === -1 ? '' : manifest.text.slice(nl + 1);
  const parts = splitManifest(first, manifest.destination);
  return (
    <div className="manifest" data-testid="manifest">
      <p className="manifest-line">
        {parts ? (
          <>
            <code>{parts.before}</code>
            <ManifestLink manifest={manifest} />
            <code>{parts.after}</code>
          </>
        ) : (
          <>
            <code>{first}</code> <ManifestLink manifest={manifest} />
          </>
        )}
      </p>
      {rest && <pre className="manifest-rest">{rest}</pre>}
    </div>
  );
}
