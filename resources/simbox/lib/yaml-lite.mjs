// A small YAML reader for the option files engines take (TensorRT-LLM's --extra_llm_api_options, vLLM's --config):
// block mappings and lists, flow maps/lists, plain and quoted scalars, comments. Not a general YAML parser.

export function parseYaml(text) {
  const lines = text
    .split(/\r?\n/)
    .map((raw, n) => ({ raw: stripComment(raw), n: n + 1 }))
    .filter((l) => l.raw.trim() !== '' && l.raw.trim() !== '---');
  let pos = 0;
  const indentOf = (l) => l.raw.length - l.raw.trimStart().length;

  function block() {
    if (pos >= lines.length) return null;
    const first = lines[pos];
    if (first.raw.trim().startsWith('- ') || first.raw.trim() === '-') return list(indentOf(first));
    return map(indentOf(first));
  }
  function map(indent) {
    const out = {};
    while (pos < lines.length && indentOf(lines[pos]) === indent && !lines[pos].raw.trim().startsWith('-')) {
      const line = lines[pos];
      const m = /^([^:]+?):(?:\s+(.*))?$/.exec(line.raw.trim());
      if (!m) throw new Error(`line ${line.n}: expected "key: value"`);
      pos++;
      const key = unquote(m[1].trim());
      if (m[2] !== undefined && m[2].trim() !== '') out[key] = scalar(m[2].trim());
      else if (pos < lines.length && indentOf(lines[pos]) > indent) out[key] = block();
      else if (pos < lines.length && indentOf(lines[pos]) === indent && lines[pos].raw.trim().startsWith('- ')) out[key] = list(indent);
      else out[key] = null;
    }
    return out;
  }
  function list(indent) {
    const out = [];
    while (pos < lines.length && indentOf(lines[pos]) === indent && lines[pos].raw.trim().startsWith('-')) {
      const rest = lines[pos].raw.trim().slice(1).trim();
      pos++;
      if (rest === '') out.push(pos < lines.length ? block() : null);
      else if (/^[^'"{[][^:]*:\s/.test(rest) || /^[^'"{[][^:]*:$/.test(rest)) {
        // "- key: value" starts a mapping item.
        lines.splice(pos, 0, { raw: `${' '.repeat(indent + 2)}${rest}`, n: lines[pos - 1].n });
        out.push(map(indent + 2));
      } else out.push(scalar(rest));
    }
    return out;
  }
  const result = block();
  if (pos < lines.length) throw new Error(`line ${lines[pos].n}: unexpected indentation`);
  return result ?? {};
}

function stripComment(line) {
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

function unquote(s) {
  if ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"))) return s.slice(1, -1);
  return s;
}

function splitFlow(s) {
  const parts = [];
  let depth = 0;
  let quote = null;
  let cur = '';
  for (const c of s) {
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  if (cur.trim() !== '') parts.push(cur.trim());
  return parts;
}

export function scalar(s) {
  s = s.trim();
  if (s.startsWith('{') && s.endsWith('}')) {
    const out = {};
    for (const part of splitFlow(s.slice(1, -1))) {
      const i = part.indexOf(':');
      out[unquote(part.slice(0, i).trim())] = scalar(part.slice(i + 1));
    }
    return out;
  }
  if (s.startsWith('[') && s.endsWith(']')) return splitFlow(s.slice(1, -1)).map(scalar);
  if (s.startsWith('"') || s.startsWith("'")) return unquote(s);
  if (/^(true|True|TRUE)$/.test(s)) return true;
  if (/^(false|False|FALSE)$/.test(s)) return false;
  if (/^(null|Null|NULL|~)$/.test(s)) return null;
  if (/^[-+]?\d+$/.test(s)) return Number(s);
  if (/^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/.test(s)) return Number(s);
  return s;
}
