/**
 * Script tools (shared/model/script-tool.ts): reading a saved script's source (the registry
 * serves its SHA-256, not the source), and trusting one that was not written in this app.
 */
import { z } from 'zod';
import { Sha256HexSchema } from '../model/script-tool';
import { ToolRef, type EventTable, type OperationTable } from './common';

export const scriptToolsOperations = {
  /**
   * The source of a saved script tool, as its `.js` file holds it now, and the SHA-256 of that
   * source (what `tools.trustScript` takes back). `problem` says why it cannot run when the file
   * is missing (`source` is then '', `sha256` the one the tool records) or was changed by hand
   * after the version was saved (`source` is what the file holds).
   */
  'tools.scriptSource': {
    input: z.object(ToolRef).strict(),
    output: z.object({ source: z.string(), sha256: Sha256HexSchema, problem: z.string().optional() }).strict(),
  },
  /**
   * The user read the script of a tool that was not written in this app (an imported bundle's,
   * a dropped-in one) and allows it: it runs without asking from now on (any tool with the same
   * source does). Until then its calls are refused with FORBIDDEN, details.rule 'script-not-trusted'.
   * `sha256` is the one `tools.scriptSource` answered with the source the user read: the `.js` on
   * disk must match it and the SHA-256 the tool records, else the answer is CONFLICT and nothing
   * is trusted (read the source again).
   */
  'tools.trustScript': {
    input: z.object({ ...ToolRef, sha256: Sha256HexSchema }).strict(),
    output: z.object({ trusted: z.literal(true) }).strict(),
  },
} as const satisfies OperationTable;

export const scriptToolsEvents = {} as const satisfies EventTable;
