/**
 * The `toolsmith` command tree (commander): every command, its options and its help. Each
 * action opens the core on the data folder, does one thing and closes it (session.ts);
 * `serve` and `mcp` run until stopped. Exit codes: 0 done, 1 failed, 2 bad usage.
 */
import { Command, CommanderError, Option } from 'commander';
import pkg from '../../../package.json';
import { completionScript } from './completion';
import { toolsDoctor } from './doctor-command';
import { evalCommand } from './eval-commands';
import { importCurl, importOpenApi } from './import-commands';
import { mcpServersAdd, mcpServersImport, mcpServersList, mcpServersRemove } from './mcp-servers-commands';
import { bundlesExport, bundlesImport, bundlesList, bundlesSwitch, toolsList, toolsSearch, toolsShow } from './registry-commands';
import { invoke, test } from './run-commands';
import type { CliHost } from '../cli-host';
import { CliError, EXIT, commonArgv, err, out, usageError, type CommonOptions } from './session';

/** How a command ended, when it did not end by throwing. */
type Done = number | undefined;

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** --data-dir and --resources on every command that opens the data folder, and --json on the ones that read. */
function common(cmd: Command, json = true): Command {
  cmd.option('--data-dir <dir>', 'the data folder (default: TOOLSMITH_DATA_DIR, then the app’s own)');
  cmd.addOption(new Option('--resources <dir>', 'the app’s resources folder (the built-in bundles)').hideHelp());
  if (json) cmd.option('--json', 'print JSON instead of text');
  return cmd;
}

export function buildProgram(setExit: (code: number) => void, host: CliHost = {}): Command {
  /** The options of a command with the program's (`toolsmith --data-dir X tools list`), and the host. */
  const opts = <T>(cmd: Command): T & CommonOptions => ({ ...cmd.optsWithGlobals<T & CommonOptions>(), host });
  const program = new Command('toolsmith');
  program
    .description('Toolsmith on the command line: the tool registry, calls, saved test cases, the headless host and the MCP server, over the app’s data folder.')
    .version(pkg.version, '-V, --version', 'print the version')
    .option('--data-dir <dir>', 'the data folder (default: TOOLSMITH_DATA_DIR, then the app’s own)')
    .helpCommand('help [command]', 'show the help of a command')
    .showHelpAfterError('(toolsmith --help lists the commands)')
    .exitOverride()
    .configureOutput({
      outputError: (str, write) => write(str.replace(/^error: /, 'toolsmith: ')),
    })
    .addHelpText(
      'after',
      [
        '',
        'Tools are named BUNDLE/SLUG or BUNDLE/SLUG@VERSION (without a version: the newest one switched on).',
        'Exit codes: 0 done, 1 the command failed (a failed call, a failing test or eval case, a high-severity doctor finding), 2 bad usage.',
        'Docs: docs/cli.md',
      ].join('\n'),
    );

  // ---- tools
  const tools = program.command('tools').description('list, search and show tools; check how findable they are');
  common(tools.command('list'))
    .description('list the tools (those switched on; --all for every one)')
    .option('--bundle <name>', 'only the tools of this bundle')
    .option('--tag <tag>', 'only tools with this tag (repeat for several)', collect)
    .option('--all', 'switched-off tools too')
    .action(async (_o, cmd: Command) => toolsList(opts(cmd)));
  common(tools.command('search'))
    .description('search tools by name, description and tags')
    .argument('<query>', 'what to look for')
    .option('--limit <n>', 'the most hits to show (1–100)', '20')
    .option('--all', 'switched-off tools too')
    .action(async (query: string, _o, cmd: Command) => toolsSearch(query, opts(cmd)));
  common(tools.command('show'))
    .description('show one tool: what it runs, its arguments, its versions')
    .argument('<tool>', 'BUNDLE/SLUG[@VERSION]')
    .action(async (ref: string, _o, cmd: Command) => toolsShow(ref, opts(cmd)));
  common(tools.command('doctor'))
    .description('how findable your tools are for a model’s tool search: hard-to-find tools and look-alike pairs, each with what to change (exit 1 on a high-severity finding)')
    .option('--bundle <name>', 'only report on the tools of this bundle (repeat for several); all tools are still ranked', collect)
    .action(async (_o, cmd: Command) => setExit(await toolsDoctor(opts(cmd))));

  // ---- bundles
  const bundles = program.command('bundles').description('list bundles, switch them on and off, export and import them as ZIP');
  common(bundles.command('list'))
    .description('list the bundles')
    .option('--deleted', 'deleted bundles too (kept two days)')
    .action(async (_o, cmd: Command) => bundlesList(opts(cmd)));
  common(bundles.command('enable'))
    .description('switch a bundle on: its tools can run')
    .argument('<bundle>', 'the bundle’s name or id')
    .action(async (name: string, _o, cmd: Command) => bundlesSwitch(name, true, opts(cmd)));
  common(bundles.command('disable'))
    .description('switch a bundle off: none of its tools runs')
    .argument('<bundle>', 'the bundle’s name or id')
    .action(async (name: string, _o, cmd: Command) => bundlesSwitch(name, false, opts(cmd)));
  common(bundles.command('export'))
    .description('write a bundle and its tools to a ZIP file')
    .argument('<bundle>', 'the bundle’s name or id')
    .requiredOption('--out <file>', 'the ZIP file to write')
    .action(async (name: string, _o, cmd: Command) => bundlesExport(name, opts(cmd)));
  common(bundles.command('import'))
    .description('add the bundle in a ZIP file (as exported) as a new bundle')
    .argument('<file>', 'the ZIP file')
    .action(async (file: string, _o, cmd: Command) => bundlesImport(file, opts(cmd)));

  // ---- import
  const imports = program.command('import').description('make HTTP tools from an OpenAPI document or a curl command');
  const importOptions = (cmd: Command) =>
    common(cmd)
      .option('--tool-version <version>', 'the version of the tools made', '1')
      .option('--no-allow-hosts', 'do not add the hosts to Settings → Allowed hosts (the tools cannot run until they are)')
      .option('--dry-run', 'show what would be made; write nothing');
  importOptions(imports.command('openapi'))
    .description('one HTTP tool per operation of an OpenAPI 3 document (JSON or YAML)')
    .argument('<source>', 'a file, an http(s) URL, or - for standard input')
    .option('--bundle <name>', 'the bundle to add to; made when no bundle has this name (default: the document’s title)')
    .option('--only <operation>', 'only this operation: its slug, or "METHOD /path" (repeat for several)', collect)
    .option('--var <name=value>', 'a server variable’s value, e.g. --var tenant=acme (repeat for several)', collect)
    .option('--allow-private', 'also add the document’s private-network hosts (localhost, loopback, private and link-local addresses) to Settings → Allowed hosts')
    .action(async (source: string, _o, cmd: Command) => importOpenApi(source, opts(cmd)));
  importOptions(imports.command('curl'))
    .description('an HTTP tool from a curl command (nothing is sent)')
    .argument('<command>', "the whole curl command in quotes, e.g. 'curl https://api.example.com/items?q=x', or - for standard input")
    .option('--bundle <name>', 'the bundle to add to; made when no bundle has this name (required)')
    .option('--slug <slug>', 'the tool’s slug (default: from the URL)')
    .option('--no-secrets', 'do not save the credentials found in the command as secrets')
    .action(async (command: string, _o, cmd: Command) => importCurl(command, opts(cmd)));

  // ---- mcp-servers
  const mcpServers = program.command('mcp-servers').description('bring MCP servers in as bundles: list, add, remove, and import an mcpServers JSON');
  common(mcpServers.command('list'))
    .description('list the MCP servers brought in: how each is reached, its bundle and its tools')
    .action(async (_o, cmd: Command) => mcpServersList(opts(cmd)));
  common(mcpServers.command('add'))
    .description('add an MCP server as a new bundle, start it and store its tools')
    .argument('<name>', 'the server’s name (its bundle’s name)')
    .option('--command <program>', 'stdio: the program to start (looked up on PATH), e.g. npx')
    .option('--arg <arg>', 'stdio: an argument of the program (repeat for several, in order)', collect)
    .option('--env <name=value>', 'stdio: an environment variable of the program (repeat for several)', collect)
    .option('--cwd <dir>', 'stdio: the program’s working folder, where relative paths in its arguments are read from (default: the workspace folder)')
    .option('--url <url>', 'Streamable HTTP: the endpoint, e.g. https://example.com/mcp')
    .option('--header <name:value>', "Streamable HTTP: a header sent with every request (repeat for several); a token as 'Authorization: Bearer ${secret:NAME}'", collect)
    .option('--oauth-client-id <id>', 'Streamable HTTP: the OAuth client registered beforehand for Toolsmith (servers without dynamic registration)')
    .option('--oauth-client-secret <ref>', "its secret, as '${secret:NAME}' (the value stays in the secret store)")
    .option('--oauth-redirect-port <port>', 'the port of the redirect URL registered with it (http://127.0.0.1:PORT/oauth/callback)')
    .option('--trust', 'its tools that give no hints of their effects run without asking (default: a model’s call of one waits for approval)')
    .option('--disabled', 'add it with its bundle switched off, without starting it')
    .action(async (name: string, _o, cmd: Command) => mcpServersAdd(name, opts(cmd)));
  common(mcpServers.command('remove'))
    .description('stop an MCP server and delete its bundle and tools (the server’s program or site is not touched)')
    .argument('<server>', 'the server’s name or id')
    .action(async (name: string, _o, cmd: Command) => mcpServersRemove(name, opts(cmd)));
  common(mcpServers.command('import'))
    .description('add every server of an mcpServers JSON (Claude Desktop, Cursor, Windsurf) or a VS Code mcp.json; names already used are left as they are')
    .argument('<file>', 'the JSON file, or - for standard input')
    .action(async (file: string, _o, cmd: Command) => mcpServersImport(file, opts(cmd)));

  // ---- invoke, test, eval
  common(program.command('invoke'), false)
    .description('call a tool; its result as JSON on stdout (errors on stderr, exit 1)')
    .argument('<tool>', 'BUNDLE/SLUG[@VERSION]')
    .option('--args <json>', "the arguments: JSON, @FILE (JSON in a file) or - (JSON on standard input); default {}")
    .option('--timeout <ms>', 'stop the call after this many milliseconds')
    .option('--meta', 'print {ok, value, invocationId, durationMs, attempts} instead of the value alone')
    .option('--trust', 'trust the tool’s script first: a script tool not written in this app (imported, dropped in) is refused until trusted; read its .js first')
    .action(async (ref: string, _o, cmd: Command) => invoke(ref, opts(cmd)));
  common(program.command('test'))
    .description('run the saved test cases of the bundles switched on, or of the bundles named')
    .argument('[bundles...]', 'bundle names or ids (default: every bundle switched on)')
    .addOption(new Option('--reporter <name>', 'the report: text (the default), junit or json').choices(['text', 'junit', 'json']))
    .option('--out <file>', 'write the report to this file (the summary is still printed)')
    .option('--pass-with-no-tests', 'exit 0 when there are no saved test cases')
    .action(async (names: string[], _o, cmd: Command) => setExit(await test(names, opts(cmd))));
  common(program.command('eval'))
    .description('ask models the eval cases of the bundles switched on, or of the bundles named: does each choose the right tool and fill it right? The run is saved')
    .argument('[bundles...]', 'bundle names or ids (default: every bundle switched on)')
    .option('--model <provider/model>', "a model to ask: the provider's name (Settings → Models) and the model (repeat for several)", collect)
    .option('--repeat <n>', 'ask each case this many times (1–20; default 1)')
    .option('--pass-rate <share>', 'the share of attempts a case must pass, 0–1 (default 1: every attempt)')
    .option('--judge <provider/model>', 'the model that judges answers against a rubric (for judge checks that name none)')
    .option('--timeout <ms>', 'stop an attempt after this many milliseconds (default 300000; a case may set its own)')
    .option('--price <provider/model=in,out>', 'prices per million input and output tokens, for the cost (repeat per model)', collect)
    .addOption(new Option('--reporter <name>', 'the report: text (the default), junit or json').choices(['text', 'junit', 'json']))
    .option('--out <file>', 'write the report to this file (the summary is still printed)')
    .option('--pass-with-no-tests', 'exit 0 when there are no eval cases')
    .action(async (names: string[], _o, cmd: Command) => setExit(await evalCommand(names, opts(cmd))));

  // ---- hosts
  common(program.command('serve'), false)
    .description('start the headless host: the app in your browser, the REST API and /mcp on 127.0.0.1')
    .option('--port <n>', 'the port (default: TOOLSMITH_PORT, else any free one)')
    .option('--static <dir>', 'the built UI to serve (default: dist/renderer)')
    .action(async (_o, cmd: Command) => {
      const o = opts<{ port?: string; static?: string }>(cmd);
      const { serve, ServeUsageError } = await import('../transports/serve-host');
      try {
        await serve([...commonArgv(o), ...(o.port ? ['--port', o.port] : []), ...(o.static ? ['--static', o.static] : [])], process.env, host);
      } catch (e) {
        throw e instanceof ServeUsageError ? usageError(e.message) : e;
      }
      setExit(-1);
    });
  common(program.command('mcp'), false)
    .description('serve the bundles chosen in Settings → MCP server to an MCP client over stdio')
    .action(async (_o, cmd: Command) => {
      const { runMcpStdio } = await import('../transports/mcp-stdio');
      await runMcpStdio(commonArgv(opts(cmd)), process.env, host);
      setExit(-1);
    });

  // ---- completion
  program
    .command('completion')
    .description('print a shell completion script: toolsmith completion bash >> ~/.bashrc')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell !== 'bash' && shell !== 'zsh') throw usageError(`completion is written for bash or zsh: got '${shell}'`);
      out(completionScript(program, shell));
    });

  return program;
}

/**
 * `help COMMAND...` (also `tools help list`): the help of that very command. Commander's own help
 * command shows the first name's help and ignores whatever follows, options and misspellings
 * included; here an unknown name or any option is bad usage. Null when argv asks no help command.
 */
function helpCommand(program: Command, argv: readonly string[]): Done | null {
  let cmd = program;
  let k = 0;
  const sub = (c: Command, name: string) => c.commands.find((x) => x.name() === name || x.aliases().includes(name));
  for (; k < argv.length && sub(cmd, argv[k]!); k++) cmd = sub(cmd, argv[k]!)!;
  if (argv[k] !== 'help' || cmd.commands.length === 0) return null;
  const path = [program.name(), ...argv.slice(0, k)];
  for (const arg of argv.slice(k + 1)) {
    const next = arg.startsWith('-') ? undefined : sub(cmd, arg);
    if (!next) {
      const what = arg.startsWith('-') ? `unknown option '${arg}' for 'help'` : `unknown command '${arg}' for '${path.join(' ')}'`;
      throw usageError(`${what}: write help and the command, e.g. toolsmith help tools list`);
    }
    cmd = next;
    path.push(arg);
  }
  cmd.outputHelp();
  return EXIT.ok;
}

/** Runs the command line; answers the exit code, or -1 while a server (serve, mcp) keeps running. */
export async function runCli(argv: readonly string[], host: CliHost = {}): Promise<number> {
  let code: Done;
  const program = buildProgram((c) => (code = c), host);
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  try {
    const helped = helpCommand(program, argv);
    if (helped !== null) return helped ?? EXIT.ok;
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end with 0; a missing or unknown command, option or argument is bad usage.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (e instanceof CliError) {
      err(`toolsmith: ${e.message}`);
      if (e.exitCode === EXIT.usage) err('(toolsmith --help lists the commands; toolsmith COMMAND --help explains one)');
      return e.exitCode;
    }
    err(`toolsmith: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT.failed;
  }
  return code ?? EXIT.ok;
}
