/**
 * Writes shared/contract-names.ts: the contract's operation and event names without their
 * schemas, for the preload (which must not carry zod). `npx tsx scripts/contract-names.ts`
 * (or `npm run build`) after adding or removing an operation or event, and commit the file:
 * scripts/preload-size.test.ts fails while it is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventNames, operationNames } from '../shared/contract';

export const NAMES_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'shared', 'contract-names.ts');

export function renderContractNames(ops: readonly string[] = operationNames, evs: readonly string[] = eventNames): string {
  const list = (names: readonly string[]) => names.map((n) => `  ${JSON.stringify(n).replaceAll('"', "'")},`).join('\n');
  return `/**
 * The names of the contract's operations and events, and nothing else: what the preload
 * needs to refuse an unknown name without carrying the schemas (and zod) into the window.
 * Generated from shared/contract.ts (composed of the slices in shared/contract/) by
 * \`npx tsx scripts/contract-names.ts\`; do not edit.
 */
import type { EventName, OpName } from './contract';

export const OP_NAMES = [
${list(ops)}
] as const satisfies readonly OpName[];

export const EVENT_NAMES = [
${list(evs)}
] as const satisfies readonly EventName[];

const OPS: ReadonlySet<string> = new Set(OP_NAMES);
const EVENTS: ReadonlySet<string> = new Set(EVENT_NAMES);

export function isOpName(name: unknown): name is OpName {
  return typeof name === 'string' && OPS.has(name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && EVENTS.has(name);
}
`;
}

// `npm run build` runs this too, so a built preload always knows every operation; the file
// is written only when the names changed.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = renderContractNames();
  const current = fs.existsSync(NAMES_FILE) ? fs.readFileSync(NAMES_FILE, 'utf8') : '';
  if (current !== text) {
    fs.writeFileSync(NAMES_FILE, text);
    console.log(`wrote ${path.relative(process.cwd(), NAMES_FILE)}: ${operationNames.length} operations, ${eventNames.length} events`);
  }
}
