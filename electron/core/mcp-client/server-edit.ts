/**
 * A server's settings as a person changes them: the edit laid over what is saved, checked as
 * adding a server is. Settings the edit leaves out (timeouts, restarts, trust) keep their
 * values. The window shows a literal environment or header value hidden (MCP_HIDDEN_VALUE): given
 * back unchanged under the same name, it keeps the saved value, which never left the core. A
 * `${secret:NAME}` reference is shown, saved and kept as written: its value stays in the secret store.
 */
import type { z } from 'zod';
import { AppError } from '../../../shared/errors';
import { MCP_HIDDEN_VALUE, McpServerEditSchema, McpServerInputSchema, type McpServerConfig, type McpServerEdit } from '../../../shared/model/mcp-client';

/** The edited config, or VALIDATION_FAILED saying what is wrong (nothing is written before this passes). */
export function editedConfig(current: McpServerConfig, edit: McpServerEdit): McpServerConfig {
  const parsed = McpServerEditSchema.safeParse(edit);
  if (!parsed.success) throw invalid(parsed.error.issues);
  const e = parsed.data;
  const was = current.connection;
  const connection =
    e.connection.transport === 'stdio'
      ? { ...e.connection, env: keepHidden(e.connection.env, was.transport === 'stdio' ? was.env : {}, ['connection', 'env'], false) }
      : { ...e.connection, headers: keepHidden(e.connection.headers, was.transport === 'http' ? was.headers : {}, ['connection', 'headers'], true) };
  const next = McpServerInputSchema.safeParse({
    name: e.name,
    connection,
    timeouts: e.timeouts ?? current.timeouts,
    maxRestarts: e.maxRestarts ?? current.maxRestarts,
    trustUnannotatedTools: e.trustUnannotatedTools ?? current.trustUnannotatedTools,
    apps: e.apps ?? current.apps,
    appDomains: current.appDomains,
  });
  if (!next.success) throw invalid(next.error.issues);
  return next.data;
}

/** Values given back hidden take the saved value of the same name (header names match in any case). */
function keepHidden(given: Record<string, string>, saved: Record<string, string>, at: string[], anyCase: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value.trim() !== MCP_HIDDEN_VALUE) {
      out[name] = value;
      continue;
    }
    const key = Object.hasOwn(saved, name) ? name : anyCase ? Object.keys(saved).find((k) => k.toLowerCase() === name.toLowerCase()) : undefined;
    if (key === undefined) {
      throw invalid([
        {
          path: [...at, name],
          message: `'${MCP_HIDDEN_VALUE}' stands for a saved value that is kept hidden, and this server has no ${anyCase ? 'header' : 'variable'} '${name}' saved: type its value (or \${secret:NAME} for a token)`,
        },
      ]);
    }
    out[name] = saved[key]!;
  }
  return out;
}

function invalid(issues: readonly Pick<z.core.$ZodIssue, 'path' | 'message'>[]): AppError {
  const at = (i: Pick<z.core.$ZodIssue, 'path'>) => i.path.map(String).join('.');
  const first = issues[0]!;
  return new AppError('VALIDATION_FAILED', `${at(first) || 'server'}: ${first.message}`, { issues: issues.slice(0, 20).map((x) => ({ path: at(x), message: x.message })) });
}
