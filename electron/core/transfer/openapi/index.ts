/**
 * HTTP tools from an OpenAPI 3 document: every operation proposed as a ToolPutBody the user
 * picks from (and may edit) before saving.
 *
 * - document.ts reads the text within bounds and checks it is OpenAPI 3 (Swagger 2.0 is
 *   named as such: convert it first);
 * - servers.ts keeps server variables as `{name}` for the user to fill (serverVariables);
 * - operation.ts builds one proposal per path + method (get, put, post, delete, patch,
 *   head); options and trace have no HTTP tool method and are listed in `skipped`, as are
 *   operations beyond MAX_OPERATIONS;
 * - params.ts, body.ts, security.ts, schema.ts build its arguments, body, auth and schemas;
 *   budget.ts keeps each argSchema within a size budget.
 * Proposals pass ToolPutBodySchema once their server variables are filled, and their
 * argSchemas compile (checked here).
 */
import { slugify } from '../../../../shared/model/tool-naming';
import { OpenApiImportSchema, type OpenApiImport, type OpenApiOperation } from '../../../../shared/model/transfer';
import { checkShape, checkVersion, Ctx, isObject, own, readDocument, refused, str, type Json } from './document';
import { buildOperation, METHODS } from './operation';
import { hostOf, serverUrls } from './servers';

export { MAX_OPENAPI_BYTES, MAX_REF_DEPTH, MAX_YAML_ALIASES } from './document';
export { ARG_SCHEMA_BUDGET_BYTES, ARG_SCHEMA_BUDGET_NODES } from './budget';

/** Operations proposed at most; the rest are listed as skipped. */
export const MAX_OPERATIONS = 1000;
const OTHER_METHODS = ['options', 'trace'] as const;
const CONTROL = /\p{Cc}/gu;

function line(s: string, max: number): string {
  return s.replace(CONTROL, ' ').trim().slice(0, max);
}

/** Reads an OpenAPI 3 document (JSON or YAML) and proposes one HTTP tool per operation. Throws VALIDATION_FAILED or PAYLOAD_TOO_LARGE. */
export function parseOpenApi(text: string): OpenApiImport {
  const raw = readDocument(text);
  checkShape(raw);
  const doc = checkVersion(raw);
  const ctx = new Ctx(doc);
  const info = isObject(own(doc, 'info')) ? (own(doc, 'info') as Json) : {};
  const title = line(str(own(info, 'title')) ?? '', 200);
  const version = line(typeof own(info, 'version') === 'string' || typeof own(info, 'version') === 'number' ? String(own(info, 'version')) : '', 100);
  const docServers = serverUrls(own(doc, 'servers'));
  const hosts = new Set(docServers.absolute.map(hostOf));
  const variables = new Map(docServers.variables.map((v) => [v.name, v]));
  const firstHost = docServers.absolute[0] ? hostOf(docServers.absolute[0]).replace(/\{[^}]*\}\.?/g, '') : '';
  const nameHost = firstHost || slugify(title, 'api').replace(/-/g, '.');

  const operations: OpenApiOperation[] = [];
  const skipped: { key: string; reason: string }[] = [];
  const slugs = new Set<string>();
  const paths = own(doc, 'paths');
  if (paths !== undefined && !isObject(paths)) refused('"paths" must be an object of paths');
  for (const [path, item] of Object.entries((paths as Json | undefined) ?? {})) {
    const pathWarnings: string[] = [];
    const pathItem = ctx.deref(item, pathWarnings);
    if (!path.startsWith('/') || !pathItem) {
      skipped.push({ key: path.slice(0, 200), reason: !path.startsWith('/') ? 'the path does not start with /' : pathWarnings[0] ?? 'the path item is not an object' });
      continue;
    }
    for (const method of OTHER_METHODS) {
      if (isObject(own(pathItem, method))) skipped.push({ key: `${method.toUpperCase()} ${path}`, reason: `an HTTP tool cannot send ${method.toUpperCase()} requests` });
    }
    for (const method of METHODS) {
      const op = own(pathItem, method);
      if (!isObject(op)) continue;
      if (operations.length >= MAX_OPERATIONS) {
        skipped.push({ key: `${method.toUpperCase()} ${path}`, reason: `more than ${MAX_OPERATIONS} operations: split the document to import the rest` });
        continue;
      }
      const built = buildOperation(ctx, { path, method, op, pathItem, docServers, slugs, hosts, nameHost, variables });
      built.warnings.unshift(...pathWarnings);
      operations.push(built);
    }
  }

  return OpenApiImportSchema.parse({ title, version, servers: docServers.absolute, hostsProposal: [...hosts], operations, serverVariables: [...variables.values()], skipped });
}
