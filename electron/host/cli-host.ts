import type { SecretCipher } from '../core/secrets/cipher';

/**
 * What the process that runs the command gives it besides the command line. Under Node: nothing.
 * The app's binary run with `--cli` (main.ts) gives the desktop app's keychain, so the command
 * reads and writes secrets as the app does, and its own way to be started.
 */
export interface CliHost {
  /** How secrets are encrypted at rest (default: the key file in the data folder). */
  secretCipher?: SecretCipher;
  /** How to start this command (its arguments follow): Settings → MCP server offers it with `mcp`. */
  cliCommand?: string[];
}
