/**
 * The tools the OpenAPI import saves: each chosen proposal without the optional arguments
 * the user cleared, its server variables filled; and the hosts to allow, filled the same way
 * and split by the importers' rule (shared/model/proposed-hosts.ts): the public ones, added
 * when the box is ticked, and the private-network ones (localhost, loopback, private and
 * link-local addresses), added only when the person ticks their own box.
 * Throws an Error naming the first variable that is not filled (nothing is saved then).
 */
import { dropArguments, fillServerVariables, fillVariables } from '../../../../shared/model/openapi-proposal';
import { splitProposedHosts, type PrivateHost, type ProposedHosts } from '../../../../shared/model/proposed-hosts';
import type { OpenApiOperation } from '../../../../shared/model/transfer';

export interface Prepared {
  operations: OpenApiOperation[];
  /** Public hosts. */
  hosts: string[];
  /** Private-network hosts: not added unless the person asks. */
  privateHosts: PrivateHost[];
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
  const split = splitProposedHosts(hostsProposal.map((h) => fillVariables(h, variables)));
  return { operations, hosts: split.public, privateHosts: split.private };
}

/** The hosts as the panel shows them while variables are typed: filled where they can be, split by the rule. */
export function proposedHosts(hostsProposal: readonly string[], variables: Readonly<Record<string, string>>): ProposedHosts {
  return splitProposedHosts(
    hostsProposal.map((h) => {
      try {
        return fillVariables(h, variables);
      } catch {
        return h;
      }
    }),
  );
}
