/**
 * Builds a ModelClient for a saved provider: the openai client for OpenAI-compatible
 * endpoints, @anthropic-ai/sdk for Anthropic. One client per provider version (id and
 * updatedAt); the key is read from the secret store on every call, for the base URL's host
 * only, so a key changed or removed in Settings takes effect at once.
 */
import { AppError } from '../../../../shared/errors';
import type { Provider } from '../../../../shared/model/provider';
import { createRedactor } from '../../secrets/redact';
import type { SecretStore } from '../../secrets/secret-store';
import type { ModelClient, ModelClientFactory } from '../types';
import { AnthropicModelClient } from './anthropic-client';
import { OpenAIModelClient, type ClientConnection } from './openai-client';
import { keyHost, keyName, type ProviderStore } from './provider-store';

export interface ProviderClientsOptions {
  providers: ProviderStore;
  secrets: SecretStore;
  /** For tests: the fetch the client libraries use. */
  fetch?: typeof fetch;
  /** How long a streamed reply may stay silent (default STREAM_IDLE_TIMEOUT_MS, 120 s). */
  idleTimeoutMs?: number;
}

export class ProviderClients implements ModelClientFactory {
  private readonly cache = new Map<string, { version: string; client: ModelClient }>();
  private readonly redact: (text: string) => string;

  constructor(private readonly opts: ProviderClientsOptions) {
    this.redact = createRedactor(() => opts.secrets.values());
  }

  forProvider(providerId: string): ModelClient {
    const p = this.opts.providers.require(providerId);
    const version = `${p.kind} ${p.baseUrl} ${p.updatedAt}`;
    const hit = this.cache.get(providerId);
    if (hit && hit.version === version) return hit.client;
    const conn: ClientConnection = {
      baseUrl: p.baseUrl,
      key: () => this.keyFor(providerId, p.baseUrl),
      redact: this.redact,
      ...(this.opts.fetch ? { fetch: this.opts.fetch } : {}),
      ...(this.opts.idleTimeoutMs !== undefined ? { idleTimeoutMs: this.opts.idleTimeoutMs } : {}),
    };
    const client = p.kind === 'anthropic' ? new AnthropicModelClient(conn) : new OpenAIModelClient(conn);
    this.cache.set(providerId, { version, client });
    return client;
  }

  /**
   * How to reach a saved provider outside a chat (tool search's embeddings): its kind, base
   * URL, the key read at each call for the base URL's host, and the redactor. NOT_FOUND when
   * there is no such provider.
   */
  connection(providerId: string): { kind: Provider['kind']; baseUrl: string; key: () => string | undefined; redact: (text: string) => string } {
    const p = this.opts.providers.require(providerId);
    return { kind: p.kind, baseUrl: p.baseUrl, key: () => this.keyFor(providerId, p.baseUrl), redact: this.redact };
  }

  /** The stored key for the base URL's host; undefined when none is stored. */
  private keyFor(providerId: string, baseUrl: string): string | undefined {
    const name = keyName(providerId);
    if (!this.opts.secrets.list().some((s) => s.name === name)) return undefined;
    try {
      return this.opts.secrets.resolve(name, keyHost(baseUrl));
    } catch (e) {
      if (e instanceof AppError && e.code === 'FORBIDDEN') {
        throw new AppError('FORBIDDEN', `the stored key of this provider is not bound to ${keyHost(baseUrl)}: enter the key again in Settings → Models`, {
          providerId,
        });
      }
      throw e;
    }
  }
}
