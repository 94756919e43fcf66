/**
 * The schema issues of a form's arguments, as the core would find them on a call
 * ('tools.checkArgs': the same ajv, defaults filled). Checked again shortly after each change;
 * `checkNow` answers the issues of the current value (Run waits for it).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useApi } from '../../../api/hooks';
import type { ArgIssue, Schema } from './schema-form';

const SETTLE_MS = 120;
const NONE: readonly ArgIssue[] = [];

export function useArgIssues(schema: Schema, value: unknown) {
  const { client } = useApi();
  const [issues, setIssues] = useState<readonly ArgIssue[]>(NONE);
  const seq = useRef(0);

  const ask = useCallback(
    async (v: unknown): Promise<readonly ArgIssue[]> => {
      try {
        const r = await client.call('tools.checkArgs', { argSchema: schema, args: v === undefined ? {} : v });
        return r.ok ? r.value.issues : NONE;
      } catch {
        // The core answers again on Run; nothing to show here.
        return NONE;
      }
    },
    [client, schema],
  );

  useEffect(() => {
    const mine = ++seq.current;
    const t = setTimeout(() => {
      void ask(value).then((found) => {
        if (seq.current === mine) setIssues(found.length ? found : NONE);
      });
    }, SETTLE_MS);
    return () => clearTimeout(t);
  }, [ask, value]);

  const checkNow = useCallback(async () => {
    const mine = ++seq.current;
    const found = await ask(value);
    if (seq.current === mine) setIssues(found.length ? found : NONE);
    return found;
  }, [ask, value]);

  return { issues, checkNow };
}

/** Arguments typed in the tester, by tool, for as long as the window lives: leaving the Tools screen and coming back finds them. */
const typedArgs = new Map<string, unknown>();
const MAX_REMEMBERED = 100;

export function useTesterArgs(bundleId: string, slug: string, init: () => unknown): [unknown, (v: unknown) => void] {
  const key = `${bundleId}\u0000${slug}`;
  const [args, setState] = useState<unknown>(() => (typedArgs.has(key) ? typedArgs.get(key) : init()));
  const setArgs = useCallback(
    (v: unknown) => {
      typedArgs.delete(key);
      if (typedArgs.size >= MAX_REMEMBERED) typedArgs.delete(typedArgs.keys().next().value as string);
      typedArgs.set(key, v);
      setState(v);
    },
    [key],
  );
  return [args, setArgs];
}
