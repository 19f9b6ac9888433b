// --format, on check and status: how the last line is printed. JSON is a flag of its own,
// --json, which a user may well look for here: `--format json` is told so.
import { InvalidArgumentError, Option } from 'commander';
import type { CheckFormat } from '../formats/report-options.js';

const FORMATS: readonly CheckFormat[] = ['human', 'nagios'];

function checkFormat(value: string): CheckFormat {
  if ((FORMATS as readonly string[]).includes(value)) return value as CheckFormat;
  const json = value.toLowerCase() === 'json' ? '; for JSON, use --json' : '';
  throw new InvalidArgumentError(`Allowed choices are ${FORMATS.join(', ')}${json}.`);
}

export function formatOption(description: string): Option {
  // choices() for the help's list of them; the parser after it, for the hint.
  return new Option('--format <format>', description).choices(FORMATS).argParser(checkFormat).default('human');
}
