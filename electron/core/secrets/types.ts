/** What the secret store gives the rest of the core: values for a host, and their redaction. */

export interface SecretResolver {
  /** The secret's value for a request to `host` (lowercase, no port); throws FORBIDDEN if not bound to it, NOT_FOUND if unknown. */
  resolve(name: string, host: string): string;
  /** Every secret value currently known, to redact from anything shown or stored. */
  values(): string[];
}

/** Replaces every known secret value in a text with `[redacted]`. */
export type Redact = (text: string) => string;
