/**
 * The tools the OpenAPI import saves: each chosen proposal without the optional arguments
 * the user cleared, its server variables filled; and the hosts to allow, filled the same way.
 * Throws an Error naming the first variable that is not filled (nothing is saved then).
 */
import { dropArguments, fillServerVariables, fillVariables } from '../../../../shared/model/openapi-proposal';
import type { OpenApiOperation } from '../../../../shared/model/transfer';

export interface Prepared {
  operations: OpenApiOperation[];
  hosts: string[];
}

export function prepareImport(
  chosen: readonly OpenApiOperation[],
  hostsProposal: readonly string[],
  dropped: ReadonlyMap<string, ReadonlySet<string>>,
  variables: Readonly<Record<string, string>>,
): Prepared {
  const operations = chosen.map((op) => {
    const without = dropArguments(op.tool, dropped.get(op.key) ?? []);
    return { ...op, tool: fillServerVariables(without, variables) };
  });
  return { operations, hosts: hostsProposal.map((h) => fillVariables(h, variables)) };
}
