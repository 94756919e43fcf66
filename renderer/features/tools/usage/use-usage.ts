/**
 * Usage figures from the core: read when a view mounts, and again when the invocation log has
 * written calls of the tool ('invocations.logged', api/invalidation.ts).
 */
import { useMemo } from 'react';
import type { ToolUsageSummary } from '../../../../shared/model/usage';
import { useOp } from '../../../api/hooks';
import { userTimeZone } from './format';

const FRESH_ON_MOUNT = { staleTime: 0, refetchOnMount: 'always' } as const;

/** One request for every tool shown: a summary per tool id. */
export function useUsageSummaries(toolIds: readonly string[]): Map<string, ToolUsageSummary> {
  // The same ids in the same order are the same request, whatever array carries them.
  const joined = toolIds.join('\u0000');
  const ids = useMemo(() => (joined ? [...new Set(joined.split('\u0000'))].slice(0, 500) : []), [joined]);
  const timeZone = useMemo(() => userTimeZone(), []);
  const q = useOp('tools.usageSummaries', { toolIds: ids, timeZone }, { ...FRESH_ON_MOUNT, enabled: ids.length > 0 });
  return useMemo(() => new Map((q.data?.items ?? []).map((i) => [i.toolId, i])), [q.data]);
}

export function useUsageStats(ref: { bundleId: string; slug: string; version: string }) {
  const timeZone = useMemo(() => userTimeZone(), []);
  return useOp('tools.usageStats', { ...ref, timeZone }, FRESH_ON_MOUNT);
}
