/** "Add these hosts to Settings → Allowed hosts": shared by the curl and OpenAPI imports. */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { callOrThrow } from '../../../api/client';
import { useApi, useOp } from '../../../api/hooks';
import { importStrings as s } from '../../../i18n/import-strings';

/** Hosts of `proposal` not yet in `current` (compared without case), in order, once each. */
export function missingHosts(proposal: readonly string[], current: readonly string[]): string[] {
  const have = new Set(current.map((h) => h.toLowerCase()));
  const out: string[] = [];
  for (const h of proposal) {
    const k = h.toLowerCase();
    if (!have.has(k)) {
      have.add(k);
      out.push(h);
    }
  }
  return out;
}

/** Reads the current list when called (not a cached copy), so a concurrent edit is not lost. */
export function useAddAllowedHosts(): (hosts: readonly string[]) => Promise<void> {
  const { client } = useApi();
  const qc = useQueryClient();
  return useCallback(
    async (hosts) => {
      const current = await callOrThrow(client, 'settings.get', {});
      const add = missingHosts(hosts, current.allowedHosts);
      if (add.length === 0) return;
      await callOrThrow(client, 'settings.set', { allowedHosts: [...current.allowedHosts, ...add] });
      await qc.invalidateQueries({ queryKey: ['settings.get'] });
    },
    [client, qc],
  );
}

export function HostsProposal(props: { hosts: readonly string[]; checked: boolean; onChange: (checked: boolean) => void; testId: string }) {
  const settings = useOp('settings.get', {});
  const missing = settings.data ? missingHosts(props.hosts, settings.data.allowedHosts) : [...props.hosts];
  if (props.hosts.length === 0) return null;
  return (
    <div className="import-hosts">
      {missing.length === 0 ? (
        <p className="muted" data-testid={`${props.testId}-already`}>
          {s.common.hostsAlready} <code>{props.hosts.join(', ')}</code>
        </p>
      ) : (
        <>
          <label className="inline-check">
            <input type="checkbox" data-testid={props.testId} checked={props.checked} onChange={(e) => props.onChange(e.target.checked)} />
            {s.common.addHosts(missing.join(', '))}
          </label>
          <p className="help">{s.common.hostsHelp}</p>
        </>
      )}
    </div>
  );
}
