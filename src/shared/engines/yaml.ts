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

/**
 * Reads the block YAML people write into option files: nested mappings by indentation, `- item` sequences, flow
 * `{…}`/`[…]`, quoted and plain scalars, `#` comments. Anchors, tags, multi-line scalars and multiple documents
 * are refused with the line, not guessed at.
 */
export function readYaml(text: string): { value: { [key: string]: YamlValue } } | { error: string } {
  const lines: { indent: number; text: string; no: number }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const body = stripComment(raw);
    if (body.trim() === '' || body.trim() === '---') return;
    lines.push({ indent: body.length - body.trimStart().length, text: body.trim(), no: i + 1 });
  });
  try {
    if (lines.length === 0) return { value: {} };
    const [value, next] = readBlock(lines, 0, lines[0]?.indent ?? 0);
    if (next < lines.length) throw new Error(`line ${lines[next]?.no}: unexpected indentation`);
    if (!isMapping(value)) throw new Error('the document is not a mapping');
    return { value };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] as string))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

type YamlLine = { indent: number; text: string; no: number };

function readBlock(lines: readonly YamlLine[], start: number, indent: number): [YamlValue, number] {
  const first = lines[start] as YamlLine;
  if (first.text.startsWith('- ') || first.text === '-') {
    const items: YamlValue[] = [];
    let i = start;
    while (i < lines.length && (lines[i] as YamlLine).indent === indent && /^-(\s|$)/.test((lines[i] as YamlLine).text)) {
      const rest = (lines[i] as YamlLine).text.slice(1).trim();
      if (rest === '') {
        const child = lines[i + 1];
        if (!child || child.indent <= indent) throw new Error(`line ${(lines[i] as YamlLine).no}: empty sequence item`);
        const [value, next] = readBlock(lines, i + 1, child.indent);
        items.push(value);
        i = next;
      } else {
        items.push(readScalar(rest, (lines[i] as YamlLine).no));
        i++;
      }
    }
    return [items, i];
  }
  const map: { [key: string]: YamlValue } = {};
  let i = start;
  while (i < lines.length && (lines[i] as YamlLine).indent === indent) {
    const line = lines[i] as YamlLine;
    const m = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:'"{[\]}][^:]*?)\s*:(?:\s+(.*))?$/.exec(line.text);
    if (!m) throw new Error(`line ${line.no}: expected "key: value"`);
    const key = String(readScalar(m[1] as string, line.no));
    const rest = m[2]?.trim() ?? '';
    if (rest !== '') {
      map[key] = readScalar(rest, line.no);
      i++;
      continue;
    }
    const child = lines[i + 1];
    if (child && (child.indent > indent || (child.indent === indent && /^-(\s|$)/.test(child.text)))) {
      const [value, next] = readBlock(lines, i + 1, child.indent);
      map[key] = value;
      i = next;
    } else {
      map[key] = null;
      i++;
    }
  }
  return [map, i];
}

function readScalar(text: string, no: number): YamlValue {
  const t = text.trim();
  if (/^[&*!|>]/.test(t)) throw new Error(`line ${no}: anchors, tags and block scalars are not read`);
  if (t.startsWith('{') || t.startsWith('[')) {
    const flow = new FlowReader(t, no);
    const value = flow.value();
    flow.end();
    return value;
  }
  if (t.startsWith('"')) return JSON.parse(t) as string;
  if (t.startsWith("'")) {
    if (!t.endsWith("'") || t.length < 2) throw new Error(`line ${no}: unterminated string`);
    return t.slice(1, -1).replace(/''/g, "'");
  }
  // The engines read these files with PyYAML (YAML 1.1): its resolver's booleans and numbers (yaml/resolver.py).
  if (/^(null|Null|NULL|~)$/.test(t)) return null;
  if (/^(yes|Yes|YES|true|True|TRUE|on|On|ON)$/.test(t)) return true;
  if (/^(no|No|NO|false|False|FALSE|off|Off|OFF)$/.test(t)) return false;
  if (/^[-+]?(0|[1-9][0-9_]*)$/.test(t)) return Number(t.replace(/_/g, ''));
  if (/^[-+]?0[0-7_]+$/.test(t)) return (t.startsWith('-') ? -1 : 1) * parseInt(t.replace(/[-+_]/g, ''), 8);
  if (/^[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?$/.test(t) && /\d/.test(t)) return Number(t.replace(/_/g, ''));
  return t;
}

class FlowReader {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly no: number,
  ) {}
  private skip(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i] as string)) this.i++;
  }
  private fail(): never {
    throw new Error(`line ${this.no}: cannot read the flow value ${this.s}`);
  }
  end(): void {
    this.skip();
    if (this.i !== this.s.length) this.fail();
  }
  value(): YamlValue {
    this.skip();
    const c = this.s[this.i];
    if (c === '{') {
      this.i++;
      const map: { [key: string]: YamlValue } = {};
      this.skip();
      if (this.s[this.i] === '}') {
        this.i++;
        return map;
      }
      for (;;) {
        const key = String(this.atom(':'));
        this.skip();
        if (this.s[this.i] !== ':') this.fail();
        this.i++;
        map[key] = this.value();
        this.skip();
        if (this.s[this.i] === ',') this.i++;
        else if (this.s[this.i] === '}') {
          this.i++;
          return map;
        } else this.fail();
      }
    }
    if (c === '[') {
      this.i++;
      const items: YamlValue[] = [];
      this.skip();
      if (this.s[this.i] === ']') {
        this.i++;
        return items;
      }
      for (;;) {
        items.push(this.value());
        this.skip();
        if (this.s[this.i] === ',') this.i++;
        else if (this.s[this.i] === ']') {
          this.i++;
          return items;
        } else this.fail();
      }
    }
    return this.atom(',]}');
  }
  private atom(stops: string): YamlValue {
    this.skip();
    const c = this.s[this.i];
    if (c === '"' || c === "'") {
      const close = this.s.indexOf(c, this.i + 1);
      if (close < 0) this.fail();
      const raw = this.s.slice(this.i, close + 1);
      this.i = close + 1;
      return readScalar(raw, this.no);
    }
    const start = this.i;
    while (this.i < this.s.length && !stops.includes(this.s[this.i] as string) && !(stops.includes(':') && this.s[this.i] === ':')) this.i++;
    const raw = this.s.slice(start, this.i).trim();
    if (raw === '') this.fail();
    return readScalar(raw, this.no);
  }
}
