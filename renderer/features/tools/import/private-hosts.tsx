/**
 * A document's private-network hosts (localhost, loopback, private and link-local addresses:
 * shared/model/proposed-hosts.ts): each named with what it is, under a box that starts
 * unticked. An allowed address is one the tools can reach, so adding one is the person's call,
 * never the document's.
 */
import type { PrivateHost } from '../../../../shared/model/proposed-hosts';
import { useOp } from '../../../api/hooks';
import { importStrings as s } from '../../../i18n/import-strings';
import { missingHosts } from './allowed-hosts';

export function PrivateHostsProposal(props: { hosts: readonly PrivateHost[]; checked: boolean; onChange: (checked: boolean) => void; testId: string }) {
  const settings = useOp('settings.get', {});
  const names = props.hosts.map((h) => h.host);
  const missing = new Set(settings.data ? missingHosts(names, settings.data.allowedHosts) : names);
  const shown = props.hosts.filter((h) => missing.has(h.host));
  if (shown.length === 0) return null;
  return (
    <div className="import-hosts" data-testid={`${props.testId}-list`}>
      <p className="help">{s.common.privateHostsNote}</p>
      <ul>
        {shown.map((h) => (
          <li key={h.host}>
            <code>{h.host}</code>: {h.why}
          </li>
        ))}
      </ul>
      <label className="inline-check">
        <input type="checkbox" data-testid={props.testId} checked={props.checked} onChange={(e) => props.onChange(e.target.checked)} />
        {s.common.addPrivateHosts(shown.length)}
      </label>
    </div>
  );
}
