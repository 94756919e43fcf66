/** Model providers: saved, tested, found on 127.0.0.1. */
import { AppError } from '../../../../shared/errors';
import type { ConnectionVerdict, DetectedProvider } from '../../../../shared/model/provider';
import type { Handler } from '../../router';
import type { ProviderClients } from './client-factory';
import { detectLocalProviders } from './detect';
import type { ProviderStore } from './provider-store';

type ProviderOps = 'providers.list' | 'providers.save' | 'providers.delete' | 'providers.test' | 'providers.detect';

export interface ProviderHandlerDeps {
  providers: ProviderStore;
  clients: ProviderClients;
  /** Finds local servers not yet saved; default: Ollama and LM Studio on 127.0.0.1 at their usual ports. */
  detect?: (savedBaseUrls: string[]) => Promise<DetectedProvider[]>;
  /** How long "Test connection" waits; default 15 s. */
  testTimeoutMs?: number;
}

const TEST_TIMEOUT_MS = 15_000;

export function providerHandlers(deps: ProviderHandlerDeps): { [N in ProviderOps]: Handler<N> } {
  const detect = deps.detect ?? ((saved: string[]) => detectLocalProviders({ saved }));
  return {
    'providers.list': () => deps.providers.list(),
    'providers.save': ({ id, provider }) => deps.providers.save(id, provider),
    'providers.delete': async ({ id }) => {
      await deps.providers.delete(id);
      return { deleted: true as const };
    },
    'providers.test': async ({ id }) => testConnection(deps, id),
    'providers.detect': () => detect(deps.providers.list().map((p) => p.baseUrl)),
  };
}

/** Lists the provider's models: "Connected: N models (x ms)" and the list kept, or the reason it failed. */
async function testConnection(deps: ProviderHandlerDeps, id: string): Promise<ConnectionVerdict> {
  const provider = deps.providers.require(id);
  const started = performance.now();
  const timeoutMs = deps.testTimeoutMs ?? TEST_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  let models: string[];
  try {
    models = await deps.clients.forProvider(id).listModels(signal);
  } catch (e) {
    if (signal.aborted) return { ok: false, message: `${provider.baseUrl} did not answer within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}: is the server running, or the model still loading?` };
    const message = e instanceof AppError ? e.message : `the test failed: ${e instanceof Error ? e.message : String(e)}`;
    return { ok: false, message };
  }
  const latencyMs = Math.round(performance.now() - started);
  await deps.providers.setModels(id, models);
  if (models.length === 0) {
    return {
      ok: true,
      message: `Connected (${latencyMs} ms), but the server lists no models: load or pull one (for Ollama: ollama pull llama3.2), then test again`,
      models,
      latencyMs,
    };
  }
  return { ok: true, message: `Connected: ${models.length} model${models.length === 1 ? '' : 's'} (${latencyMs} ms)`, models, latencyMs };
}
