/**
 * The `toolsmith` command line, read in this process: every command refuses an option it does
 * not take and an argument too many (exit 2, before it opens any data folder), and `help` shows
 * the help of the very command named. (The command as a child process: ../cli.test.ts.)
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../core/testing/temp-dir';
import { useCapturedOutput } from '../testing/captured-output';
import { buildProgram, runCli } from './program';

const tempDir = useTempDirs();

const io = useCapturedOutput();

/** Every command that runs something, as the words that name it: ['tools', 'list'], ['serve'], … */
function leaves(cmd: Command, words: string[] = []): { words: string[]; cmd: Command }[] {
  if (cmd.commands.length === 0) return [{ words, cmd }];
  return cmd.commands.flatMap((c) => leaves(c, [...words, c.name()]));
}

/** Values for a command's required arguments and options, so that only the word under test is wrong. */
function required(cmd: Command): string[] {
  const args = cmd.registeredArguments.filter((a) => a.required).map((a) => (a.name() === 'tool' ? 'text/count' : a.name() === 'shell' ? 'bash' : 'x'));
  const opts = cmd.options.filter((o) => o.mandatory).flatMap((o) => [o.long!, 'x']);
  return [...args, ...opts];
}

describe('toolsmith: a command line it does not take is bad usage', () => {
  it('every command refuses an unknown option (a misspelt --data-dir) and an extra argument with exit 2, naming it, and opens no data folder', async () => {
    const dir = await tempDir();
    const misspelt = path.join(dir, 'misspelt');
    // With the right --data-dir too: a command that ignored the misspelt one would open `dir`.
    const folder = path.join(dir, 'data');
    const all = leaves(buildProgram(() => undefined));
    expect(all.map((l) => l.words.join(' '))).toEqual(expect.arrayContaining(['tools list', 'bundles export', 'import curl', 'invoke', 'test', 'serve', 'mcp', 'completion']));
    for (const { words, cmd } of all) {
      const takesDataDir = cmd.options.some((o) => o.long === '--data-dir');
      io.err = '';
      const code = await runCli([...words, '--data-dri', misspelt, ...required(cmd), ...(takesDataDir ? ['--data-dir', folder] : [])]);
      expect([code, io.err], words.join(' ')).toEqual([2, expect.stringContaining("unknown option '--data-dri'")]);
      expect(io.err, words.join(' ')).toContain('(Did you mean --data-dir?)');

      const variadic = cmd.registeredArguments.some((a) => a.variadic);
      if (!variadic) {
        io.err = '';
        const extra = await runCli([...words, ...required(cmd), 'surplus', ...(takesDataDir ? ['--data-dir', folder] : [])]);
        expect([extra, io.err], words.join(' ')).toEqual([2, expect.stringContaining(`too many arguments for '${cmd.name()}'`)]);
      }
    }
    expect(await fs.readdir(dir)).toEqual([]);
    expect(io.out).toBe('');
  });

  it('help COMMAND shows that command’s help; an unknown name or an option there is bad usage', async () => {
    for (const argv of [
      ['help', 'tools', 'list'],
      ['tools', 'help', 'list'],
    ]) {
      io.out = '';
      expect(await runCli(argv), argv.join(' ')).toBe(0);
      expect(io.out, argv.join(' ')).toContain('Usage: toolsmith tools list [options]');
    }
    io.out = '';
    expect(await runCli(['help', 'import', 'curl'])).toBe(0);
    expect(io.out).toContain('Usage: toolsmith import curl [options] <command>');

    const refused: [string[], string][] = [
      [['help', 'tools', 'list', '--data-dri', 'x'], "unknown option '--data-dri' for 'help'"],
      [['help', '--bogus'], "unknown option '--bogus' for 'help'"],
      [['help', 'tols'], "unknown command 'tols' for 'toolsmith'"],
      [['help', 'tools', 'list', 'surplus'], "unknown command 'surplus' for 'toolsmith tools list'"],
      [['tools', 'help', 'lst'], "unknown command 'lst' for 'toolsmith tools'"],
    ];
    for (const [argv, message] of refused) {
      io.out = '';
      io.err = '';
      expect([await runCli(argv), io.out], argv.join(' ')).toEqual([2, '']);
      expect(io.err, argv.join(' ')).toContain(message);
    }
  });
});
