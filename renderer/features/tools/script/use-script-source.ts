/**
 * A script tool's source, read for the tool editor before it opens (a tool's view does not
 * carry it: tools.scriptSource). Nothing is read for a tool of another type.
 */
import type { ToolView } from '../../../../shared/model/tool';
import { useOp } from '../../../api/hooks';

export function useScriptSource(tool: ToolView | undefined) {
  const isScript = tool?.type === 'script';
  const q = useOp('tools.scriptSource', { bundleId: tool?.bundleId ?? '', slug: tool?.slug ?? '', version: tool?.version ?? '' }, { enabled: isScript });
  return {
    /** Still reading a script's source: the editor waits for it. */
    pending: isScript && q.isPending && !q.error,
    error: isScript ? q.error : null,
    source: isScript ? q.data?.source : undefined,
    retry: () => void q.refetch(),
  };
}
