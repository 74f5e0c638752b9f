import { DetectdError } from '../core/errors.js';
import { type ApiVersion, type Configuration, type ParameterRule, parameterNames, type SentParameters } from './task.js';

/** The parameters every image task takes (the Nvision API's three), whatever it finds. */
export interface ImageParameters {
  confidenceThreshold: number;
  outputCroppedImage: boolean;
  outputVisualizedImage: boolean;
}

/** One parameter's row: which field of the task's parameters (`Parameters`: the image tasks' three, or a task's own beside them) it sets, and how its text is read. */
export interface ImageParameterRule<Parameters extends ImageParameters = ImageParameters> extends ParameterRule {
  readonly key: keyof Parameters & string;
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

/** What a task finds, in the words of its parameters' descriptions: e.g. `{ one: 'object', many: 'Objects' }`. */
export interface FoundNoun {
  readonly one: string;
  readonly many: string;
}

/** The parameter table of an image task: the single table behind validation, defaults and docs. */
export function imageParameterRules(found: FoundNoun, defaultConfidence: string): Readonly<Record<string, ImageParameterRule>> {
  return {
    ConfidenceThreshold: {
      key: 'confidenceThreshold',
      versions: ['v1', 'legacy'],
      defaultValue: defaultConfidence,
      allowed: 'a decimal number from 0 to 1, e.g. "0.5"',
      description: `${found.many} with a lower confidence are left out.`,
      parse: parseFraction,
    },
    OutputCroppedImage: {
      key: 'outputCroppedImage',
      versions: ['v1', 'legacy'],
      defaultValue: 'false',
      allowed: '"true" or "false"',
      description: `Add \`cropped_image\` (base64 JPEG of the box) to every ${found.one}.`,
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
}

/**
 * Configurations → typed parameters with defaults from `rules`; 400 on any problem. Each value is
 * checked here whatever body form it came in (a JSON body's are strings by its schema; query-string
 * and form values arrive unchecked).
 */
export function parseImageConfigurations<Parameters extends ImageParameters = ImageParameters>(
  rules: Readonly<Record<string, ImageParameterRule<Parameters>>>,
  configurations: readonly Configuration[] | undefined,
  version: ApiVersion | undefined,
): Parameters {
  const parameters: Record<string, number | boolean> = Object.fromEntries(Object.values(rules).map((rule) => [rule.key, rule.parse(rule.defaultValue)!]));
  const seen = new Set<string>();
  for (const { parameter, value } of configurations ?? []) {
    const rule = Object.hasOwn(rules, parameter) ? rules[parameter] : undefined;
    if (!rule || version === undefined || !rule.versions.includes(version)) {
      throw new DetectdError('invalid_configuration', `unknown parameter "${parameter}"; this endpoint accepts ${parameterNames(rules, version).join(', ')}`);
    }
    if (seen.has(parameter)) throw new DetectdError('invalid_configuration', `parameter "${parameter}" is given more than once`);
    seen.add(parameter);
    const parsed = rule.parse(value);
    if (parsed === undefined) {
      throw new DetectdError('invalid_configuration', `parameter "${parameter}" has value ${JSON.stringify(value)}; allowed: ${rule.allowed}`);
    }
    parameters[rule.key] = parsed;
  }
  return parameters as unknown as Parameters;
}

/** Parameters as sent → typed parameters: the configurations (parseImageConfigurations), then a door's own minimum confidence where it sent one. */
export function parseImageParameters<Parameters extends ImageParameters = ImageParameters>(
  rules: Readonly<Record<string, ImageParameterRule<Parameters>>>,
  sent: SentParameters,
  version: ApiVersion | undefined,
): Parameters {
  const parameters = parseImageConfigurations(rules, sent.configurations, version);
  return sent.minConfidence === undefined ? parameters : { ...parameters, confidenceThreshold: sent.minConfidence };
}
