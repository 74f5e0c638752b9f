import { DetectdError } from '../../core/errors.js';
import { type ApiVersion, type Configuration, type ParameterRule, parameterNames } from '../task.js';
import { targetClassesOf } from './target-classes.js';

export interface DetectionParameters {
  confidenceThreshold: number;
  outputCroppedImage: boolean;
  outputVisualizedImage: boolean;
  /** Only objects of these class names are returned; undefined: every class (target-classes.ts). */
  targetClasses?: ReadonlySet<string>;
}

interface DetectionParameterRule extends ParameterRule {
  readonly key: keyof DetectionParameters;
  parse(value: string): number | boolean | undefined;
}

const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

function parseFraction(value: string): number | undefined {
  const trimmed = value.trim();
  if (!DECIMAL.test(trimmed)) return undefined;
  const number = Number(trimmed);
  return number >= 0 && number <= 1 ? number : undefined;
}

function parseBoolean(value: string): boolean | undefined {
  const lower = value.trim().toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

/** Every configuration parameter: the single table behind validation, defaults and docs. */
export const PARAMETER_RULES: Readonly<Record<string, DetectionParameterRule>> = {
  ConfidenceThreshold: {
    key: 'confidenceThreshold',
    versions: ['v1', 'legacy'],
    defaultValue: '0.1',
    allowed: 'a decimal number from 0 to 1, e.g. "0.5"',
    description: 'Objects with a lower confidence are left out.',
    parse: parseFraction,
  },
  OutputCroppedImage: {
    key: 'outputCroppedImage',
    versions: ['v1', 'legacy'],
    defaultValue: 'false',
    allowed: '"true" or "false"',
    description: 'Add `cropped_image` (base64 JPEG of the box) to every object.',
    parse: parseBoolean,
  },
  OutputVisualizedImage: {
    key: 'outputVisualizedImage',
    // Also on the legacy path: the Nvision Python SDK sends all three parameters to both.
    versions: ['v1', 'legacy'],
    defaultValue: 'false',
    allowed: '"true" or "false"',
    description: 'Add top-level `raw_data`: the image with every box drawn (base64 JPEG), where Nvision clients read it.',
    parse: parseBoolean,
  },
};

/** Every parameter at its default, parsed once. */
const DEFAULTS: Readonly<Record<string, number | boolean>> = Object.fromEntries(
  Object.values(PARAMETER_RULES).map((rule) => [rule.key, rule.parse(rule.defaultValue)!]),
);

/**
 * Configurations → typed parameters with defaults; 400 on any problem. Each value is checked here
 * whatever body form it came in (a JSON body's are strings by its schema; query-string and form
 * values arrive unchecked).
 */
export function parseConfigurations(
  configurations: readonly Configuration[] | undefined,
  version: ApiVersion,
): DetectionParameters {
  const parameters: Record<string, number | boolean> = { ...DEFAULTS };
  const seen = new Set<string>();
  for (const { parameter, value } of configurations ?? []) {
    const rule = Object.hasOwn(PARAMETER_RULES, parameter) ? PARAMETER_RULES[parameter] : undefined;
    if (!rule || !rule.versions.includes(version)) {
      throw new DetectdError(
        'invalid_configuration',
        `unknown parameter "${parameter}"; this endpoint accepts ${parameterNames(PARAMETER_RULES, version).join(', ')}`,
      );
    }
    if (seen.has(parameter)) throw new DetectdError('invalid_configuration', `parameter "${parameter}" is given more than once`);
    seen.add(parameter);
    const parsed = rule.parse(value);
    if (parsed === undefined) {
      throw new DetectdError('invalid_configuration', `parameter "${parameter}" has value ${JSON.stringify(value)}; allowed: ${rule.allowed}`);
    }
    parameters[rule.key] = parsed;
  }
  return parameters as unknown as DetectionParameters;
}

/** A request's configurations and `target_classes` → its parameters, as the JSON API and both streams take them. */
export function detectionParameters(
  configurations: readonly Configuration[] | undefined,
  targetClasses: readonly string[] | undefined,
  version: ApiVersion,
  labels: readonly string[],
): DetectionParameters {
  return { ...parseConfigurations(configurations, version), targetClasses: targetClassesOf(targetClasses, labels) };
}
