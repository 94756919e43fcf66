/**
 * A result too large to hold in memory, written to the tool-output store as it arrived
 * (docs/design/tool-outputs.md, spilled responses): the back-end answers this reference instead
 * of the value. The gate turns it into a stored card; the dispatcher does not check it against
 * the output schema (there is no value in memory to check).
 */

export interface StoredOutputRefInfo {
  handle: string;
  bytes: number;
  lines: number;
  tokens: number;
  tokensExact: boolean;
  /** The first characters, for the card. */
  preview: string;
}

export interface StoredOutputRef {
  $storedOutput: StoredOutputRefInfo;
}

export function isStoredOutputRef(v: unknown): v is StoredOutputRef {
  // The field first: most values have none, and are told so without listing their keys.
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as StoredOutputRef).$storedOutput?.handle === 'string' && Object.keys(v).length === 1;
}

/** Where an HTTP body over `thresholdBytes` goes instead of memory (the conversation's store). */
export interface ResponseSpill {
  thresholdBytes: number;
  open(): { write(chunk: Uint8Array): void; finish(): Omit<StoredOutputRefInfo, 'preview'>; discard(): void };
}
