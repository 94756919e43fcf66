/**
 * Compile-time checks of the handler table: `npm run typecheck` fails if a missing or an
 * extra handler compiles (each @ts-expect-error must find its error). The runtime
 * assertions keep Vitest honest about the file.
 */
import { describe, expect, it } from 'vitest';
import { operationNames } from '../../shared/contract';
import { defineHandlers, type HandlerTable } from './router';

/** A table with every operation of the contract, whatever it grows to. */
function completeTable(): HandlerTable {
  return Object.fromEntries(operationNames.map((n) => [n, () => undefined])) as unknown as HandlerTable;
}

describe('handler table typing', () => {
  it('accepts exactly the contract and rejects missing or extra handlers at compile time', () => {
    const complete = completeTable();
    expect(Object.keys(defineHandlers(complete)).sort()).toEqual([...operationNames].sort());

    const { 'settings.set': _omitted, ...missing } = complete;
    // @ts-expect-error 'settings.set' is missing
    defineHandlers(missing);

    // @ts-expect-error 'app.nothing' is not in the contract
    defineHandlers({ ...complete, 'app.nothing': () => 1 });

    expect(Object.keys(missing)).not.toContain('settings.set');
  });
});
