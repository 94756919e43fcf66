/**
 * Size and time limits of output routing (docs/design/routing.md, limits): buffer reads,
 * routed payloads, inputs. Internal constants, not user settings. Each block belongs to one part
 * of routing; every constant says what it bounds.
 */
import { REGEX_TIME_LIMIT_DEFAULT_MS } from '../../../shared/model/settings';

// ---- buffers (buffer-store.ts, buffer-search.ts, buffer-ops.ts, the Inspect screen) ---------

/** The most characters one `read` of a buffer returns (buffer_ops read/peek, buffers.read). */
export const BUFFER_READ_MAX_CHARS = 1024 * 1024;

/** The most lines one line-range `read` of a buffer returns. */
export const BUFFER_READ_MAX_LINES = 5000;

/** `peek` without max_chars shows this many characters. */
export const BUFFER_PEEK_DEFAULT_CHARS = 2000;

/** The largest buffer `readAll` hands over (`@input variable:NAME`); past it: PAYLOAD_TOO_LARGE. */
export const BUFFER_READ_ALL_MAX_CHARS = 128 * 1024 * 1024;

/** The largest a buffer may grow (bytes on disk, UTF-8); a write past it is PAYLOAD_TOO_LARGE. */
export const BUFFER_MAX_BYTES = 1024 * 1024 * 1024;

/** Time budget of one buffer search (regex or substring) when none is given; past it the search stops with TIMEOUT. The app passes Settings' regexTimeLimitMs. */
export const BUFFER_SEARCH_TIME_BUDGET_MS = REGEX_TIME_LIMIT_DEFAULT_MS;

/** Matches a search returns when the caller does not say; the most it may ask for. */
export const BUFFER_SEARCH_DEFAULT_MATCHES = 100;
export const BUFFER_SEARCH_MAX_MATCHES = 10_000;

/** Context lines around a match: the most a caller may ask for. */
export const BUFFER_SEARCH_MAX_CONTEXT_LINES = 20;

/** A matching line (and each context line) is cut to this many characters, with '…'. */
export const BUFFER_SEARCH_MAX_LINE_CHARS = 500;

/** The longest search query (substring or regular expression). */
export const BUFFER_SEARCH_MAX_QUERY_CHARS = 1000;

/** Buffers one owner may have; a write of a new name past it is refused. */
export const BUFFERS_PER_OWNER_MAX = 1000;

/** workspace.read: bytes returned when the caller gives no length. */
export const WORKSPACE_READ_DEFAULT_BYTES = 256 * 1024;

/** workspace.list: the most entries one folder listing returns. */
export const WORKSPACE_LIST_MAX_ENTRIES = 5000;

// ---- routing and directives (router.ts, input-sources.ts, directive-runner.ts) -------------

/** The largest payload (characters) the router writes to a buffer or a file; past it: PAYLOAD_TOO_LARGE. */
export const ROUTE_MAX_PAYLOAD_CHARS = 256 * 1024 * 1024;

/** Paths a manifest's `paths:` line names at most; the rest are counted ("and 12 more"). */
export const MANIFEST_MAX_PATHS = 50;

/** Files one `@input file:GLOB` may read at most; more matches are a directive error. */
export const INPUT_MAX_FILES = 1000;

/** Characters one `@input` may read in total (all its files, a buffer, a URL's body); past it: PAYLOAD_TOO_LARGE. */
export const INPUT_MAX_TOTAL_CHARS = 128 * 1024 * 1024;

/** Folder entries a glob walk may look at before it gives up (a `**` over a huge tree). */
export const INPUT_GLOB_MAX_ENTRIES = 200_000;

/** How deep a glob walk descends below its base folder. */
export const INPUT_GLOB_MAX_DEPTH = 32;

/** `@input url:`: the largest body read (at most fetch_url's FETCH_MAX_BYTES), and the time limit per attempt. */
export const INPUT_URL_MAX_BYTES = 10 * 1024 * 1024;
export const INPUT_URL_TIMEOUT_MS = 30_000;
