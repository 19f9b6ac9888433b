// What a stage says about each of its parameters, once: the flag that sets it, its unit,
// default, bounds and meaning, where help shows it, and whether the trace header records it.
// Flags, help, the exit-code help, the trace header, replay and the docs tables derive from these.
import { formatDuration, formatDurationRange, inDurationRange, parseDuration, type DurationRange } from './durations.js';

/** The heading a flag is listed under in help (and the docs table it is in). */
export type HelpGroup = 'probe' | 'scoring' | 'statistical' | 'tail' | 'early-warning' | 'hooks' | 'peer' | 'run';

interface SpecBase<Key extends string> {
  /** The field of the stage's params it sets. */
  readonly key: Key;
  /** The flag with its placeholder, as commander takes it: '--stat-threshold <x>'. */
  readonly flag: string;
  /** One line: what the value does. */
  readonly meaning: string;
  readonly group: HelpGroup;
  /**
   * The trace header's key for it (snake_case, with the unit: `sla_ms`). Set on exactly the
   * parameters whose value can change a state or the exit code: a run records them all, and
   * replay takes them back unless a flag overrides them.
   */
  readonly trace?: string;
  /**
   * The value a trace without this key was recorded with, where that is not the default: the
   * parameter came in with a rule that older slowdisks did not apply, and this value leaves
   * it out, so that their traces replay as they ran.
   */
  readonly untraced?: number;
}

/** The values a duration parameter takes, in ms. */
export interface DurationValue {
  readonly kind: 'duration';
  readonly range: DurationRange;
}

/** A plain number, a whole number, or a whole number of bytes, from `min` to `max`. */
export interface NumberValue {
  readonly kind: 'number' | 'integer' | 'bytes';
  readonly min: number;
  readonly max: number;
}

/** Above 0 and below 1. */
export interface ProbabilityValue {
  readonly kind: 'probability';
}

export interface ChoiceValue {
  readonly kind: 'choice';
  readonly choices: readonly string[];
}

/** A flag without a value: given, the parameter takes the opposite of its default. */
export interface BooleanValue {
  readonly kind: 'boolean';
}

/** What a value may be, whatever it sets. */
export type ParamValue = DurationValue | NumberValue | ProbabilityValue | ChoiceValue | BooleanValue;

export interface DurationSpec<Key extends string = string> extends SpecBase<Key>, DurationValue {
  /** In ms; undefined when it follows another parameter, as `defaultText` says. */
  readonly default: number | undefined;
  readonly defaultText?: string;
}

export interface NumberSpec<Key extends string = string> extends SpecBase<Key>, NumberValue {
  readonly default: number;
}

export interface ProbabilitySpec<Key extends string = string> extends SpecBase<Key>, ProbabilityValue {
  readonly default: number;
}

export interface ChoiceSpec<Key extends string = string> extends SpecBase<Key>, ChoiceValue {
  readonly default: string;
}

export interface BooleanSpec<Key extends string = string> extends SpecBase<Key>, BooleanValue {
  readonly default: boolean;
}

export type ParamSpec<Key extends string = string> = DurationSpec<Key> | NumberSpec<Key> | ProbabilitySpec<Key> | ChoiceSpec<Key> | BooleanSpec<Key>;

/** The flag's name without its placeholder: '--stat-threshold'. */
export function flagName(spec: ParamSpec): string {
  return spec.flag.split(' ')[0];
}

/** A value as a person would type it after the flag: 5s, 0.7, trend. */
export function formatParamValue(spec: ParamValue, value: unknown): string {
  return spec.kind === 'duration' && typeof value === 'number' ? formatDuration(value) : String(value);
}

/** The default as help and the docs show it: 100ms, 30m, off (a flag without a value is off until given); undefined when there is none to show. */
export function defaultText(spec: ParamSpec): string | undefined {
  if (spec.kind === 'boolean') return 'off';
  if (spec.kind === 'duration' && spec.default === undefined) return spec.defaultText;
  return formatParamValue(spec, spec.default);
}

/** The values it takes, as help and the docs show them: "1ms to 1h", "fdatasync or fsync". */
export function rangeText(spec: ParamValue): string | undefined {
  switch (spec.kind) {
    case 'duration':
      return formatDurationRange(spec.range);
    case 'number':
    case 'integer':
    case 'bytes':
      return `${spec.min} to ${spec.max}`;
    case 'probability':
      return 'above 0, below 1';
    case 'choice':
      return spec.choices.join(' or ');
    case 'boolean':
      return undefined;
  }
}

const isWhole = (spec: ParamValue) => spec.kind === 'integer' || spec.kind === 'bytes';

/** Parses the flag's text; a RangeError names what it expected. */
export function parseParam(spec: ParamValue, text: string): number | string {
  switch (spec.kind) {
    case 'duration': {
      const ms = parseDuration(text);
      if (!inDurationRange(ms, spec.range)) throw new RangeError(`expected a duration from ${formatDurationRange(spec.range)}, got '${text}'`);
      return ms;
    }
    case 'number':
    case 'integer':
    case 'bytes': {
      const n = Number(text);
      if (text.trim() === '' || !validParamValue(spec, n)) {
        throw new RangeError(`expected ${isWhole(spec) ? 'an integer' : 'a number'} from ${spec.min} to ${spec.max}, got '${text}'`);
      }
      return n;
    }
    case 'probability': {
      const p = Number(text);
      if (text.trim() === '' || !validParamValue(spec, p)) throw new RangeError(`expected a probability above 0 and below 1, got '${text}'`);
      return p;
    }
    case 'choice':
      if (!validParamValue(spec, text)) throw new RangeError(`expected ${spec.choices.join(' or ')}, got '${text}'`);
      return text;
    case 'boolean':
      throw new RangeError('takes no value');
  }
}

/** Whether a value (from a trace header, say) is one the flag could have set. */
export function validParamValue(spec: ParamValue, value: unknown): boolean {
  switch (spec.kind) {
    case 'duration':
      return typeof value === 'number' && inDurationRange(value, spec.range);
    case 'number':
    case 'integer':
    case 'bytes':
      return typeof value === 'number' && Number.isFinite(value) && value >= spec.min && value <= spec.max && (!isWhole(spec) || Number.isInteger(value));
    case 'probability':
      return typeof value === 'number' && value > 0 && value < 1;
    case 'choice':
      return typeof value === 'string' && spec.choices.includes(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

/** What a valid value is, for an error about a value stored elsewhere (a trace header). */
export function expectedValue(spec: ParamValue): string {
  switch (spec.kind) {
    case 'duration':
      return `a number of milliseconds from ${formatDurationRange(spec.range)}`;
    case 'number':
    case 'integer':
    case 'bytes':
      return `${isWhole(spec) ? 'an integer' : 'a number'} from ${spec.min} to ${spec.max}`;
    case 'probability':
      return 'a number above 0 and below 1';
    case 'choice':
      return spec.choices.map((choice) => JSON.stringify(choice)).join(' or ');
    case 'boolean':
      return 'true or false';
  }
}
