import { parseArgs } from 'node:util';
import { storeNameProblem } from '../store/durable/store-name.js';
import { UsageError } from './cli-errors.js';

/** Every option of every command, with what its help says. */
const OPTIONS = {
  dir: { type: 'string', value: '<folder>', about: 'the folder given to createMemory({ directory })' },
  name: { type: 'string', value: '<store>', about: "the store's name, createMemory({ name }); needed when the folder holds several stores" },
  out: { type: 'string', value: '<file.jsonl>', about: 'write the export to this file instead of standard output' },
  create: { type: 'boolean', about: 'create the store when it does not exist (needs --name)' },
  user: { type: 'string', value: '<id>', about: "recall this user's memories only" },
  k: { type: 'string', value: '<n>', about: 'how many hits, 1 to 1000 (default 10)' },
  model: { type: 'string', value: '<id>', about: "the transformers.js model that wrote the store's vectors" },
  'model-path': { type: 'string', value: '<folder>', about: 'the folder to load that model from, offline' },
  help: { type: 'boolean', short: 'h', about: 'print this help' },
  debug: { type: 'boolean', about: 'print the stack trace of a failure' },
} as const;

type OptionName = keyof typeof OPTIONS;

export type Flags = { -readonly [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean };

interface CommandSpec {
  /** The positional argument, if the command takes one, and what to say when it is missing. */
  argument: { usage: string; missing: string } | null;
  options: readonly OptionName[];
  about: string;
}

const COMMANDS = {
  stats: {
    argument: null,
    options: ['dir', 'name'],
    about: 'Counts memories per user and type. Reads a snapshot of the store, so it works while an app has the store open, and writes nothing.',
  },
  export: {
    argument: null,
    options: ['dir', 'name', 'out'],
    about: 'Writes every memory with its vector as JSON Lines, which engram import (or memory.import) loads. Reads a snapshot and writes nothing to the store.',
  },
  import: {
    argument: { usage: '<file.jsonl>', missing: 'import needs a file: engram import <file.jsonl> --dir <folder>' },
    options: ['dir', 'name', 'create'],
    about: 'Loads an export into the store. Needs the store to itself (close the app that has it open). A store that does not exist is created only with --create.',
  },
  recall: {
    argument: { usage: '"<query>"', missing: 'recall needs a query: engram recall "which database?" --dir <folder>' },
    options: ['dir', 'name', 'user', 'k', 'model', 'model-path'],
    about: "Prints a query's hits with their score parts. Reads a snapshot and writes nothing (not even access times).",
  },
  repair: {
    argument: null,
    options: ['dir', 'name'],
    about: 'Writes a new store from every record of a damaged one that verifies, prints what it kept and what it dropped, and keeps each damaged file beside it as <file>.damaged. Needs the store to itself.',
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

function isCommand(word: string | undefined): word is CommandName {
  return word !== undefined && Object.hasOwn(COMMANDS, word);
}

function usageLine(command: CommandName): string {
  const spec: CommandSpec = COMMANDS[command];
  const options = spec.options.map((option) => {
    const { value } = OPTIONS[option] as { value?: string };
    const text = value ? `--${option} ${value}` : `--${option}`;
    return option === 'dir' ? text : `[${text}]`;
  });
  return ['engram', command, spec.argument?.usage, ...options].filter(Boolean).join(' ');
}

export const USAGE = `usage: engram <command> [options]

${COMMAND_NAMES.map((command) => `  ${usageLine(command)}`).join('\n')}

engram <command> --help says what a command does and lists its options; --debug prints the stack trace of a failure.`;

export function commandHelp(command: CommandName): string {
  const spec: CommandSpec = COMMANDS[command];
  const options = [...spec.options, 'debug', 'help'] as OptionName[];
  const labels = options.map((option) => {
    const { value } = OPTIONS[option] as { value?: string };
    return value ? `--${option} ${value}` : `--${option}`;
  });
  const width = Math.max(...labels.map((label) => label.length));
  return `usage: ${usageLine(command)}

${spec.about}

options:
${options.map((option, i) => `  ${labels[i]!.padEnd(width)}  ${OPTIONS[option].about}`).join('\n')}`;
}

/** The command, its argument and its flags, checked: anything wrong is a UsageError naming what to do. */
export function parseCommandLine(argv: string[]): { command?: CommandName; argument?: string; flags: Flags } {
  let parsed: { values: Flags; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (error) {
    throw usageErrorOf(error, argv.find(isCommand));
  }
  const flags = parsed.values;
  const [command, ...rest] = parsed.positionals;
  if (command === undefined) {
    if (Object.keys(flags).some((key) => key !== 'help' && key !== 'debug')) throw new UsageError(`no command: engram <${COMMAND_NAMES.join('|')}> --dir <folder> (engram --help)`);
    return { flags };
  }
  if (!isCommand(command)) throw new UsageError(`unknown command "${command}": the commands are ${[...COMMAND_NAMES, 'hub'].join(', ')} (engram --help)`);
  if (flags.help) return { command, flags };
  const spec: CommandSpec = COMMANDS[command];
  const help = `(engram ${command} --help)`;
  for (const key of Object.keys(flags) as OptionName[]) {
    if (key !== 'help' && key !== 'debug' && !spec.options.includes(key)) throw new UsageError(`--${key} does not apply to ${command} ${help}`);
  }
  if (spec.argument && rest.length === 0) throw new UsageError(spec.argument.missing);
  const extra = rest[spec.argument ? 1 : 0];
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"${command === 'recall' ? ': quote a query of several words' : ''} ${help}`);
  if (!flags.dir) throw new UsageError(`${command} needs --dir: the folder given to createMemory({ directory }) ${help}`);
  if (flags.name !== undefined) {
    const problem = flags.name === '' ? 'is empty' : storeNameProblem(flags.name);
    if (problem) throw new UsageError(`--name "${flags.name}" ${problem}`);
  }
  if (flags.create && !flags.name) throw new UsageError('import --create needs --name: the name of the store to create');
  if (flags.k !== undefined && !(/^\d+$/.test(flags.k) && Number(flags.k) >= 1 && Number(flags.k) <= 1000)) {
    throw new UsageError(`--k takes a whole number from 1 to 1000, not "${flags.k}"`);
  }
  return { command, argument: spec.argument ? rest[0] : undefined, flags };
}

/** node:util's parseArgs errors, said as what to do. */
function usageErrorOf(error: unknown, command: CommandName | undefined): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const help = command ? `engram ${command} --help` : 'engram --help';
  const option = /'(-[^' ]+)/.exec((error as Error).message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${option} (${help} lists the options)`);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const spec = (OPTIONS as Record<string, { type: string; about: string }>)[option.replace(/^--/, '')];
    if (spec?.type === 'string') return new UsageError(`${option} needs a value: ${spec.about} (${help})`);
    return new UsageError(`${option} takes no value (${help})`);
  }
  return error as Error;
}
