/**
 * Local functions: TypeScript functions `(ctx, args, signal) => Promise<value>` registered
 * under stable ids (`files.read`, `text.regex-extract`). A `local` tool names its function
 * by id; a tool whose id is not registered is shown disabled by the store, and its file is
 * left alone (see isLocalFunctionKnown in the store).
 *
 * builtinFunctions() registers every function a built-in config in resources/bundles names;
 * tools.test.ts checks the two agree.
 */
import { AppError } from '../../../shared/errors';
import { FunctionIdSchema } from '../../../shared/model/tool';
import type { LocalFunction } from '../invoke/types';
import { createFileFunctions } from './files';
import { createMathFunctions } from './math';
import { createTextFunctions } from './text';
import { createTimeFunctions } from './time';
import { createWebFunctions } from './web';

export class LocalFunctionRegistry {
  private readonly fns = new Map<string, LocalFunction>();

  constructor(initial?: Iterable<[string, LocalFunction]>) {
    if (initial) for (const [id, fn] of initial) this.register(id, fn);
  }

  /** Registers `fn` under `id`; an invalid or already registered id is refused. */
  register(id: string, fn: LocalFunction): this {
    const parsed = FunctionIdSchema.safeParse(id);
    if (!parsed.success) {
      throw new AppError('VALIDATION_FAILED', `local function id ${JSON.stringify(String(id)).slice(0, 140)} ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
    }
    if (typeof fn !== 'function') throw new AppError('VALIDATION_FAILED', `local function '${id}' must be a function`);
    if (this.fns.has(id)) throw new AppError('CONFLICT', `local function '${id}' is already registered`);
    this.fns.set(id, fn);
    return this;
  }

  /** Removes `id` (a tool a data source registered while it ran); false when it was not registered. */
  unregister(id: string): boolean {
    return this.fns.delete(id);
  }

  get(id: string): LocalFunction | undefined {
    return this.fns.get(id);
  }

  has(id: string): boolean {
    return this.fns.has(id);
  }

  /** The registered ids, sorted. */
  ids(): string[] {
    return [...this.fns.keys()].sort();
  }
}

/**
 * Every built-in function of this folder, under the functionId its config in resources/bundles
 * names. buffer_ops (`buffers.ops`) is the routing folder's: the app registers it
 * (routing/buffer-ops.ts, registerBufferOps).
 */
export function builtinFunctions(): Map<string, LocalFunction> {
  const files = createFileFunctions();
  const text = createTextFunctions();
  const time = createTimeFunctions();
  const math = createMathFunctions();
  const web = createWebFunctions();
  return new Map<string, LocalFunction>([
    ['files.read', files.read],
    ['files.list', files.list],
    ['files.grep', files.grep],
    ['files.write', files.write],
    ['files.append', files.append],
    ['text.jsonpath', text.jsonpath],
    ['text.regex-extract', text['regex-extract']],
    ['text.diff', text.diff],
    ['text.count', text.count],
    ['time.now', time.now],
    ['time.convert', time.convert],
    ['time.date-math', time['date-math']],
    ['math.calc', math.calc],
    ['web.fetch-url', web['fetch-url']],
  ]);
}

/** A registry holding the built-in functions. */
export function builtinRegistry(): LocalFunctionRegistry {
  return new LocalFunctionRegistry(builtinFunctions());
}
