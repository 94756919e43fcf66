// Types of layers.js (the local ESLint rules), for scripts/layers.ts and the tests.
import type { ESLint } from 'eslint';

/** Each unit (a folder, or a file directly in a container) and the units it may import. */
export type LayersTable = Record<string, readonly string[]>;

export const ROOT: string;
export const CONTAINERS: readonly string[];
export const ROOMS: readonly string[];
export function repoPath(abs: string, root?: string): string | undefined;
export function isTestCode(rel: string): boolean;
export function isProductCode(rel: string): boolean;
export function unitOf(rel: string, isDir?: boolean): string | undefined;
export function resolveImport(fromAbs: string, spec: string, root?: string): { rel: string; isDir: boolean } | undefined;
export function importedUnit(fromAbs: string, spec: string, root?: string): string | undefined;
export function misplacedSupport(rel: string): string | undefined;

declare const plugin: ESLint.Plugin;
export default plugin;
