/**
 * Import and export: a bundle as a ZIP (base64 through the contract), and HTTP tools
 * proposed from an OpenAPI 3 document. The curl recipe builder is pure and runs in the
 * renderer (shared/model/curl.ts); what it proposes is saved with tools.put.
 */
import { AppError } from '../../../shared/errors';
import { v7 as uuidv7 } from 'uuid';
import type { Handler } from '../router';
import type { ToolStore } from '../bundles/tool-store';
import type { TestCaseStore } from '../testcases/test-case-store';
import type { EvalCaseStore } from '../evals/eval-case-store';
import { parseOpenApi } from './openapi';
import { exportBundle, importBundle } from './zip';

type TransferOps = 'transfer.exportBundle' | 'transfer.importBundle' | 'transfer.parseOpenApi';

export interface TransferDeps {
  store: ToolStore;
  /** The saved test cases that travel with a bundle's tools. */
  testCases: TestCaseStore;
  /** The eval cases that travel with a bundle. */
  evalCases: EvalCaseStore;
  /** Id of an imported bundle (a UUIDv7); tests pass their own. */
  newId?: () => string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Strict base64: Buffer.from would skip any character it does not know. */
export function decodeBase64(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, '');
  if (!BASE64.test(clean) || clean.length % 4 !== 0) {
    throw new AppError('VALIDATION_FAILED', 'the archive must be sent as base64 (A–Z, a–z, 0–9, +, /, = padding)', { field: 'base64' });
  }
  const bytes = Buffer.from(clean, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function transferHandlers(deps: TransferDeps): { [N in TransferOps]: Handler<N> } {
  const newId = deps.newId ?? (() => uuidv7());
  return {
    'transfer.exportBundle': async ({ bundleId }) => {
      const { fileName, bytes } = await exportBundle(deps.store, deps.testCases, bundleId, deps.evalCases);
      return { fileName, base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
    },
    'transfer.importBundle': ({ base64 }) => importBundle(deps.store, decodeBase64(base64), { newId, testCases: deps.testCases, evalCases: deps.evalCases }),
    'transfer.parseOpenApi': ({ text }) => parseOpenApi(text),
  };
}
