import { parseArgs, type ParseArgsConfig } from 'node:util';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** A mistake in how a command was called: reported with the command's usage and exit code 2. */
export class UsageError extends Error {}

/**
 * Parses a command that takes exactly one positional argument (a host, a file…) plus options, strictly:
 * an unknown option, a missing value or a wrong number of positionals is a UsageError saying which.
 */
export function parseSinglePositional<const O extends OptionsConfig>(
  args: string[],
  options: O,
  describe: { missing: string; noun: string },
) {
  let parsed;
  try {
    parsed = parseArgs<{ args: string[]; strict: true; allowPositionals: true; options: O }>({ args, strict: true, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const help = (values as Record<string, unknown>).help === true;
  if (!help && positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? describe.missing : `expected one ${describe.noun}, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  return { values, positional: positionals[0] ?? '', help };
}
