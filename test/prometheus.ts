import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: string;
  samples: Sample[];
}

/** Debian's python3-prometheus-client lives beside the system interpreter, not a pyenv one. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

const PARSE = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
# JSON has no NaN or infinities: those travel as strings.
value = lambda v: v if math.isfinite(v) else str(v)
families = [{"name": f.name, "type": f.type, "samples": [{"name": s.name, "labels": s.labels, "value": value(s.value)} for s in f.samples]}
            for f in text_string_to_metric_families(sys.stdin.read())]
print(json.dumps(families))
`;

function hasPythonParser(): boolean {
  try {
    execFileSync(PYTHON, ['-c', 'import prometheus_client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether the exposition is checked by the Prometheus project's own parser (CI installs it). */
export const STRICT_PARSER = hasPythonParser();

/**
 * Parses a Prometheus text exposition with the Prometheus project's own Python client (package
 * python3-prometheus-client on Debian), which rejects anything a Prometheus server would not read.
 * Where it is not installed, the samples are read line by line, without that check.
 */
export function parsePrometheus(text: string): MetricFamily[] {
  if (!STRICT_PARSER) return readSamples(text);
  const families = JSON.parse(execFileSync(PYTHON, ['-c', PARSE], { input: text, encoding: 'utf8' })) as MetricFamily[];
  for (const family of families) for (const sample of family.samples) sample.value = Number(sample.value);
  return families;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample line as one family of its own, with `# TYPE` lines giving their families' types. */
function readSamples(text: string): MetricFamily[] {
  const types = new Map<string, string>();
  const families: MetricFamily[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1], type[2]);
    const sample = SAMPLE.exec(line);
    if (!sample || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(LABEL)) labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const family = sample[1].replace(/_(bucket|count|sum|total|created)$/, '');
    families.push({ name: family, type: types.get(family) ?? types.get(sample[1]) ?? 'unknown', samples: [{ name: sample[1], labels, value: Number(sample[3]) }] });
  }
  return families;
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number | undefined {
  for (const family of families) {
    for (const sample of family.samples) {
      if (sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) return sample.value;
    }
  }
  return undefined;
}
