/** Import and export: a bundle as a zip, and an OpenAPI document read into proposed tools. */
import { z } from 'zod';
import { ImportReportSchema, MAX_IMPORT_ZIP_BYTES, OpenApiImportSchema } from '../model/transfer';
import { Key, type EventTable, type OperationTable } from './common';

export const transferOperations = {
  'transfer.exportBundle': { input: z.object({ bundleId: Key }).strict(), output: z.object({ fileName: z.string(), base64: z.string() }).strict() },
  'transfer.importBundle': { input: z.object({ base64: z.string().max(Math.ceil((MAX_IMPORT_ZIP_BYTES * 4) / 3) + 4) }).strict(), output: ImportReportSchema },
  'transfer.parseOpenApi': { input: z.object({ text: z.string().max(4 * 1024 * 1024) }).strict(), output: OpenApiImportSchema },
} as const satisfies OperationTable;

export const transferEvents = {} as const satisfies EventTable;
