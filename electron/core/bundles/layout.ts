/**
 * Where the registry lives on disk. Everything a person may want to read or diff is
 * plain, pretty-printed JSON:
 *
 *   <data>/bundles/<bundleId>/bundle.json            one user bundle
 *   <data>/bundles/<bundleId>/tools/<name>.json      one tool version per file
 *   <data>/bundles/<bundleId>/tools/<name>.js        a script tool's source (script-files.ts)
 *   <data>/overrides/<bundleId>.json                 isEnabled of a built-in bundle and its tools
 *   <data>/usage.json                                call counts, apart from the tools
 *   <data>/locks/<key>.lock/                         lock folders (owner.json, fence; see locks.ts)
 *   <data>/quarantine/<stamp>/<relative path>        files set aside as corrupt; never loaded
 *
 * Ids are validated lowercase UUIDv7s before they name a folder, so no path can escape.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { nfc } from '../../../shared/model/validation';
import { tempPathFor } from '../lib/atomic-write';

export class StoreLayout {
  readonly bundlesDir: string;
  readonly overridesDir: string;
  readonly locksDir: string;
  readonly quarantineDir: string;
  readonly usageFile: string;
  /** Script sources the user wrote or allowed (script-trust.ts). */
  readonly scriptTrustFile: string;

  constructor(readonly dataDir: string) {
    this.bundlesDir = path.join(dataDir, 'bundles');
    this.overridesDir = path.join(dataDir, 'overrides');
    this.locksDir = path.join(dataDir, 'locks');
    this.quarantineDir = path.join(dataDir, 'quarantine');
    this.usageFile = path.join(dataDir, 'usage.json');
    this.scriptTrustFile = path.join(dataDir, 'script-trust.json');
  }

  bundleDir(bundleId: string): string {
    return path.join(this.bundlesDir, bundleId);
  }

  bundleFile(bundleId: string): string {
    return path.join(this.bundlesDir, bundleId, 'bundle.json');
  }

  toolsDir(bundleId: string): string {
    return path.join(this.bundlesDir, bundleId, 'tools');
  }

  toolFile(bundleId: string, slug: string, version: string): string {
    return path.join(this.toolsDir(bundleId), toolFileName(slug, version));
  }

  /** A script tool's source, beside its tool file. */
  scriptFile(bundleId: string, slug: string, version: string): string {
    return path.join(this.toolsDir(bundleId), toolFileName(slug, version).replace(/\.json$/, '.js'));
  }

  overrideFile(bundleId: string): string {
    return path.join(this.overridesDir, `${bundleId}.json`);
  }

  /** A path as shown in problems and messages: relative to the data folder. */
  relative(file: string): string {
    return path.relative(this.dataDir, file);
  }
}

/**
 * A tool's file name: a readable ASCII hint plus a hash of NFC(slug) and NFC(version).
 * The hash keeps `Read` and `read` apart on case-insensitive disks and makes NFC-equal
 * spellings one file, which is what the exclusive create relies on for uniqueness.
 */
export function toolFileName(slug: string, version: string): string {
  const s = nfc(slug);
  const v = nfc(version);
  const hash = createHash('sha256').update(`${s}\u0000${v}`, 'utf8').digest('hex').slice(0, 24);
  const hint = `${asciiHint(s, /[^a-z0-9-]/g, 32)}@${asciiHint(v, /[^a-z0-9.-]/g, 16)}`;
  return `${hint}.${hash}.json`;
}

function asciiHint(label: string, drop: RegExp, max: number): string {
  return label.toLowerCase().replace(drop, '').slice(0, max);
}

/**
 * Temp files (../lib/atomic-write.ts's tempPathFor) are hidden (leading dot), carry the
 * writer's pid so the sweep can tell a dead writer's leftovers from a live writer's work,
 * and never end in `.json`.
 */
export { tempPathFor };

const TEMP_NAME = /^\..+\.tmp-(\d+)-[0-9a-f]{12}$/;

/** The pid that wrote a temp file, or undefined when the name is not one of ours. */
export function tempFileOwner(name: string): number | undefined {
  const m = TEMP_NAME.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** Loadable data files: `*.json`, not hidden. Anything else in our folders is ignored. */
export function isDataFileName(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.');
}
