/**
 * The editor's types: the ctx declaration and each template's `Args` type-check every template
 * as JavaScript with checkJs (what Monaco shows as you type), and a mistake is caught.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { argsDeclaration, SCRIPT_CTX_DECLARATION, SCRIPT_TEMPLATES } from './script-ctx';

/** The errors TypeScript finds in `source` (a .js file) with the declarations beside it. */
function check(source: string, argSchema: unknown): string[] {
  const files: Record<string, string> = { '/ctx.d.ts': SCRIPT_CTX_DECLARATION, '/args.d.ts': argsDeclaration(argSchema), '/script.js': source };
  const options: ts.CompilerOptions = { allowJs: true, checkJs: true, noEmit: true, strict: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (f) => files[f] ?? read(f);
  host.fileExists = (f) => f in files || exists(f);
  host.getSourceFile = ((get) => (f, v) => (f in files ? ts.createSourceFile(f, files[f]!, v, true) : get(f, v)))(host.getSourceFile.bind(host));
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('the script editor’s types', () => {
  it.each(SCRIPT_TEMPLATES.map((t) => [t.id, t] as const))('template %s type-checks with ctx and its Args', (_id, t) => {
    expect(check(t.source, t.argSchema)).toEqual([]);
  });

  it('catch a misspelt ctx method and a wrong use of args', () => {
    const errors = check('/** @param {Args} args @param {ToolContext} ctx */\nfunction run(args, ctx) { ctx.fecth("x"); return args.count.toUpperCase(); }', {
      type: 'object',
      properties: { count: { type: 'integer' } },
      required: ['count'],
    });
    expect(errors.join('\n')).toMatch(/fecth/);
    expect(errors.join('\n')).toMatch(/toUpperCase/);
  });

  it('writes Args from an argSchema: required and optional, enums, arrays, nested objects, odd names', () => {
    expect(
      argsDeclaration({
        type: 'object',
        properties: {
          city: { type: 'string', description: 'Where' },
          units: { enum: ['metric', 'imperial'] },
          days: { type: 'array', items: { type: 'integer' } },
          'x-opt': { type: 'object', properties: { deep: { type: ['string', 'null'] } }, required: ['deep'] },
        },
        required: ['city'],
      }),
    ).toBe(
      [
        "/** The arguments of this tool's run(args, ctx), from its argSchema. */",
        'type Args = {',
        '  /** Where */',
        '  city: string;',
        '  units?: "metric" | "imperial";',
        '  days?: Array<number>;',
        '  "x-opt"?: {',
        '    deep: string | null;',
        '  };',
        '};',
        '',
      ].join('\n'),
    );
    expect(argsDeclaration({})).toContain('type Args = unknown;');
    expect(argsDeclaration({ type: 'object' })).toContain('type Args = Record<string, unknown>;');
  });
});
