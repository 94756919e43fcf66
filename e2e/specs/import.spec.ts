/**
 * Import and export (renderer/features/tools/import): the contract calls the panel makes,
 * against the headless host's API, then the same flows clicked through the panel on the
 * Tools screen.
 */
import { curlToTool, parseCurl } from '../../shared/model/curl';
import type { RunningHost } from '../fixtures/host';
import { expect, test } from '../fixtures';

type Envelope<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };
interface Report {
  bundleId?: string;
  bundleSlug?: string;
  imported: string[];
  conflicts: string[];
  invalid: { entry: string; message: string }[];
  nothingImported: boolean;
}

const headers = (host: RunningHost) => ({ Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' });

async function rpc<T>(host: RunningHost, name: string, input: unknown): Promise<Envelope<T>> {
  const r = await fetch(`${host.url}rpc/${name}`, { method: 'POST', headers: headers(host), body: JSON.stringify(input) });
  return (await r.json()) as Envelope<T>;
}

async function value<T>(host: RunningHost, name: string, input: unknown): Promise<T> {
  const r = await rpc<T>(host, name, input);
  if (!r.ok) throw new Error(`${name} failed: ${r.error.code} ${r.error.message}`);
  return r.value;
}

async function rest(host: RunningHost, method: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${host.url}tools/${path}`, { method, headers: headers(host), body: JSON.stringify(body) });
}

const httpTool = (displayName: string, path: string) => ({
  displayName,
  description: `${displayName} for a city`,
  tags: ['weather'],
  type: 'http',
  argSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  outputSchema: { type: 'object' },
  http: { method: 'GET', urlTemplate: `https://api.weather.example/${path}?city=\${city}` },
  isEnabled: true,
});

async function toolsIn(host: RunningHost, bundleId: string): Promise<{ slug: string; version: string; displayName: string }[]> {
  const page = await value<{ items: { slug: string; version: string; displayName: string }[] }>(host, 'tools.list', { bundleIds: [bundleId], includeDisabled: true, pageSize: 100 });
  return page.items.map(({ slug, version, displayName }) => ({ slug, version, displayName })).sort((a, b) => a.slug.localeCompare(b.slug));
}

test.describe('import and export through the API', () => {
  test('a bundle exported as a ZIP imports back as a new bundle with the same tools', async ({ host }) => {
    test.skip(!host, 'needs the headless host to call its API');
    const h = host!;
    const bundleId = '019a0000-0000-7000-8000-00000000f001';
    expect((await rest(h, 'PUT', `bundles/${bundleId}`, { slug: 'e2e-transfer', displayName: 'Transfer', description: 'Round trip', isEnabled: true })).status).toBe(200);
    expect((await rest(h, 'PUT', `bundles/${bundleId}/tools/forecast/version/1`, httpTool('Forecast', 'forecast'))).status).toBe(201);
    expect((await rest(h, 'PUT', `bundles/${bundleId}/tools/alerts/version/1`, httpTool('Alerts', 'alerts'))).status).toBe(201);

    // "Export bundle": the panel downloads fileName with these bytes.
    const exported = await value<{ fileName: string; base64: string }>(h, 'transfer.exportBundle', { bundleId });
    expect(exported.fileName).toMatch(/\.zip$/);
    const bytes = Buffer.from(exported.base64, 'base64');
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    expect(bytes.length).toBeLessThan(6 * 1024 * 1024);

    // "Import bundle": the same bytes, as base64, come back as a new bundle.
    const report = await value<Report>(h, 'transfer.importBundle', { base64: bytes.toString('base64') });
    expect(report.nothingImported).toBe(false);
    expect([...report.imported].sort()).toEqual(['alerts@1', 'forecast@1']);
    expect(report.conflicts).toEqual([]);
    expect(report.invalid).toEqual([]);
    expect(report.bundleId).toBeTruthy();
    expect(report.bundleId).not.toBe(bundleId);
    expect(await toolsIn(h, report.bundleId!)).toEqual(await toolsIn(h, bundleId));
  });

  test('an archive that is not a ZIP is reported and nothing is imported', async ({ host }) => {
    test.skip(!host, 'needs the headless host to call its API');
    const before = await value<{ items: unknown[] }>(host!, 'bundles.list', { includeDisabled: true, includeDeleted: true, pageSize: 100 });
    const report = await value<Report>(host!, 'transfer.importBundle', { base64: Buffer.from('this is not a zip archive').toString('base64') });
    expect(report.nothingImported).toBe(true);
    expect(report.imported).toEqual([]);
    expect(report.invalid.length).toBeGreaterThan(0);
    expect(report.invalid[0]!.message).not.toBe('');
    const after = await value<{ items: unknown[] }>(host!, 'bundles.list', { includeDisabled: true, includeDeleted: true, pageSize: 100 });
    expect(after.items.length).toBe(before.items.length);
  });

  test('a curl command and OpenAPI operations become tools; a second save is a conflict', async ({ host }) => {
    test.skip(!host, 'needs the headless host to call its API');
    const h = host!;
    const bundleId = '019a0000-0000-7000-8000-00000000f002';
    expect((await rest(h, 'PUT', `bundles/${bundleId}`, { slug: 'e2e-recipes', displayName: 'Recipes', description: 'From curl and OpenAPI', isEnabled: true })).status).toBe(200);

    // "From curl": parseCurl + curlToTool run in the renderer; "Create tool" saves the body.
    const proposal = curlToTool(parseCurl(`curl -H 'Accept: application/json' 'https://api.weather.example/v1/cities/42/forecast?days=3'`));
    expect(proposal.hostsProposal).toEqual(['api.weather.example']);
    const put = { bundleId, slug: proposal.suggestedSlug, version: '1', body: proposal.tool };
    const saved = await rpc<{ slug: string }>(h, 'tools.put', put);
    expect(saved.ok).toBe(true);
    const again = await rpc(h, 'tools.put', put);
    expect(again.ok ? 'saved twice' : again.error.code).toBe('CONFLICT');
    // A shell substitution is refused before anything is sent.
    expect(() => parseCurl('curl https://api.weather.example/$(whoami)')).toThrow(/command substitution/);

    // "From OpenAPI": the core proposes one tool per operation; "Import selected" saves each.
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Pets', version: '1.0.0' },
      servers: [{ url: 'https://pets.example/v1' }],
      paths: {
        '/pets': { get: { operationId: 'listPets', summary: 'List pets', responses: { '200': { description: 'ok' } } } },
        '/pets/{petId}': {
          get: {
            operationId: 'showPet',
            summary: 'One pet',
            parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    const parsed = await value<{ hostsProposal: string[]; operations: { slug: string; tool: unknown }[] }>(h, 'transfer.parseOpenApi', { text: JSON.stringify(doc) });
    expect(parsed.hostsProposal).toContain('pets.example');
    expect(parsed.operations.map((o) => o.slug).sort()).toEqual(['list-pets', 'show-pet']);
    for (const op of parsed.operations) {
      const r = await rpc(h, 'tools.put', { bundleId, slug: op.slug, version: '1', body: op.tool });
      expect(r.ok).toBe(true);
    }
    expect((await toolsIn(h, bundleId)).map((t) => t.slug).sort()).toEqual([proposal.suggestedSlug, 'list-pets', 'show-pet'].sort());
  });
});

test.describe('the import panel', () => {
  // Enable once ImportPanel is mounted on the Tools screen (for the selected bundle).
  test('imports from curl, from OpenAPI and a bundle ZIP by clicking through the panel', async ({ appPage, host }) => {
    const bundleId = '019a0000-0000-7000-8000-00000000f003';
    if (host) await rest(host, 'PUT', `bundles/${bundleId}`, { slug: 'e2e-panel', displayName: 'Panel', description: 'Clicked through', isEnabled: true });
    await appPage.getByTestId('nav-tools').click();
    await appPage.getByTestId('bundle-e2e-panel').getByRole('button', { name: /Panel/ }).click();
    const panel = appPage.getByTestId('import-panel');

    // From curl: a refused command shows an error and changes nothing.
    await panel.getByRole('tab', { name: 'From curl' }).click();
    await panel.getByTestId('curl-input').fill('curl https://api.weather.example/$(whoami)');
    await panel.getByTestId('curl-input').press('ControlOrMeta+Enter');
    await expect(panel.getByTestId('curl-error')).toContainText('command substitution');
    await expect(panel.getByTestId('curl-create')).toHaveCount(0);
    await panel.getByTestId('curl-input').fill(`curl -H 'Authorization: Bearer sk-e2e-secret-value' 'https://api.weather.example/v1/forecast?city=Paris'`);
    await panel.getByTestId('curl-preview').click();
    await expect(panel.getByTestId('curl-error')).toHaveCount(0);
    await expect(panel.getByTestId('curl-version')).toHaveValue('1');
    await panel.getByTestId('curl-slug').fill('paris-forecast');
    // The token is offered as a secret by name; the preview never shows its value.
    await expect(panel.getByTestId('curl-proposal')).not.toContainText('sk-e2e-secret-value');
    await panel.getByTestId('curl-create').click();
    await expect(panel.getByTestId('curl-created')).toContainText('paris-forecast');
    await panel.getByTestId('curl-create').click();
    await expect(panel.getByTestId('curl-error')).toContainText('already exists');

    // From OpenAPI: every operation is listed and imported one after the other.
    await panel.getByRole('tab', { name: 'From OpenAPI' }).click();
    await panel.getByTestId('openapi-input').fill(
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Pets', version: '1.0.0' },
        servers: [{ url: 'https://pets.example/v1' }],
        paths: { '/pets': { get: { operationId: 'listPets', summary: 'List pets', responses: { '200': { description: 'ok' } } } } },
      }),
    );
    await panel.getByTestId('openapi-parse').click();
    await expect(panel.getByTestId('openapi-op-list-pets')).toContainText('/pets');
    await panel.getByTestId('openapi-import').click();
    await expect(panel.getByTestId('openapi-result')).toContainText('created');
    await expect(panel.getByTestId('openapi-progress')).toHaveCount(0);

    // The text changed since it was read: Import refuses to import the old document.
    await panel.getByTestId('openapi-input').fill('openapi: 3.0.3\ninfo: {title: Other, version: "1"}\npaths: {}\n');
    await panel.getByTestId('openapi-import').click();
    await expect(panel.getByTestId('openapi-error')).toContainText('changed since its operations were read');
    // A read that fails leaves no preview of the earlier document under its error.
    await panel.getByTestId('openapi-input').fill('not: [valid');
    await panel.getByTestId('openapi-parse').click();
    await expect(panel.getByTestId('openapi-error')).toContainText('neither JSON nor valid YAML');
    await expect(panel.getByTestId('openapi-op-list-pets')).toHaveCount(0);
    await expect(panel.getByTestId('openapi-import')).toHaveCount(0);

    // Bundle ZIP: export downloads a ZIP; importing it back shows the report.
    await panel.getByRole('tab', { name: 'Bundle ZIP' }).click();
    const [download] = await Promise.all([appPage.waitForEvent('download'), panel.getByTestId('bundle-export').click()]);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);
    await panel.getByTestId('bundle-import-file').setInputFiles((await download.path())!);
    await expect(panel.getByTestId('import-report')).toContainText('paris-forecast@1');
    await panel.getByTestId('bundle-import-file').setInputFiles({ name: 'big.zip', mimeType: 'application/zip', buffer: Buffer.alloc(6 * 1024 * 1024 + 1) });
    await expect(panel.getByTestId('bundle-import-error')).toContainText('at most 6 MiB');
  });
});
