/** Documents (docs/design/documents.md): workspace files tools wrote, with their metadata and versions. */
import { z } from 'zod';
import { DocumentInfoSchema, DocumentQuerySchema } from '../model/document';
import { type EventTable, type OperationTable } from './common';

export const documentsOperations = {
  'documents.list': { input: DocumentQuerySchema, output: z.array(DocumentInfoSchema) },
  /** One document with its versions. */
  'documents.get': { input: z.object({ path: z.string().min(1).max(4096) }).strict(), output: DocumentInfoSchema },
  /** Sets its description and tags (each given field replaces the old). */
  'documents.describe': {
    input: z.object({ path: z.string().min(1).max(4096), description: z.string().max(2000).optional(), tags: z.array(z.string().max(100)).max(50).optional() }).strict(),
    output: DocumentInfoSchema,
  },
} as const satisfies OperationTable;

export const documentsEvents = {
  /** Documents were recorded or described (workspace-relative paths). */
  'documents.changed': z.object({ paths: z.array(z.string()) }).strict(),
} as const satisfies EventTable;
