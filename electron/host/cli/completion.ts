/**
 * `toolsmith completion bash|zsh`: a completion script written from the command tree, so it
 * knows every command and option this version has. Commands complete after their parent;
 * options (and files, for the arguments that take a path) after a command.
 */
import type { Command } from 'commander';

interface Node {
  /** The words before: '' for the program, 'tools' for `toolsmith tools`, 'tools list', … */
  path: string;
  words: string[];
}

/** Every command path with the words that may follow it: its subcommands and its options. */
export function completionTable(program: Command): Node[] {
  const nodes: Node[] = [];
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.map((c) => c.name());
    const options = cmd.options.filter((o) => !o.hidden).flatMap((o) => [o.long, o.short].filter((x): x is string => !!x));
    nodes.push({ path, words: [...subs, ...options, '--help'] });
    for (const c of cmd.commands) walk(c, path ? `${path} ${c.name()}` : c.name());
  };
  walk(program, '');
  return nodes;
}

const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const nodes = completionTable(program);
  const cases = nodes.map((n) => `    ${shellWord(n.path)}) cands=${shellWord(n.words.join(' '))} ;;`).join('\n');
  const known = nodes.map((n) => n.path).filter(Boolean);
  // The command path typed so far: the words that extend a known path (options and their values are skipped).
  const pathOf = (wordsExpr: string) => `
  local cmdpath="" w cands
  for w in ${wordsExpr}; do
    case "$w" in -*) continue ;; esac
    case " ${known.map((k) => `|${k}|`).join(' ')} " in
      *" |\${cmdpath:+$cmdpath }$w| "*) cmdpath="\${cmdpath:+$cmdpath }$w" ;;
    esac
  done`;
  if (shell === 'bash') {
    return `# toolsmith completion for bash: source it, or add \`eval "$(toolsmith completion bash)"\` to ~/.bashrc
_toolsmith() {
  local cur prev
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
    --data-dir|--out|--static|--resources) COMPREPLY=($(compgen -d -- "$cur")); [[ "$prev" == --out ]] && COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac${pathOf('"${COMP_WORDS[@]:1:COMP_CWORD-1}"')}
  case "$cmdpath" in
${cases}
    *) cands="" ;;
  esac
  COMPREPLY=($(compgen -W "$cands" -- "$cur"))
  case "$cmdpath" in
    "bundles import"|"import openapi"|"mcp-servers import") [[ "$cur" != -* ]] && COMPREPLY+=($(compgen -f -- "$cur")) ;;
  esac
}
complete -o default -F _toolsmith toolsmith
`;
  }
  return `#compdef toolsmith
# toolsmith completion for zsh: add \`eval "$(toolsmith completion zsh)"\` to ~/.zshrc (after compinit)
_toolsmith() {
  case "\${words[CURRENT-1]}" in
    --data-dir|--static|--resources) _directories; return ;;
    --out) _files; return ;;
  esac${pathOf('"${(@)words[2,CURRENT-1]}"')}
  case "$cmdpath" in
${cases}
    *) cands="" ;;
  esac
  compadd -- \${=cands}
  case "$cmdpath" in
    "bundles import"|"import openapi"|"mcp-servers import") _files ;;
  esac
}
compdef _toolsmith toolsmith
`;
}
