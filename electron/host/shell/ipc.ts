/**
 * The IPC transport: one channel for calls, one for events. Every call's sender frame
 * must be the app's own renderer; anything else is refused without reaching the core.
 */
import { fail } from '../../../shared/errors';
import type { Core } from '../../core/app';
import { CALL_CHANNEL, EVENT_CHANNEL } from './bridge';
import { isAppUrl } from '../security';

export interface IpcMainLike {
  handle(channel: string, listener: (event: { senderFrame: { url: string } | null }, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface EventSink {
  send(channel: string, message: unknown): void;
}

export function registerIpcHost(ipc: IpcMainLike, core: Core, windows: () => EventSink[], isTrusted = isAppUrl): () => void {
  ipc.handle(CALL_CHANNEL, async (event, name, input) => {
    const url = event.senderFrame?.url ?? '';
    if (!isTrusted(url)) {
      return fail('FORBIDDEN', 'calls are accepted only from the Toolsmith window');
    }
    if (typeof name !== 'string') return fail('VALIDATION_FAILED', 'operation name must be a string');
    // Structured clone already parsed the input; measure it like the text transports do.
    let text: string;
    try {
      text = input === undefined ? '{}' : JSON.stringify(input);
    } catch {
      return fail('VALIDATION_FAILED', 'input must be JSON-serialisable');
    }
    return core.router.callJson(name, text, { transport: 'ipc' });
  });
  const off = core.events.onAny((name, payload) => {
    for (const w of windows()) w.send(EVENT_CHANNEL, { name, payload });
  });
  return () => {
    off();
    ipc.removeHandler(CALL_CHANNEL);
  };
}
