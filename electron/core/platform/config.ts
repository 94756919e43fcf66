import type { AppInfo } from '../../../shared/model/app-info';
import type { SecretCipher } from '../secrets/cipher';
import type { Transport } from '../invoke/types';

/** What a core is opened with: a data folder, the app's shipped files, and what tests inject. */
export interface CoreConfig {
  dataDir: string;
  /** The app's shipped files; built-in bundles are read from `<resourcesDir>/bundles`. */
  resourcesDir: string;
  host: AppInfo['host'];
  /** Watch the data folder for other processes' writes (default true). */
  watch?: boolean;
  /** Run stream sources (memory folder watchers) in this process (default true; the CLI passes false). */
  streams?: boolean;
  /** How secrets are encrypted at rest; default: AES-GCM with a key file in the data folder. */
  secretCipher?: SecretCipher;
  /** The transport HTTP tools use (tests may pass one with a custom DNS lookup). */
  transport?: Transport;
  /** Injectable for tests. */
  now?: () => Date;
  /** False in a process beside a running app on the same data folder (`toolsmith mcp`): leave its running calls and tasks alone. */
  recoverInterrupted?: boolean;
  /** MCP servers' back-off after a failure and largest message (tests shorten and shrink them). */
  mcpClient?: { backoffMs?: number; maxMessageBytes?: number; openUrl?: (url: string) => void | Promise<void>; cancelWatchAfterMs?: number };
  /** How documents' model summaries wait and run (tests shorten the wait). */
  documentSummaries?: { debounceMs?: number; concurrency?: number };
  /** Script tools' sandbox workers: how many at once, how long an idle one is kept, the grace before one is ended (tests shorten it). */
  scriptTools?: { maxWorkers?: number; nestedWorkers?: number; idleMs?: number; graceMs?: number; dropInDebounceMs?: number };
  /** Opens a file with the system's application (Electron's shell.openPath, xdg-open); absent: UNAVAILABLE. */
  openPath?: (absPath: string) => Promise<void>;
}
