// The release commands' options: `--help` prints the usage, and an unknown or malformed option is named with the
// usage on stderr and exit 2, never Node's stack trace.
import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export function commandLine<O extends Options>(
  command: string,
  usage: string,
  options: O,
  args: string[] = process.argv.slice(2),
): ReturnType<typeof parseArgs<{ options: O; args: string[] }>>['values'] {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs({ args, options }).values;
  } catch (err) {
    console.error(`${command}: ${(err as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}
