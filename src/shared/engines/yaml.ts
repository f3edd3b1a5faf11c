/**
 * Writes the small nested mappings engines read from option files (TensorRT-LLM's extra_llm_api_options).
 * Strings are double-quoted JSON strings, which YAML reads as the same text whatever they contain.
 */

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

export function toYaml(value: { [key: string]: YamlValue }): string {
  return writeMapping(value, 0).join('\n') + '\n';
}

function writeMapping(map: { [key: string]: YamlValue }, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  for (const [key, value] of Object.entries(map)) {
    const k = PLAIN_KEY.test(key) ? key : JSON.stringify(key);
    if (isMapping(value) && Object.keys(value).length > 0) {
      lines.push(`${pad}${k}:`, ...writeMapping(value, indent + 2));
    } else if (Array.isArray(value) && value.length > 0) {
      lines.push(`${pad}${k}:`);
      for (const item of value) {
        if (isMapping(item) || Array.isArray(item)) lines.push(`${pad}  - ${flow(item)}`);
        else lines.push(`${pad}  - ${scalar(item)}`);
      }
    } else {
      lines.push(`${pad}${k}: ${isMapping(value) || Array.isArray(value) ? flow(value) : scalar(value)}`);
    }
  }
  return lines;
}

function isMapping(value: YamlValue): value is { [key: string]: YamlValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function scalar(value: string | number | boolean | null): string {
  if (value === null) return 'null';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot write ${value} to YAML`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
}

function flow(value: YamlValue): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(', ')}]`;
  if (isMapping(value)) {
    const entries = Object.entries(value).map(([k, v]) => `${PLAIN_KEY.test(k) ? k : JSON.stringify(k)}: ${flow(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return scalar(value);
}

/** Sets `value` at a nested path, creating mappings on the way. */
export function setPath(root: { [key: string]: YamlValue }, path: readonly string[], value: YamlValue): void {
  let node = root;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (!isMapping(next ?? null)) node[key] = {};
    node = node[key] as { [key: string]: YamlValue };
  });
}
