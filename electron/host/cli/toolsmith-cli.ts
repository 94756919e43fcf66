/**
 * The `toolsmith` command (bin/toolsmith.mjs runs this, bundled to dist-electron/toolsmith.mjs):
 * the registry, calls, saved test cases, the headless host and the MCP server on the command
 * line, over the same core and data folder as the app. The commands are in cli/ (docs/cli.md).
 * The installed app runs the same commands in its own binary (`--cli`, cli-mode.ts).
 */
import { runCliProcess } from './run-process';

void runCliProcess(process.argv.slice(2), { exit: (code) => process.exit(code) });
