/** The tool registry's search index (derived data; see README.md). */
export { ToolIndex, type OpenOptions, type RebuildOptions } from './tool-index';
export type { FingerprintEntry, IndexedSource, IndexedTool, SearchHit, SearchRequest, SearchResult, SourceFingerprint, Tier } from './types';
export { fts5Tokens, quoteFts5, toFts5Query, type Fts5QueryOptions } from './query-escape';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, RECOMMENDED_PAGE_SIZE } from './paging';
