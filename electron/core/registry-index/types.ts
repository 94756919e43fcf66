import type { Tier } from './ranking';

export type { Tier } from './ranking';

/** The fingerprint of the JSON file a tool was read from. */
export interface SourceFingerprint {
  path: string;
  mtimeMs: number;
  size: number;
}

/** One tool as the index sees it. The flat JSON files are the truth; this is derived. */
export interface IndexedTool {
  id: string;
  bundleId: string;
  slug: string;
  version: string;
  displayName: string;
  description: string;
  tags: string[];
  /** Effective: the tool AND its bundle are enabled, and the bundle is not soft-deleted. */
  enabled: boolean;
  /** ISO timestamp; the recency order. */
  modifiedAt: string;
  source?: SourceFingerprint;
  /** The full tool JSON, cached so a warm open needs no file reads. */
  doc?: string;
}

export interface SearchRequest {
  /** Free text; '' (or only '+') lists everything by recency. A leading '+' is ignored. */
  q?: string;
  includeDisabled?: boolean;
  /** 1..100, default 20. */
  pageSize?: number;
  /** From a previous result with the same q and includeDisabled. */
  pageToken?: string;
}

export interface SearchHit {
  id: string;
  tier: Tier;
}

export interface SearchResult {
  items: SearchHit[];
  /** Absent on the last page. */
  nextPageToken?: string;
  recommendedPageSize: number;
}

export interface FingerprintEntry {
  mtimeMs: number;
  size: number;
  id: string;
}

/** What the index holds of a tool that came from a file: the file's fingerprint, the cached doc, the indexed enabled state. */
export interface IndexedSource {
  path: string;
  mtimeMs: number;
  size: number;
  id: string;
  enabled: boolean;
  doc: string;
}
